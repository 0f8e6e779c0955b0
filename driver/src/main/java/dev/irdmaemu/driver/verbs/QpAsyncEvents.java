package dev.irdmaemu.driver.verbs;

import static dev.irdmaemu.driver.verbs.QueuePair.STATE_CLOSING;
import static dev.irdmaemu.driver.verbs.QueuePair.STATE_ERROR;
import static dev.irdmaemu.driver.verbs.QueuePair.STATE_RTS;
import static dev.irdmaemu.driver.verbs.QueuePair.STATE_TERMINATE;
import static dev.irdmaemu.driver.verbs.QueuePair.TCP_CLOSE_WAIT;

import dev.irdmaemu.driver.AsyncEvent;
import dev.irdmaemu.fw.queue.AeCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * hw.c irdma_process_aeq for an AE of a consumer QP: the device's iWARP and TCP states recorded, then the event
 * handled as irdma does (RTS AE, FIN, close complete, resets, terminate sent / received, and every error AE through
 * irdma_terminate_connection), with the terminate work of {@link QpTerminate} and the disconnect of
 * {@link CmDisconnect}.
 */
final class QpAsyncEvents {
    private static final Logger LOG = LoggerFactory.getLogger(QueuePair.class);

    private final QueuePair qp;

    QpAsyncEvents(QueuePair qp) {
        this.qp = qp;
    }

    void asyncEvent(AsyncEvent ae) {
        if (qp.destroyed) {
            return;
        }
        qp.hwTcpState = ae.tcpState;
        qp.hwIwarpState = ae.iwarpState;
        if (ae.aeCode != AeCode.QP_SUSPEND_COMPLETE.code()) {
            qp.lastAe = ae.aeCode;
        }
        AeCode code = AeCode.of(ae.aeCode);
        if (code == null) {
            errorEvent(ae);
            return;
        }
        switch (code) {
            case LLP_CONNECTION_ESTABLISHED -> {
                qp.rtsAeReceived = true;
                qp.disconnect.notifyConnection(QpEvent.ESTABLISHED);
            }
            case LLP_FIN_RECEIVED, RDMAP_ROE_BAD_LLP_CLOSE -> finReceived();
            case LLP_CLOSE_COMPLETE -> {
                if (qp.termFlags != 0) {
                    qp.term.done(false);
                } else {
                    qp.disconnect.cmDisconnect();
                }
            }
            case BAD_CLOSE, RESET_SENT -> {
                qp.modifier.nextIwState(STATE_ERROR, true, 0, 0);
                qp.disconnect.cmDisconnect();
            }
            case LLP_CONNECTION_RESET -> {
                if (qp.closeTimerStarted > 0) {
                    return;
                }
                qp.disconnect.cmDisconnect();
            }
            case QP_SUSPEND_COMPLETE, RESET_NOT_SENT, LLP_DOUBT_REACHABILITY, RESOURCE_EXHAUSTION -> {
            }
            case TERMINATE_SENT -> qp.term.sendFin();
            case LLP_TERMINATE_RECEIVED -> qp.term.received(ae);
            default -> errorEvent(ae);
        }
    }

    /** The peer's FIN (or a bad LLP close): CLOSE_WAIT, then CLOSING and a disconnect for a QP in RTS. */
    private void finReceived() {
        if (qp.termFlags != 0) {
            return;
        }
        if (++qp.closeTimerStarted == 1) {
            qp.hwTcpState = TCP_CLOSE_WAIT;
            if (qp.ibState == IbQpState.RTS) {
                qp.modifier.nextIwState(STATE_CLOSING, false, 0, 0);
                qp.disconnect.cmDisconnect();
            }
        }
    }

    /**
     * The default branch of irdma_process_aeq for iWARP: an RQ error names the failing RQ WQE in the context
     * (err_rq_idx), then a QP not in RTS or TERMINATE goes to ERROR and disconnects, one in RTS or TERMINATE
     * terminates the connection.
     */
    private void errorEvent(AsyncEvent ae) {
        LOG.debug("QP {}: abnormal AE {}", qp.id, ae);
        if (ae.rq) {
            qp.ctx.writeRqError(ae.wqeIndex);
        }
        if (qp.hwIwarpState != STATE_RTS && qp.hwIwarpState != STATE_TERMINATE) {
            qp.modifier.nextIwState(STATE_ERROR, true, 0, 0);
            qp.disconnect.cmDisconnect();
        } else {
            qp.term.terminateConnection(ae);
        }
    }
}
