package dev.irdmaemu.fw.cqp;

/**
 * The error codes the model answers with, in the CCQ completion (major / minor, {@link CqpCompletion}) and in
 * PFPE_CQPERRCODES ({@code Gen2Registers.cqpErrCodes}). Values from defs.h (IRDMA_CQPSQ_MAJ_*, IRDMA_CQPSQ_MIN_*),
 * main.h (IRDMA_CQP_COMPL_*) and the major/minor pairs utils.c tests (irdma_cqp_crit_err / irdma_noncrit_err_list,
 * irdma_wait_event: 0xffff/0x8002 maps to -EBUSY, 0xffff/0x8029 makes the driver request a reset).
 * The pairs in {@link Pair} are the ones the driver gives a meaning to. Any non-zero major with IRDMA_CQ_ERROR
 * set fails the op in the driver (utils.c irdma_wait_event answers -EIO); minors the kernel does not name are the
 * device model's choice and carry no meaning for the driver beyond its log line.
 */
public final class CqpErrorCode {
    private CqpErrorCode() {
    }

    public static final int MAJ_NO_ERROR = 0x0000;
    public static final int MAJ_OBJCACHE_ERROR = 0xf000;
    public static final int MAJ_CNTXTCACHE_ERROR = 0xf001;
    public static final int MAJ_ERROR = 0xffff;

    public static final int MIN_STAG_INVALID = 0x0001;
    public static final int MIN_SUSPEND_PND = 0x0005;
    public static final int MIN_DEF_CMPL = 0x0006;
    public static final int MIN_OOO_CMPL = 0x0007;

    /** main.h: minors of a successful Flush WQEs. */
    public static final int COMPL_RQ_WQE_FLUSHED = 2;
    public static final int COMPL_SQ_WQE_FLUSHED = 3;

    /** Major/minor pairs with a meaning in utils.c. */
    public enum Pair {
        INVALID_STATE(0xffff, 0x8002, "Invalid State"),
        FLUSH_NO_WQE_PENDING(0xffff, 0x8006, "Flush No Wqe Pending"),
        MODIFY_QP_BAD_CLOSE(0xffff, 0x8007, "Modify QP Bad Close"),
        LLP_CLOSED(0xffff, 0x8009, "LLP Closed"),
        RESET_NOT_SENT(0xffff, 0x800a, "Reset Not Sent"),
        /** utils.c irdma_wait_event: the driver asks for a function reset on this one. */
        FATAL_RESET(0xffff, 0x8029, "fatal: driver requests reset");

        private final int major;
        private final int minor;
        private final String text;

        Pair(int major, int minor, String text) {
            this.major = major;
            this.minor = minor;
            this.text = text;
        }

        public int major() {
            return major;
        }

        public int minor() {
            return minor;
        }

        public String describe() {
            return text;
        }

        /** True for the pairs in irdma_noncrit_err_list (the driver logs them at debug level only). */
        public boolean nonCritical() {
            return this != FATAL_RESET;
        }
    }
}
