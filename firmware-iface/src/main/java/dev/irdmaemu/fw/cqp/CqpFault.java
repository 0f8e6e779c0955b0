package dev.irdmaemu.fw.cqp;

/**
 * The one table of CQP major/minor error pairs, as written to the CCQ completion and to PFPE_CQPERRCODES. Where the
 * kernel names a pair (utils.c irdma_noncrit_err_list and irdma_wait_event: 0xffff/0x8002 "Invalid State", ...) the
 * table holds it with that meaning ({@link #nonCritical()} for the driver's non-critical list); for every other
 * refusal the device model answers the generic major IRDMA_CQPSQ_MAJ_ERROR (0xffff, defs.h) with its own minors
 * from 0x9001, which irdma reports as -EIO and logs with the codes (ctrl.c irdma_sc_poll_for_cqp_op_done).
 */
public enum CqpFault {
    NONE(CqpErrorCode.MAJ_NO_ERROR, 0, "completed"),
    UNKNOWN_OPCODE(CqpErrorCode.MAJ_ERROR, 0x9001, "opcode is no IRDMA_CQP_OP_* value"),
    UNSUPPORTED_OPCODE(CqpErrorCode.MAJ_ERROR, 0x9002, "op not supported by the model"),
    INVALID_FIELD(CqpErrorCode.MAJ_ERROR, 0x9003, "a WQE field is invalid"),
    DMA_FAULT(CqpErrorCode.MAJ_ERROR, 0x9004, "an address is outside mapped host memory"),
    INDEX_OUT_OF_RANGE(CqpErrorCode.MAJ_ERROR, 0x9005, "object index beyond the committed count or table"),
    OBJECT_IN_USE(CqpErrorCode.MAJ_ERROR, 0x9006, "the object already exists"),
    NO_SUCH_OBJECT(CqpErrorCode.MAJ_ERROR, 0x9007, "the object does not exist"),
    HMC_NOT_READY(CqpErrorCode.MAJ_ERROR, 0x9008, "the HMC object does not resolve (FPM not committed, SD/PD invalid)"),
    WQE_NOT_VALID(CqpErrorCode.MAJ_ERROR, 0x9009, "the WQE's valid bit is not the ring's current polarity"),
    TABLE_FULL(CqpErrorCode.MAJ_ERROR, 0x900a, "the device table is full"),
    BAD_DOORBELL(CqpErrorCode.MAJ_ERROR, 0x900b, "CQP doorbell beyond the SQ size"),
    UNSUPPORTED_FIELD(CqpErrorCode.MAJ_ERROR, 0x900c, "a WQE option the model does not support (e.g. a PBL-mapped CEQ)"),
    BAD_HOST_CONTEXT(CqpErrorCode.MAJ_ERROR, 0x900d, "the CQP host context is invalid"),
    /** utils.c irdma_noncrit_err_list "Invalid State" (irdma_wait_event answers it with -EBUSY). */
    INVALID_STATE(CqpErrorCode.MAJ_ERROR, 0x8002, "QP state transition not allowed"),
    /** utils.c irdma_noncrit_err_list: Flush WQEs found nothing to flush on the queues it was asked for. */
    FLUSH_NO_WQE_PENDING(CqpErrorCode.MAJ_ERROR, 0x8006, "no WQE pending to flush"),
    /** utils.c irdma_noncrit_err_list "Modify QP Bad Close". */
    MODIFY_QP_BAD_CLOSE(CqpErrorCode.MAJ_ERROR, 0x8007, "Modify QP Bad Close"),
    /** utils.c irdma_noncrit_err_list "LLP Closed". */
    LLP_CLOSED(CqpErrorCode.MAJ_ERROR, 0x8009, "LLP Closed"),
    /** utils.c irdma_noncrit_err_list "Reset Not Sent". */
    RESET_NOT_SENT(CqpErrorCode.MAJ_ERROR, 0x800a, "Reset Not Sent"),
    /**
     * 0xffff/0x8029: the pair for which irdma requests a function reset when a waited op completes with it (utils.c
     * irdma_wait_event); the kernel gives it no other meaning (neither defs.h, type.h nor ctrl.c name it), so no
     * condition of the model answers it. Only a host's fault injection does (the model's CqpEngine.failNextOp).
     */
    FATAL_RESET(CqpErrorCode.MAJ_ERROR, 0x8029, "fatal: the driver requests a reset");

    private final int major;
    private final int minor;
    private final String text;

    CqpFault(int major, int minor, String text) {
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

    public boolean isError() {
        return this != NONE;
    }

    /** The pairs in utils.c irdma_noncrit_err_list: the driver logs them at debug level only. */
    public boolean nonCritical() {
        return this == INVALID_STATE || this == FLUSH_NO_WQE_PENDING || this == MODIFY_QP_BAD_CLOSE
                || this == LLP_CLOSED || this == RESET_NOT_SENT;
    }

    /** Whether a completion's major and minor are this pair. */
    public boolean is(int major, int minor) {
        return this.major == major && this.minor == minor;
    }

    public String describe() {
        return text;
    }

    /** The PFPE_CQPERRCODES image: major in 31:16, minor in 15:0. */
    public int errCodes() {
        return major << 16 | minor;
    }
}
