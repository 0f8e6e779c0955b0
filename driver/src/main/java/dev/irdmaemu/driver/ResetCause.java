package dev.irdmaemu.driver;

/**
 * Why the driver asked its function's owner for a reset: the three places irdma 7.3 sets rf->reset and calls
 * rf->gen_ops.request_reset. {@code op}, {@code major} and {@code minor} name the CQP op and its completion's codes
 * for the CQP causes; an AEQ overflow has none ("AEQ", 0, 0).
 */
public record ResetCause(Reason reason, String op, int major, int minor) {
    /** Where irdma asks for the reset. */
    public enum Reason {
        /**
         * utils.c irdma_wait_event: {@link IrdmaDriver#CQP_TIMEOUT_THRESHOLD} steps without CQP progress
         * (-ETIMEDOUT); asked for only while rf->reset is clear.
         */
        CQP_TIMEOUT,
        /**
         * utils.c irdma_wait_event: a waited op completed with major 0xffff, minor 0x8029 (the op fails with -EIO);
         * asked for only while rf->reset is clear. The kernel gives the pair no other meaning.
         */
        CQP_FATAL_ERROR,
        /**
         * hw.c irdma_process_aeq: an AEQE with IRDMA_AEQE_OVERFLOW (bit 33 of its second quadword). irdma logs "AEQ
         * has overflowed", sets rf->reset and asks without testing it first, then stops processing the AEQ.
         */
        AEQ_OVERFLOW
    }

    /** The cause a CQP failure gives. */
    static ResetCause of(Reason reason, CqpException e) {
        return new ResetCause(reason, e.op(), e.major(), e.minor());
    }

    /** An overflowed AEQ. */
    static ResetCause aeqOverflow() {
        return new ResetCause(Reason.AEQ_OVERFLOW, "AEQ", 0, 0);
    }
}
