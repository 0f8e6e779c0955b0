package dev.irdmaemu.driver.verbs;

import static dev.irdmaemu.fw.iwarp.Terminate.LAYER_DDP;
import static dev.irdmaemu.fw.iwarp.Terminate.LAYER_LLP;
import static dev.irdmaemu.fw.iwarp.Terminate.LAYER_RDMAP;

import dev.irdmaemu.fw.iwarp.DdpHeader;
import dev.irdmaemu.fw.iwarp.RdmapOpcode;
import dev.irdmaemu.fw.iwarp.Terminate;
import dev.irdmaemu.fw.iwarp.Terminate.Ddp;
import dev.irdmaemu.fw.iwarp.Terminate.Llp;
import dev.irdmaemu.fw.iwarp.Terminate.Rdmap;
import dev.irdmaemu.fw.qp.Q2Buffer;
import dev.irdmaemu.fw.queue.AeCode;

/**
 * The Terminate message's header as ctrl.c irdma_bld_terminate_hdr builds it in the QP's Q2 buffer for an error AE:
 * the layer, error type and error code the AE maps to (RFC 5040 §7.2 / RFC 5041 §7.2 / RFC 5044 §8 codes, as
 * type.h names them), the hdrct flags and the offending FPDU's headers copied behind it when the device wrote that
 * FPDU into Q2 (irdma_bld_termhdr_ddp_rdma); and the flush code and QP event type the driver will report. The
 * values are {@link Terminate}'s (type.h's enum irdma_term_layers, irdma_term_error_types, irdma_term_rdma_errors,
 * irdma_term_ddp_errors and irdma_term_mpa_errors are the RFCs' numbers; irdma's MPA error type is
 * {@link Ddp#ETYPE_IRDMA_LLP}); the layout is {@link Q2Buffer}'s. Reused: the results are valid until the next
 * {@link #build}. No allocation.
 */
