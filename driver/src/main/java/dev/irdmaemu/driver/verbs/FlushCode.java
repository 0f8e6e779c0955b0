package dev.irdmaemu.driver.verbs;

import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.Cqe;

/**
 * The flush codes of irdma (user.h enum irdma_flush_opcode): what a QP's WQEs complete with once the QP is flushed
 * (the minor error of a flushed CQE, whose major is IRDMA_FLUSH_MAJOR_ERR), and their work-completion status
 * (verbs.c irdma_flush_err_to_ib_wc_status).
 */
public final class FlushCode {
    public static final int INVALID = 0;
    public static final int GENERAL_ERR = Cqe.MINOR_FLUSH_GENERAL;
    public static final int PROT_ERR = 2;
    public static final int REM_ACCESS_ERR = 3;
    public static final int LOC_QP_OP_ERR = 4;
    public static final int REM_OP_ERR = 5;
    public static final int LOC_LEN_ERR = 6;
    public static final int FATAL_ERR = 7;
    public static final int RETRY_EXC_ERR = 8;
    public static final int MW_BIND_ERR = 9;
    public static final int REM_INV_REQ_ERR = 10;
    public static final int RNR_RETRY_EXC_ERR = 11;

    /** user.h IRDMA_FLUSH_MAJOR_ERR (the device's value: firmware-iface's Cqe.MAJOR_FLUSH) and _SRQFLUSH_RSVD_. */
    public static final int FLUSH_MAJOR_ERR = Cqe.MAJOR_FLUSH;
    public static final int SRQ_FLUSH_RSVD_MAJOR_ERR = 0xfffe;

    private FlushCode() {
    }

    /** user.h enum irdma_qp_event_type: what the QP's consumer is told (utils.c irdma_ib_qp_event). */
    public static final int EVENT_CATASTROPHIC = 0;
    public static final int EVENT_ACCESS_ERR = 1;
    public static final int EVENT_REQ_ERR = 2;

    /** user.h irdma_ae_to_qp_err_code: the flush code for an AE (the minor of an SRQ-reserved-major CQE). */
    public static int fromAe(int aeCode) {
        AeCode c = AeCode.of(aeCode);
        if (c == null) {
            return GENERAL_ERR;
        }
        return switch (c) {
            case AMP_BOUNDS_VIOLATION, AMP_INVALID_STAG, AMP_RIGHTS_VIOLATION, AMP_UNALLOCATED_STAG, AMP_BAD_PD,
                    AMP_BAD_QP, AMP_BAD_STAG_KEY, AMP_BAD_STAG_INDEX, AMP_TO_WRAP, PRIV_OPERATION_DENIED -> PROT_ERR;
            case UDA_XMIT_BAD_PD, WQE_UNEXPECTED_OPCODE -> LOC_QP_OP_ERR;
            case UDA_XMIT_DGRAM_TOO_SHORT, UDA_XMIT_DGRAM_TOO_LONG, UDA_L4LEN_INVALID, DDP_UBE_INVALID_MO,
                    DDP_UBE_DDP_MESSAGE_TOO_LONG_FOR_AVAILABLE_BUFFER -> LOC_LEN_ERR;
            case AMP_INVALIDATE_NO_REMOTE_ACCESS_RIGHTS, IB_REMOTE_ACCESS_ERROR -> REM_ACCESS_ERR;
            case AMP_MWBIND_INVALID_RIGHTS, AMP_MWBIND_BIND_DISABLED, AMP_MWBIND_INVALID_BOUNDS,
                    AMP_MWBIND_VALID_STAG -> MW_BIND_ERR;
            case LLP_TOO_MANY_RETRIES -> RETRY_EXC_ERR;
            case IB_INVALID_REQUEST -> REM_INV_REQ_ERR;
            case LLP_SEGMENT_TOO_SMALL, LLP_RECEIVED_MPA_CRC_ERROR, ROCE_RSP_LENGTH_ERROR, IB_REMOTE_OP_ERROR ->
                    REM_OP_ERR;
            case LLP_TOO_MANY_RNRS -> RNR_RETRY_EXC_ERR;
            case LCE_QP_CATASTROPHIC, REMOTE_QP_CATASTROPHIC, LOCAL_QP_CATASTROPHIC, RCE_QP_CATASTROPHIC -> FATAL_ERR;
            default -> GENERAL_ERR;
        };
    }

    /** verbs.c irdma_flush_err_to_ib_wc_status. */
    public static WcStatus status(int flushCode) {
        return switch (flushCode) {
            case PROT_ERR -> WcStatus.LOC_PROT_ERR;
            case REM_ACCESS_ERR -> WcStatus.REM_ACCESS_ERR;
            case LOC_QP_OP_ERR -> WcStatus.LOC_QP_OP_ERR;
            case REM_OP_ERR -> WcStatus.REM_OP_ERR;
            case LOC_LEN_ERR -> WcStatus.LOC_LEN_ERR;
            case GENERAL_ERR -> WcStatus.WR_FLUSH_ERR;
            case RETRY_EXC_ERR -> WcStatus.RETRY_EXC_ERR;
            case MW_BIND_ERR -> WcStatus.MW_BIND_ERR;
            case REM_INV_REQ_ERR -> WcStatus.REM_INV_REQ_ERR;
            case RNR_RETRY_EXC_ERR -> WcStatus.RNR_RETRY_EXC_ERR;
            default -> WcStatus.FATAL_ERR;
        };
    }
}
