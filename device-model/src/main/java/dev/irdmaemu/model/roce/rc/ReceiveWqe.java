package dev.irdmaemu.model.roce.rc;

/**
 * One RQ WQE as the responder uses it: the work request id irdma echoes in the CQE and the buffers a SEND is
 * placed into (uk.c irdma_uk_post_receive). Filled by {@link RcReceiveQueue#peek}; reused.
 */
public final class ReceiveWqe {
    private final ScatterGatherList buffers = new ScatterGatherList();
    private long workRequestId;

    /** Clears the buffers and sets the id; add the fragments to {@link #buffers()}. */
    public ScatterGatherList reset(long wrId) {
        workRequestId = wrId;
        return buffers.clear();
    }

    public long workRequestId() {
        return workRequestId;
    }

    public ScatterGatherList buffers() {
        return buffers;
    }
}
