package dev.irdmaemu.model.roce.rc;

/**
 * One SQ work request handed to the requester (what the integration read from an irdma SQ WQE, uk.c
 * irdma_uk_rdma_write / irdma_uk_send / irdma_uk_rdma_read): opcode, id, flags, immediate, the R_Key to invalidate,
 * the remote buffer, and the local buffers. A reusable holder: {@link RcEngine#post} copies it.
 */
public final class SendRequest {
    private final ScatterGatherList buffers = new ScatterGatherList();
    SendOpcode opcode = SendOpcode.SEND;
    long workRequestId;
    boolean signaled;
    boolean solicited;
    int immediate;
    int invalidateKey;
    long remoteAddress;
    int remoteKey;

    /** Starts a new request: clears the buffers and every field; answers the buffers to fill. */
    public ScatterGatherList reset(SendOpcode op, long wrId, boolean signaledCompletion) {
        opcode = op;
        workRequestId = wrId;
        signaled = signaledCompletion;
        solicited = false;
        immediate = 0;
        invalidateKey = 0;
        remoteAddress = 0;
        remoteKey = 0;
        return buffers.clear();
    }

    /** The remote buffer of an RDMA WRITE or READ. */
    public SendRequest remote(long address, int rkey) {
        remoteAddress = address;
        remoteKey = rkey;
        return this;
    }

    public SendRequest immediate(int value) {
        immediate = value;
        return this;
    }

    /** The R_Key a SEND WITH INVALIDATE asks the responder to invalidate. */
    public SendRequest invalidate(int rkey) {
        invalidateKey = rkey;
        return this;
    }

    /** The solicited-event bit on the message's last packet. */
    public SendRequest solicited(boolean se) {
        solicited = se;
        return this;
    }

    public ScatterGatherList buffers() {
        return buffers;
    }
}
