package dev.irdmaemu.driver.verbs;

/**
 * The asynchronous QP events a verbs consumer hears (ib_verbs.h enum ib_event_type, the QP ones irdma raises:
 * utils.c irdma_ib_qp_event maps IRDMA_QP_EVENT_CATASTROPHIC, _ACCESS_ERR and _REQ_ERR on them).
 */
public enum QpEventType {
    QP_FATAL,
    QP_ACCESS_ERR,
    QP_REQ_ERR;

    /** user.h enum irdma_qp_event_type to the IB event (utils.c irdma_ib_qp_event). */
    static QpEventType of(int irdmaEventType) {
        return switch (irdmaEventType) {
            case FlushCode.EVENT_ACCESS_ERR -> QP_ACCESS_ERR;
            case FlushCode.EVENT_REQ_ERR -> QP_REQ_ERR;
            default -> QP_FATAL;
        };
    }
}
