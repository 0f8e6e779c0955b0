package dev.irdmaemu.model.qp;

/**
 * Which of a QP's work queues the CQP's Flush WQEs op already ended (ctrl.c irdma_sc_qp_flush_wqes): a second flush
 * of the same queue finds nothing, as the driver itself skips a reflush (its qp->flush_sq / flush_rq). Cleared when
 * the QP id is created again.
 */
public final class FlushedQueues {
    private boolean sq;
    private boolean rq;

    FlushedQueues() {
    }

    /** Flush WQEs ended the queue(s) asked for. */
    public void mark(boolean sqFlushed, boolean rqFlushed) {
        sq |= sqFlushed;
        rq |= rqFlushed;
    }

    void clear() {
        sq = false;
        rq = false;
    }

    public boolean sq() {
        return sq;
    }

    public boolean rq() {
        return rq;
    }
}
