package dev.irdmaemu.fw.cqp;

/**
 * The error codes the model answers with, in the CCQ completion (major / minor, {@link CqpCompletion}) and in
 * PFPE_CQPERRCODES ({@code Gen2Registers.cqpErrCodes}). Values from defs.h (IRDMA_CQPSQ_MAJ_*, IRDMA_CQPSQ_MIN_*),
 * main.h (IRDMA_CQP_COMPL_*) and the major/minor pairs utils.c tests (irdma_cqp_crit_err / irdma_noncrit_err_list,
 * irdma_wait_event: 0xffff/0x8002 maps to -EBUSY, 0xffff/0x8029 makes the driver request a reset).
 * The pairs the driver gives a meaning to, and the model's own, are in {@link CqpFault}. Any non-zero major with IRDMA_CQ_ERROR
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
}
