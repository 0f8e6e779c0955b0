package dev.irdmaemu.model.iwarp;

/**
 * The simulated time one service event of a QP's transmit engine keeps the engine busy: each step that does work
 * (an SQ WQE fetched, an FPDU built and handed to TCP) charges its cost from the {@code LatencyTable} here, and the
 * service sums them into the moment it may run again (siw_qp_tx.c works its SQ in one go per wake-up; the model
 * charges simulated time for it instead). One per QP, owned by its {@link TransmitService} and reset at each
 * service event: the per-FPDU path adds to a field instead of returning a cost or allocating one.
 */
final class ServiceCost {
    private long nanos;

    /** Adds the cost of work just done. */
    void charge(long cost) {
        nanos += cost;
    }

    /** What the work since the last {@link #reset()} cost, in nanoseconds. */
    long nanos() {
        return nanos;
    }

    void reset() {
        nanos = 0;
    }
}
