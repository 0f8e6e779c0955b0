package dev.irdmaemu.model.roce.rc;

/**
 * Where completed work requests go: the integration writes the CQEs irdma reads (verbs.c irdma_process_cqe) for
 * signaled work and errors. The completion objects are the engine's, refilled for each call: a sink copies what it
 * keeps.
 */
public interface RcCompletions {
    /** An SQ work request completed, successfully or not, in posting order. */
    void sendCompleted(SendCompletion completion);

    /** An RQ WQE completed: a SEND's data or a WRITE with immediate arrived, or the message failed. */
    void receiveCompleted(ReceiveCompletion completion);
}
