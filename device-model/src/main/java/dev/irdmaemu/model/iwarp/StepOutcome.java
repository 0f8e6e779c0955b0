package dev.irdmaemu.model.iwarp;

/**
 * What one step of a QP's transmit work came to: the SQ's next WQE or FPDU, or the responder's next Read Response
 * FPDU. Only {@link #MOVED} did work (and charged its cost to the service event's {@link ServiceCost}); the others
 * say why the queue cannot move now, as siw_qp_tx.c siw_qp_sq_process stops on an empty SQ, a fence, a full ORQ or
 * a socket without room, and on an error. A shared constant per outcome, so a step allocates nothing.
 */
enum StepOutcome {
    /** A unit of work was done and its cost charged. */
    MOVED,
    /** Nothing to do: no WQE posted at the device's index, or no Read Request queued. */
    IDLE,
    /**
     * Work is there but waits: for TCP's send space, a fence, the ORD limit, or the peer's first FPDU after the
     * LSMM. Whatever it waits for wakes the service again.
     */
    WAITING,
    /** The queue does not run: the QP stopped (an error, which this step may have raised, or it left RTS). */
    STOPPED
}
