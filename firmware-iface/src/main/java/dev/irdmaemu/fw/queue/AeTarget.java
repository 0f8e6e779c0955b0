package dev.irdmaemu.fw.queue;

/**
 * What irdma_sc_get_next_aeqe (gen2) makes of an AE code and source: whether the completion context is a QP
 * (and which of its queues) or a CQ, or neither. The model uses it to choose what to put in qword0: a QP's
 * qp_compl_ctx for the QP targets, the CQ context shifted right by one for {@link #CQ} (the driver shifts it
 * back left).
 */
public enum AeTarget {
    /** No object: the driver only logs or counts it. */
    NONE,
    QP,
    QP_RQ,
    QP_SQ,
    /** Inbound RDMA Read Response / Write (IRDMA_AE_SOURCE_IN_RR_WR*). */
    QP_IN_RDRSP_WR,
    /** Outbound RDMA Read Response (IRDMA_AE_SOURCE_OUT_RR*). */
    QP_OUT_RDRSP,
    CQ,
    SRQ,
    /** IRDMA_AE_CQP_DEFERRED_COMPLETE: the WQE index field carries the deferred info. */
    CQP_DEFERRED;

    public static AeTarget of(int aeCode, int source) {
        AeCode ae = AeCode.of(aeCode);
        AeCode.Kind kind = ae == null ? AeCode.Kind.BY_SOURCE : ae.kind();
        AeTarget byCode = NONE;
        switch (kind) {
            case SRQ:
                return SRQ;
            case CQ:
                return CQ;
            case CQP_DEFERRED:
                return CQP_DEFERRED;
            case QP_IGNORE_SOURCE:
                return QP;
            case QP:
                byCode = QP;
                break;
            default:
                break;
        }
        switch (source) {
            case AeSource.RQ:
            case AeSource.RQ_0011:
                return QP_RQ;
            case AeSource.CQ:
            case AeSource.CQ_0110:
            case AeSource.CQ_1010:
            case AeSource.CQ_1110:
                // the driver tests info->qp before info->cq (hw.c irdma_process_aeq)
                return byCode == QP ? QP : CQ;
            case AeSource.SQ:
            case AeSource.SQ_0111:
                return QP_SQ;
            case AeSource.IN_RR_WR:
            case AeSource.IN_RR_WR_1011:
                return QP_IN_RDRSP_WR;
            case AeSource.OUT_RR:
            case AeSource.OUT_RR_1111:
                return QP_OUT_RDRSP;
            default:
                return byCode;
        }
    }
}
