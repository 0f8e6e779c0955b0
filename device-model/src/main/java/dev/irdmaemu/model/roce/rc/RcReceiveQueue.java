package dev.irdmaemu.model.roce.rc;

/**
 * The QP's receive queue as the responder takes from it: the integration reads the RQ WQEs irdma posts (uk.c
 * irdma_uk_post_receive layout) and the responder looks at the head one when a SEND (or a WRITE with immediate)
 * starts, and consumes it when that message completes (IBA §9.7.5.2.x: one RQ WQE per message).
 */
public interface RcReceiveQueue {
    /** Fills {@code into} with the head WQE; false when the RQ is empty (the responder answers RNR NAK). */
    boolean peek(ReceiveWqe into);

    /** Retires the head WQE peeked last. */
    void consume();
}
