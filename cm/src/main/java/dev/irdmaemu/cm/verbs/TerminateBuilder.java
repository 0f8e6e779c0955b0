package dev.irdmaemu.cm.verbs;

import dev.irdmaemu.fw.qp.Q2Buffer;
import dev.irdmaemu.fw.queue.AeCode;

/**
 * The Terminate message's header as ctrl.c irdma_bld_terminate_hdr builds it in the QP's Q2 buffer for an error AE:
 * the layer, error type and error code the AE maps to (RFC 5040 §7.2 / RFC 5041 §7.2 / RFC 5044 §8 codes, as
 * type.h names them), the hdrct flags and the offending FPDU's headers copied behind it when the device wrote that
 * FPDU into Q2 (irdma_bld_termhdr_ddp_rdma); and the flush code and QP event type the driver will report. Reused:
 * the results are valid until the next {@link #build}. No allocation.
 */
public final class TerminateBuilder {
    /** type.h enum irdma_term_layers. */
    public static final int LAYER_RDMA = 0;
    public static final int LAYER_DDP = 1;
    public static final int LAYER_MPA = 2;
    /** type.h enum irdma_term_error_types. */
    public static final int RDMAP_REMOTE_PROT = 1;
    public static final int RDMAP_REMOTE_OP = 2;
    public static final int DDP_CATASTROPHIC = 0;
    public static final int DDP_TAGGED_BUF = 1;
    public static final int DDP_UNTAGGED_BUF = 2;
    public static final int DDP_LLP = 3;
    /** type.h enum irdma_term_rdma_errors. */
    public static final int RDMAP_INV_STAG = 0x00;
    public static final int RDMAP_INV_BOUNDS = 0x01;
    public static final int RDMAP_ACCESS = 0x02;
    public static final int RDMAP_UNASSOC_STAG = 0x03;
    public static final int RDMAP_TO_WRAP = 0x04;
    public static final int RDMAP_INV_RDMAP_VER = 0x05;
    public static final int RDMAP_CANT_INV_STAG = 0x09;
    public static final int RDMAP_UNSPECIFIED = 0xff;
    /** type.h enum irdma_term_ddp_errors. */
    public static final int DDP_CATASTROPHIC_LOCAL = 0x00;
    public static final int DDP_TAGGED_INV_STAG = 0x00;
    public static final int DDP_TAGGED_BOUNDS = 0x01;
    public static final int DDP_TAGGED_UNASSOC_STAG = 0x02;
    public static final int DDP_TAGGED_INV_DDP_VER = 0x04;
    public static final int DDP_UNTAGGED_INV_QN = 0x01;
    public static final int DDP_UNTAGGED_INV_MSN_NO_BUF = 0x02;
    public static final int DDP_UNTAGGED_INV_MSN_RANGE = 0x03;
    public static final int DDP_UNTAGGED_INV_MO = 0x04;
    public static final int DDP_UNTAGGED_INV_TOO_LONG = 0x05;
    public static final int DDP_UNTAGGED_INV_DDP_VER = 0x06;
    /** type.h enum irdma_term_mpa_errors. */
    public static final int MPA_CRC = 0x02;
    /** RDMAP opcodes irdma_iwarp_opcode compares with (user.h IRDMA_OP_TYPE_*, equal to RFC 5040's). */
    static final int OP_RDMA_WRITE = 0x00;
    static final int OP_SEND_INV = 0x04;
    static final int OP_SEND_SOL_INV = 0x06;
    static final int RDMA_READ_REQ_OPCODE = 1;

    private int layerEtype;
    private int errorCode;
    private int hdrct;
    private int copied;
    private int termLength;
    private int flushCode;
    private int eventType;

