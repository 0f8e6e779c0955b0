package dev.irdmaemu.model.roce.rc;

/**
 * One RQ completion as the RC responder reports it (irdma's RQ CQE: byte count, immediate, invalidated STag,
 * solicited event; verbs.c irdma_process_cqe), refilled for every call of {@link RcCompletions#receiveCompleted}.
 */
public final class ReceiveCompletion {
    long workRequestId;
    RcStatus status;
    long byteLength;
    boolean hasImmediate;
    int immediate;
    boolean rdmaWrite;
    boolean hasInvalidated;
    int invalidatedKey;
    boolean solicited;

    void reset(long wrId, RcStatus s) {
        workRequestId = wrId;
        status = s;
        byteLength = 0;
        hasImmediate = false;
        immediate = 0;
        rdmaWrite = false;
        hasInvalidated = false;
        invalidatedKey = 0;
        solicited = false;
    }

    public long workRequestId() {
        return workRequestId;
    }

    public RcStatus status() {
        return status;
    }

    public long byteLength() {
        return byteLength;
    }

    public boolean hasImmediate() {
        return hasImmediate;
    }

    public int immediate() {
        return immediate;
    }

    /** True for an RDMA WRITE with immediate (IB_WC_RECV_RDMA_WITH_IMM), false for a SEND. */
    public boolean rdmaWrite() {
        return rdmaWrite;
    }

    public boolean hasInvalidated() {
        return hasInvalidated;
    }

    public int invalidatedKey() {
        return invalidatedKey;
    }

    public boolean solicited() {
        return solicited;
    }
}
