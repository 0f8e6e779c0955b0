package dev.irdmaemu.driver;

/** A CQP op the device refused or never answered within the driver's simulated-time limit. */
public final class CqpException extends RuntimeException {
    /** What went wrong, in the driver's terms. */
    public enum Kind {
        /**
         * The completion carried the error bit (major/minor from the CCQ CQE or PFPE_CQPERRCODES): irdma's -EIO. A
         * waited op answered with major 0xffff, minor 0x8029 is one too, and it also makes the driver request a reset
         * (utils.c irdma_wait_event; {@link ResetCause.Reason#CQP_FATAL_ERROR}).
         */
        OP_ERROR,
        /**
         * A waited op's completion carried major 0xffff, minor 0x8002 ("Invalid State" in utils.c
         * irdma_noncrit_err_list): irdma_wait_event answers -EBUSY for it instead of -EIO.
         */
        BUSY,
        /**
         * No completion arrived: with the CCQ, {@link IrdmaDriver#CQP_TIMEOUT_THRESHOLD} steps of
         * {@link IrdmaDriver#CQP_COMPL_WAIT_NANOS} without CQP progress (utils.c irdma_wait_event's -ETIMEDOUT, after
         * which the driver requests a reset); before it, the register poll's bound (irdma_cqp_poll_registers).
         */
        TIMEOUT,
        /**
         * Refused without being posted: the driver has requested a reset ({@link ResetCause}: a CQP timeout, a
         * waited op's 0xffff/0x8029 completion, an overflowed AEQ); utils.c irdma_handle_cqp_op answers -EBUSY while
         * rf->reset is set.
         */
        RESET_REQUESTED,
        /** PFPE_CCQPSTATUS reported an error or never went done (irdma_sc_cqp_create). */
        CQP_CREATE_FAILED,
        /** GLPE_CPUSTATUS never reached 0x80 (irdma_wait_pe_ready). */
        PE_NOT_READY,
        /** Query RDMA features answered fewer than two entries (irdma_get_rdma_features' -EINVAL). */
        BAD_FEATURES,
        /**
         * Query FPM values answered what irdma_cfg_fpm_val refuses (a free list without its block size, objects that
         * do not fit max_pe_sds), or Commit FPM placed the objects beyond the SDs the query offered.
         */
        BAD_FPM
    }

    private final Kind kind;
    private final String op;
    private final int major;
    private final int minor;

    public CqpException(Kind kind, String op, int major, int minor) {
        super(kind + " in " + op + " (major 0x" + Integer.toHexString(major) + ", minor 0x"
                + Integer.toHexString(minor) + ")");
        this.kind = kind;
        this.op = op;
        this.major = major;
        this.minor = minor;
    }

    public Kind kind() {
        return kind;
    }

    /** The device answered the op with an error completion ({@link Kind#OP_ERROR} or {@link Kind#BUSY}). */
    public boolean errorCompletion() {
        return kind == Kind.OP_ERROR || kind == Kind.BUSY;
    }

    public String op() {
        return op;
    }

    public int major() {
        return major;
    }

    public int minor() {
        return minor;
    }
}