    /**
     * Builds the header into {@code q2} (wrapped on the QP's Q2 buffer) for AE {@code aeCode}; {@code q2DataWritten}
     * is the AEQE's IRDMA_AEQE_Q2DATA. Answers the term length (header plus copied bytes) for Modify QP.
     */
    public int build(Q2Buffer q2, int aeCode, boolean q2DataWritten) {
        int mpa = -1;
        boolean tagged = false;
        int copyLength = 0;
        int flags = 0;
        if (q2DataWritten) {
            mpa = q2.locateMpa();
        }
        if (mpa >= 0) {
            // irdma_bld_termhdr_ddp_rdma: the ULPDU length, then the DDP header and the RDMAP header when present
            int ddpSegLen = q2.u16(mpa);
            if (ddpSegLen != 0) {
                copyLength = 2;
                flags = Q2Buffer.DDP_LEN_FLAG;
                if ((q2.u8(mpa + 2) & 0x80) != 0) {
                    tagged = true;
                    if (ddpSegLen >= Q2Buffer.TERM_DDP_LEN_TAGGED) {
                        copyLength += Q2Buffer.TERM_DDP_LEN_TAGGED;
                        flags |= Q2Buffer.DDP_HDR_FLAG;
                    }
                } else {
                    if (ddpSegLen >= Q2Buffer.TERM_DDP_LEN_UNTAGGED) {
                        copyLength += Q2Buffer.TERM_DDP_LEN_UNTAGGED;
                        flags |= Q2Buffer.DDP_HDR_FLAG;
                    }
                    if (ddpSegLen >= Q2Buffer.TERM_DDP_LEN_UNTAGGED + Q2Buffer.TERM_RDMA_LEN
                            && (q2.u8(mpa + 3) & 0x0f) == RDMA_READ_REQ_OPCODE) {
                        copyLength += Q2Buffer.TERM_RDMA_LEN;
                        flags |= Q2Buffer.RDMA_HDR_FLAG;
                    }
                }
            }
        }
        // irdma_iwarp_opcode: the RDMAP opcode of the offending FPDU, none without Q2 data
        int opcode = q2DataWritten && mpa >= 0 ? q2.u16(mpa + 2) & 0x0f : -1;
        eventType = FlushCode.EVENT_CATASTROPHIC;
        AeCode ae = AeCode.of(aeCode);
        if (ae == null) {
            set(FlushCode.FATAL_ERR, LAYER_RDMA, RDMAP_REMOTE_OP, RDMAP_UNSPECIFIED);
        } else {
            switch (ae) {
                case AMP_UNALLOCATED_STAG -> {
                    eventType = FlushCode.EVENT_ACCESS_ERR;
                    if (opcode == OP_RDMA_WRITE) {
                        set(FlushCode.PROT_ERR, LAYER_DDP, DDP_TAGGED_BUF, DDP_TAGGED_INV_STAG);
                    } else {
                        set(FlushCode.REM_ACCESS_ERR, LAYER_RDMA, RDMAP_REMOTE_PROT, RDMAP_INV_STAG);
                    }
                }
                case AMP_BOUNDS_VIOLATION -> {
                    eventType = FlushCode.EVENT_ACCESS_ERR;
                    if (q2DataWritten) {
                        set(FlushCode.PROT_ERR, LAYER_DDP, DDP_TAGGED_BUF, DDP_TAGGED_BOUNDS);
                    } else {
                        set(FlushCode.REM_ACCESS_ERR, LAYER_RDMA, RDMAP_REMOTE_PROT, RDMAP_INV_BOUNDS);
                    }
                }
                case AMP_BAD_PD -> {
                    if (opcode == OP_RDMA_WRITE) {
                        set(FlushCode.PROT_ERR, LAYER_DDP, DDP_TAGGED_BUF, DDP_TAGGED_UNASSOC_STAG);
                    } else if (opcode == OP_SEND_INV || opcode == OP_SEND_SOL_INV) {
                        set(FlushCode.REM_ACCESS_ERR, LAYER_RDMA, RDMAP_REMOTE_PROT, RDMAP_CANT_INV_STAG);
                    } else {
                        set(FlushCode.REM_ACCESS_ERR, LAYER_RDMA, RDMAP_REMOTE_PROT, RDMAP_UNASSOC_STAG);
                    }
                }
                case AMP_INVALID_STAG -> {
                    eventType = FlushCode.EVENT_ACCESS_ERR;
                    set(FlushCode.REM_ACCESS_ERR, LAYER_RDMA, RDMAP_REMOTE_PROT, RDMAP_INV_STAG);
                }
                case AMP_BAD_QP -> set(FlushCode.LOC_QP_OP_ERR, LAYER_DDP, DDP_UNTAGGED_BUF, DDP_UNTAGGED_INV_QN);
                case AMP_BAD_STAG_KEY, AMP_BAD_STAG_INDEX -> {
                    eventType = FlushCode.EVENT_ACCESS_ERR;
                    if (opcode == OP_SEND_INV || opcode == OP_SEND_SOL_INV) {
                        set(FlushCode.REM_OP_ERR, LAYER_RDMA, RDMAP_REMOTE_OP, RDMAP_CANT_INV_STAG);
                    } else {
                        set(FlushCode.REM_ACCESS_ERR, LAYER_RDMA, RDMAP_REMOTE_OP, RDMAP_INV_STAG);
                    }
                }
                case AMP_RIGHTS_VIOLATION, AMP_INVALIDATE_NO_REMOTE_ACCESS_RIGHTS, PRIV_OPERATION_DENIED -> {
                    eventType = FlushCode.EVENT_ACCESS_ERR;
                    set(FlushCode.REM_ACCESS_ERR, LAYER_RDMA, RDMAP_REMOTE_PROT, RDMAP_ACCESS);
                }
                case AMP_TO_WRAP -> {
                    eventType = FlushCode.EVENT_ACCESS_ERR;
                    set(FlushCode.REM_ACCESS_ERR, LAYER_RDMA, RDMAP_REMOTE_PROT, RDMAP_TO_WRAP);
                }
                case LLP_RECEIVED_MPA_CRC_ERROR -> set(FlushCode.GENERAL_ERR, LAYER_MPA, DDP_LLP, MPA_CRC);
                case LLP_SEGMENT_TOO_SMALL -> set(FlushCode.LOC_LEN_ERR, LAYER_DDP, DDP_CATASTROPHIC,
                        DDP_CATASTROPHIC_LOCAL);
                case LCE_QP_CATASTROPHIC, DDP_NO_L_BIT -> set(FlushCode.FATAL_ERR, LAYER_DDP, DDP_CATASTROPHIC,
                        DDP_CATASTROPHIC_LOCAL);
                case DDP_INVALID_MSN_GAP_IN_MSN -> set(FlushCode.GENERAL_ERR, LAYER_DDP, DDP_UNTAGGED_BUF,
                        DDP_UNTAGGED_INV_MSN_RANGE);
                case DDP_UBE_DDP_MESSAGE_TOO_LONG_FOR_AVAILABLE_BUFFER -> {
                    eventType = FlushCode.EVENT_ACCESS_ERR;
                    set(FlushCode.LOC_LEN_ERR, LAYER_DDP, DDP_UNTAGGED_BUF, DDP_UNTAGGED_INV_TOO_LONG);
                }
                case DDP_UBE_INVALID_DDP_VERSION -> {
                    if (tagged) {
                        set(FlushCode.GENERAL_ERR, LAYER_DDP, DDP_TAGGED_BUF, DDP_TAGGED_INV_DDP_VER);
                    } else {
                        set(FlushCode.GENERAL_ERR, LAYER_DDP, DDP_UNTAGGED_BUF, DDP_UNTAGGED_INV_DDP_VER);
                    }
                }
                case DDP_UBE_INVALID_MO -> set(FlushCode.GENERAL_ERR, LAYER_DDP, DDP_UNTAGGED_BUF,
                        DDP_UNTAGGED_INV_MO);
                case DDP_UBE_INVALID_MSN_NO_BUFFER_AVAILABLE -> set(FlushCode.REM_OP_ERR, LAYER_DDP,
                        DDP_UNTAGGED_BUF, DDP_UNTAGGED_INV_MSN_NO_BUF);
                case DDP_UBE_INVALID_QN -> set(FlushCode.GENERAL_ERR, LAYER_DDP, DDP_UNTAGGED_BUF,
                        DDP_UNTAGGED_INV_QN);
                case RDMAP_ROE_INVALID_RDMAP_VERSION -> set(FlushCode.GENERAL_ERR, LAYER_RDMA, RDMAP_REMOTE_OP,
                        RDMAP_INV_RDMAP_VER);
                default -> set(FlushCode.FATAL_ERR, LAYER_RDMA, RDMAP_REMOTE_OP, RDMAP_UNSPECIFIED);
            }
        }
        hdrct = flags;
        q2.writeTerminateHeader(layerEtype, errorCode, hdrct);
        copied = copyLength > 0 ? q2.copyOffendingHeaders(mpa, copyLength) : 0;
        termLength = Q2Buffer.TERMINATE_HEADER_SIZE + copyLength;
        return termLength;
    }

    private void set(int flush, int layer, int type, int code) {
        flushCode = flush;
        layerEtype = layer << 4 | type;
        errorCode = code;
    }

    public int layerEtype() {
        return layerEtype;
    }

    public int errorCode() {
        return errorCode;
    }

    public int hdrct() {
        return hdrct;
    }

    /** Bytes of the offending FPDU copied behind the header. */
    public int copied() {
        return copied;
    }

    public int termLength() {
        return termLength;
    }

    /** The QP's flush_code afterwards (user.h enum irdma_flush_opcode). */
    public int flushCode() {
        return flushCode;
    }

    /** The QP's event_type afterwards (user.h enum irdma_qp_event_type). */
    public int eventType() {
        return eventType;
    }
}
