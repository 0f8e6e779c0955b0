package dev.irdmaemu.driver.verbs;

import static dev.irdmaemu.driver.verbs.QueuePair.TCP_CLOSED;
import static dev.irdmaemu.driver.verbs.QueuePair.TCP_CLOSE_WAIT;
import static dev.irdmaemu.driver.verbs.QueuePair.TCP_TIME_WAIT;

import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.sim.SimTimer;

/**
 * cm.c's handling of a consumer QP whose connection ends: the disconnect work queued after the AE handler
 * (irdma_cm_disconn) and the work itself (irdma_cm_disconn_true, iWARP): from the terminate flags, the TCP state,
 * the verbs state and the last AE, whether the consumer hears DISCONNECT and CLOSE, and whether the QP's WQEs are
 * flushed (with the QP event after a terminate).
 */
final class CmDisconnect {
    private final QueuePair qp;
    private final SimTimer work;
    private boolean queued;

    CmDisconnect(QueuePair qp) {
        this.qp = qp;
        this.work = qp.driver.scheduler().newTimer("qp-disconnect", this::worker);
    }

    /** cm.c irdma_cm_disconn: the disconnect work runs after the AE handler, on the scheduler (the work queue). */
    void cmDisconnect() {
        if (!queued && !qp.destroyed) {
            queued = true;
            work.scheduleIn(0);
        }
    }

    void cancel() {
        work.cancel();
    }

    private void worker() {
        queued = false;
        if (!qp.destroyed) {
            disconnectTrue();
        }
    }

    /**
     * cm.c irdma_cm_disconn_true (iWARP): from the terminate flags, the TCP state, the verbs state and the last AE,
     * whether the consumer hears DISCONNECT (with -ECONNRESET after a reset) and CLOSE, and whether the QP's WQEs
     * are flushed (with the QP event after a terminate).
     */
    void disconnectTrue() {
        int origTcp = qp.hwTcpState;
        IbQpState origIb = qp.ibState;
        int ae = qp.lastAe;
        boolean issueDisconnect = false;
        boolean issueClose = false;
        boolean issueFlush = false;
        boolean reset = false;
        boolean terminated = qp.termFlags != 0;
        ConnectionEvents cm = qp.connection;
        if (qp.termFlags != 0) {
            issueDisconnect = true;
            issueClose = true;
            qp.connection = null;
            qp.term.cancelTimer();
            issueFlush = claimFlush();
        } else if (origTcp == TCP_CLOSE_WAIT
                || origIb == IbQpState.RTS && ae == AeCode.LLP_CONNECTION_RESET.code()) {
            issueDisconnect = true;
            reset = ae == AeCode.LLP_CONNECTION_RESET.code();
        }
        if (origTcp == TCP_CLOSED || origTcp == TCP_TIME_WAIT || ae == AeCode.RDMAP_ROE_BAD_LLP_CLOSE.code()
                || ae == AeCode.BAD_CLOSE.code() || ae == AeCode.LLP_CONNECTION_RESET.code() || cm == null) {
            issueClose = true;
            qp.connection = null;
            qp.termFlags = 0;
            issueFlush |= claimFlush();
        }
        if (issueFlush && !qp.queues.destroyPending) {
            qp.flusher.flush();
            if (qp.termFlags != 0) {
                raiseQpEvent();
            }
        }
        if (cm != null) {
            tell(cm, issueDisconnect, issueClose, reset, terminated, ae);
        }
    }

    /** The flush is this disconnect's to issue unless one was issued already (iwqp->flush_issued). */
    private boolean claimFlush() {
        if (qp.flushIssued) {
            return false;
        }
        qp.flushIssued = true;
        return true;
    }

    /** The connection's event: DISCONNECT and CLOSE as one, one of them, or nothing. */
    private void tell(ConnectionEvents cm, boolean issueDisconnect, boolean issueClose, boolean reset,
                      boolean terminated, int ae) {
        QpEvent event;
        if (issueDisconnect && issueClose) {
            event = reset ? QpEvent.CONNECTION_RESET : terminated ? QpEvent.TERMINATED : QpEvent.CLOSE_COMPLETE;
        } else if (issueDisconnect) {
            event = QpEvent.FIN_RECEIVED;
        } else if (issueClose) {
            event = ae == AeCode.RESET_SENT.code() || ae == AeCode.BAD_CLOSE.code() ? QpEvent.RESET_SENT
                    : QpEvent.CLOSE_COMPLETE;
        } else {
            return;
        }
        cm.connectionEvent(qp, event);
    }

    private void raiseQpEvent() {
        if (qp.eventHandler != null) {
            qp.eventHandler.onEvent(qp, QpEventType.of(qp.eventType));
        }
    }

    /** The connection hears {@code e} if the QP carries one. */
    void notifyConnection(QpEvent e) {
        if (qp.connection != null) {
            qp.connection.connectionEvent(qp, e);
        }
    }
}
