package dev.irdmaemu.model.roce.rc;

/**
 * One SQ completion as the RC requester reports it (the fields of irdma's SQ CQE: verbs.c irdma_process_cqe), refilled
 * for every call of {@link RcCompletions#sendCompleted}.
 */
public final class SendCompletion {
    long workRequestId;
    SendOpcode opcode;
    RcStatus status;
    long byteLength;
    boolean signaled;

    public long workRequestId() {
        return workRequestId;
    }

    public SendOpcode opcode() {
        return opcode;
    }

    public RcStatus status() {
        return status;
    }

    /** The message length. */
    public long byteLength() {
        return byteLength;
    }

    /** Whether the work request asked for a CQE; errors are reported whatever it asked. */
    public boolean signaled() {
        return signaled;
    }
}
