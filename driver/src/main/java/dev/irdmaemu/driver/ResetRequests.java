package dev.irdmaemu.driver;

/**
 * rf->reset and rf->gen_ops.request_reset (main.h; icrdma_if.c icrdma_request_reset): whether the driver asked the
 * function's owner for a reset, how often, why the first time, and whom it asks. utils.c irdma_handle_cqp_op refuses
 * every op once rf->reset is set ({@link #refuseAfterReset}). Callers reach it as {@link IrdmaDriver#resets()}; where
 * the requests go is {@link IrdmaDriver#onResetRequest}.
 */
public final class ResetRequests {
    private IrdmaDriver.ResetRequest hook = cause -> { };
    private boolean requested;
    private long requests;
    private ResetCause cause;

    void hook(IrdmaDriver.ResetRequest h) {
        this.hook = h == null ? c -> { } : h;
    }

    /** rf->reset: the driver requested a reset; every op is refused from then on. */
    public boolean requested() {
        return requested;
    }

    /**
     * Reset requests made: 0 or 1 from the CQP (a timeout, a 0xffff/0x8029 completion), plus one per overflowed AEQE
     * the driver read.
     */
    public long requests() {
        return requests;
    }

    /** The first reset request's cause, or null while none was made. */
    public ResetCause cause() {
        return cause;
    }

    /**
     * rf->reset = true and request_reset: the hook is told unless {@code once} and a reset was already requested
     * (irdma_wait_event asks only while rf->reset is clear; irdma_process_aeq asks without testing it).
     */
    void request(ResetCause why, boolean once) {
        if (once && requested) {
            return;
        }
        requested = true;
        requests++;
        if (cause == null) {
            cause = why;
        }
        hook.requestReset(why);
    }

    /** utils.c irdma_handle_cqp_op: with rf->reset set, -EBUSY before anything is posted. */
    void refuseAfterReset(String name) {
        if (requested) {
            throw new CqpException(CqpException.Kind.RESET_REQUESTED, name, 0, 0);
        }
    }
}