public final class TerminateBuilder {
    private int layer;
    private int errorType;
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
        // irdma_bld_termhdr_ddp_rdma's is_tagged (set only for a non-zero ULPDU length) and irdma_iwarp_opcode (the
        // offending FPDU's RDMAP opcode, none without Q2 data; irdma compares it with user.h IRDMA_OP_TYPE_*
        // values, which are RFC 5040's opcodes for the ones it looks at)
        boolean frame = q2DataWritten && q2.locateMpa() >= 0;
        DdpHeader ddp = q2.frameDdp();
        boolean tagged = frame && q2.frameUlpduLength() != 0 && ddp.tagged();
        int opcode = frame ? ddp.opcode() : -1;
        eventType = FlushCode.EVENT_CATASTROPHIC;
        boolean invalidate = opcode == RdmapOpcode.CODE_SEND_WITH_INVALIDATE
                || opcode == RdmapOpcode.CODE_SEND_WITH_SE_AND_INVALIDATE;
        AeCode ae = AeCode.of(aeCode);
        if (ae == null) {
            rdmap(FlushCode.FATAL_ERR, Rdmap.ETYPE_REMOTE_OPERATION, Rdmap.UNSPECIFIED);
        } else {
            classify(ae, opcode, invalidate, tagged, q2DataWritten);
        }
        termLength = q2.writeTerminate(layer, errorType, errorCode, q2DataWritten);
        hdrct = q2.terminate().hdrct();
        copied = termLength - Terminate.CONTROL_LENGTH;
        return termLength;
    }

    /** irdma_bld_terminate_hdr's switch over the AE: layer, error type and code, flush code, event type. */
    private void classify(AeCode ae, int opcode, boolean invalidate, boolean tagged, boolean q2DataWritten) {
        switch (ae) {
            case AMP_UNALLOCATED_STAG, AMP_BOUNDS_VIOLATION, AMP_BAD_PD, AMP_INVALID_STAG, AMP_BAD_STAG_KEY,
                 AMP_BAD_STAG_INDEX, AMP_RIGHTS_VIOLATION, AMP_INVALIDATE_NO_REMOTE_ACCESS_RIGHTS,
                 PRIV_OPERATION_DENIED, AMP_TO_WRAP -> protectionError(ae, opcode, invalidate, q2DataWritten);
            case AMP_BAD_QP -> ddp(FlushCode.LOC_QP_OP_ERR, Ddp.ETYPE_UNTAGGED_BUFFER, Ddp.UNTAGGED_INVALID_QN);
            case LLP_RECEIVED_MPA_CRC_ERROR -> set(FlushCode.GENERAL_ERR, LAYER_LLP, Ddp.ETYPE_IRDMA_LLP,
                    Llp.CRC_ERROR);
            case LLP_SEGMENT_TOO_SMALL -> ddp(FlushCode.LOC_LEN_ERR, Ddp.ETYPE_LOCAL_CATASTROPHIC,
                    Ddp.CATASTROPHIC_LOCAL);
            case LCE_QP_CATASTROPHIC, DDP_NO_L_BIT -> ddp(FlushCode.FATAL_ERR, Ddp.ETYPE_LOCAL_CATASTROPHIC,
                    Ddp.CATASTROPHIC_LOCAL);
            case DDP_INVALID_MSN_GAP_IN_MSN -> ddp(FlushCode.GENERAL_ERR, Ddp.ETYPE_UNTAGGED_BUFFER,
                    Ddp.UNTAGGED_INVALID_MSN_RANGE);
            case DDP_UBE_DDP_MESSAGE_TOO_LONG_FOR_AVAILABLE_BUFFER -> {
                eventType = FlushCode.EVENT_ACCESS_ERR;
                ddp(FlushCode.LOC_LEN_ERR, Ddp.ETYPE_UNTAGGED_BUFFER, Ddp.UNTAGGED_MESSAGE_TOO_LONG);
            }
            case DDP_UBE_INVALID_DDP_VERSION -> {
                if (tagged) {
                    ddp(FlushCode.GENERAL_ERR, Ddp.ETYPE_TAGGED_BUFFER, Ddp.TAGGED_INVALID_DDP_VERSION);
                } else {
                    ddp(FlushCode.GENERAL_ERR, Ddp.ETYPE_UNTAGGED_BUFFER, Ddp.UNTAGGED_INVALID_DDP_VERSION);
                }
            }
            case DDP_UBE_INVALID_MO -> ddp(FlushCode.GENERAL_ERR, Ddp.ETYPE_UNTAGGED_BUFFER,
                    Ddp.UNTAGGED_INVALID_MO);
            case DDP_UBE_INVALID_MSN_NO_BUFFER_AVAILABLE -> ddp(FlushCode.REM_OP_ERR, Ddp.ETYPE_UNTAGGED_BUFFER,
                    Ddp.UNTAGGED_INVALID_MSN_NO_BUFFER);
            case DDP_UBE_INVALID_QN -> ddp(FlushCode.GENERAL_ERR, Ddp.ETYPE_UNTAGGED_BUFFER,
                    Ddp.UNTAGGED_INVALID_QN);
            case RDMAP_ROE_INVALID_RDMAP_VERSION -> rdmap(FlushCode.GENERAL_ERR, Rdmap.ETYPE_REMOTE_OPERATION,
                    Rdmap.INVALID_RDMAP_VERSION);
            default -> rdmap(FlushCode.FATAL_ERR, Rdmap.ETYPE_REMOTE_OPERATION, Rdmap.UNSPECIFIED);
        }
    }

    /** The STag and protection AEs (IRDMA_AE_AMP_* and PRIV_OPERATION_DENIED): RDMAP or tagged-buffer errors. */
    private void protectionError(AeCode ae, int opcode, boolean invalidate, boolean q2DataWritten) {
        switch (ae) {
            case AMP_UNALLOCATED_STAG -> {
                eventType = FlushCode.EVENT_ACCESS_ERR;
                if (opcode == RdmapOpcode.CODE_RDMA_WRITE) {
                    ddp(FlushCode.PROT_ERR, Ddp.ETYPE_TAGGED_BUFFER, Ddp.TAGGED_INVALID_STAG);
                } else {
                    rdmap(FlushCode.REM_ACCESS_ERR, Rdmap.ETYPE_REMOTE_PROTECTION, Rdmap.INVALID_STAG);
                }
            }
            case AMP_BOUNDS_VIOLATION -> {
                eventType = FlushCode.EVENT_ACCESS_ERR;
                if (q2DataWritten) {
                    ddp(FlushCode.PROT_ERR, Ddp.ETYPE_TAGGED_BUFFER, Ddp.TAGGED_BASE_OR_BOUNDS_VIOLATION);
                } else {
                    rdmap(FlushCode.REM_ACCESS_ERR, Rdmap.ETYPE_REMOTE_PROTECTION,
                            Rdmap.BASE_OR_BOUNDS_VIOLATION);
                }
            }
            case AMP_BAD_PD -> {
                if (opcode == RdmapOpcode.CODE_RDMA_WRITE) {
                    ddp(FlushCode.PROT_ERR, Ddp.ETYPE_TAGGED_BUFFER, Ddp.TAGGED_STAG_NOT_ASSOCIATED);
                } else if (invalidate) {
                    rdmap(FlushCode.REM_ACCESS_ERR, Rdmap.ETYPE_REMOTE_PROTECTION, Rdmap.CANNOT_INVALIDATE);
                } else {
                    rdmap(FlushCode.REM_ACCESS_ERR, Rdmap.ETYPE_REMOTE_PROTECTION, Rdmap.STAG_NOT_ASSOCIATED);
                }
            }
            case AMP_INVALID_STAG -> {
                eventType = FlushCode.EVENT_ACCESS_ERR;
                rdmap(FlushCode.REM_ACCESS_ERR, Rdmap.ETYPE_REMOTE_PROTECTION, Rdmap.INVALID_STAG);
            }
            case AMP_BAD_STAG_KEY, AMP_BAD_STAG_INDEX -> {
                eventType = FlushCode.EVENT_ACCESS_ERR;
                if (invalidate) {
                    rdmap(FlushCode.REM_OP_ERR, Rdmap.ETYPE_REMOTE_OPERATION, Rdmap.CANNOT_INVALIDATE);
                } else {
                    rdmap(FlushCode.REM_ACCESS_ERR, Rdmap.ETYPE_REMOTE_OPERATION, Rdmap.INVALID_STAG);
                }
            }
            case AMP_RIGHTS_VIOLATION, AMP_INVALIDATE_NO_REMOTE_ACCESS_RIGHTS, PRIV_OPERATION_DENIED -> {
                eventType = FlushCode.EVENT_ACCESS_ERR;
                rdmap(FlushCode.REM_ACCESS_ERR, Rdmap.ETYPE_REMOTE_PROTECTION, Rdmap.ACCESS_RIGHTS_VIOLATION);
            }
            case AMP_TO_WRAP -> {
                eventType = FlushCode.EVENT_ACCESS_ERR;
                rdmap(FlushCode.REM_ACCESS_ERR, Rdmap.ETYPE_REMOTE_PROTECTION, Rdmap.TO_WRAP);
            }
            default -> rdmap(FlushCode.FATAL_ERR, Rdmap.ETYPE_REMOTE_OPERATION, Rdmap.UNSPECIFIED);
        }
    }

    private void rdmap(int flush, int type, int code) {
        set(flush, LAYER_RDMAP, type, code);
    }

    private void ddp(int flush, int type, int code) {
        set(flush, LAYER_DDP, type, code);
    }

    private void set(int flush, int errorLayer, int type, int code) {
        flushCode = flush;
        layer = errorLayer;
        errorType = type;
        errorCode = code;
    }

    /** type.h enum irdma_term_layers (RFC 5040 §7.1 Layer): {@link Terminate#LAYER_RDMAP}, ... */
    public int layer() {
        return layer;
    }

    public int errorType() {
        return errorType;
    }

    public int errorCode() {
        return errorCode;
    }

    public int hdrct() {
        return hdrct;
    }

    /** Bytes of the offending FPDU copied behind the header (Q2Buffer#writeTerminate). */
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
