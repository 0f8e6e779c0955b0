package dev.irdmaemu.fw.queue;

/**
 * The asynchronous event codes of irdma (user.h IRDMA_AE_*, the 12-bit IRDMA_AEQE_AECODE of an {@link Aeqe}),
 * each with the handling class irdma_sc_get_next_aeqe gives it ({@link Kind}). {@link #of(int)} answers null
 * for a code irdma does not define; lookups allocate nothing.
 */
public enum AeCode {
    AMP_UNALLOCATED_STAG(0x0102, Kind.BY_SOURCE),
    AMP_INVALID_STAG(0x0103, Kind.BY_SOURCE),
    AMP_BAD_QP(0x0104, Kind.BY_SOURCE),
    AMP_BAD_PD(0x0105, Kind.BY_SOURCE),
    AMP_BAD_STAG_KEY(0x0106, Kind.BY_SOURCE),
    AMP_BAD_STAG_INDEX(0x0107, Kind.BY_SOURCE),
    AMP_BOUNDS_VIOLATION(0x0108, Kind.BY_SOURCE),
    AMP_RIGHTS_VIOLATION(0x0109, Kind.BY_SOURCE),
    AMP_TO_WRAP(0x010a, Kind.BY_SOURCE),
    AMP_FASTREG_VALID_STAG(0x010c, Kind.BY_SOURCE),
    AMP_FASTREG_MW_STAG(0x010d, Kind.BY_SOURCE),
    AMP_FASTREG_INVALID_RIGHTS(0x010e, Kind.BY_SOURCE),
    AMP_FASTREG_INVALID_LENGTH(0x0110, Kind.BY_SOURCE),
    AMP_INVALIDATE_SHARED(0x0111, Kind.BY_SOURCE),
    AMP_INVALIDATE_NO_REMOTE_ACCESS_RIGHTS(0x0112, Kind.BY_SOURCE),
    AMP_INVALIDATE_MR_WITH_BOUND_WINDOWS(0x0113, Kind.BY_SOURCE),
    AMP_MWBIND_VALID_STAG(0x0114, Kind.BY_SOURCE),
    AMP_MWBIND_OF_MR_STAG(0x0115, Kind.BY_SOURCE),
    AMP_MWBIND_TO_ZERO_BASED_STAG(0x0116, Kind.BY_SOURCE),
    AMP_MWBIND_TO_MW_STAG(0x0117, Kind.BY_SOURCE),
    AMP_MWBIND_INVALID_RIGHTS(0x0118, Kind.BY_SOURCE),
    AMP_MWBIND_INVALID_BOUNDS(0x0119, Kind.BY_SOURCE),
    AMP_MWBIND_TO_INVALID_PARENT(0x011a, Kind.BY_SOURCE),
    AMP_MWBIND_BIND_DISABLED(0x011b, Kind.BY_SOURCE),
    PRIV_OPERATION_DENIED(0x011c, Kind.QP),
    AMP_INVALIDATE_TYPE1_MW(0x011d, Kind.QP),
    AMP_MWBIND_ZERO_BASED_TYPE1_MW(0x011e, Kind.QP),
    AMP_FASTREG_INVALID_PBL_HPS_CFG(0x011f, Kind.QP),
    AMP_MWBIND_WRONG_TYPE(0x0120, Kind.BY_SOURCE),
    AMP_FASTREG_PBLE_MISMATCH(0x0121, Kind.QP),
    UDA_XMIT_DGRAM_TOO_LONG(0x0132, Kind.QP),
    UDA_XMIT_BAD_PD(0x0133, Kind.QP),
    UDA_XMIT_DGRAM_TOO_SHORT(0x0134, Kind.QP),
    UDA_L4LEN_INVALID(0x0135, Kind.QP),
    BAD_CLOSE(0x0201, Kind.QP),
    RDMAP_ROE_BAD_LLP_CLOSE(0x0202, Kind.QP_IGNORE_SOURCE),
    CQ_OPERATION_ERROR(0x0203, Kind.BY_SOURCE),
    RDMA_READ_WHILE_ORD_ZERO(0x0205, Kind.QP),
    STAG_ZERO_INVALID(0x0206, Kind.QP),
    IB_RREQ_AND_Q1_FULL(0x0207, Kind.QP),
    IB_INVALID_REQUEST(0x0208, Kind.QP),
    SRQ_LIMIT(0x0209, Kind.SRQ),
    WQE_UNEXPECTED_OPCODE(0x020a, Kind.QP),
    WQE_INVALID_PARAMETER(0x020b, Kind.BY_SOURCE),
    WQE_INVALID_FRAG_DATA(0x020c, Kind.BY_SOURCE),
    IB_REMOTE_ACCESS_ERROR(0x020d, Kind.QP),
    IB_REMOTE_OP_ERROR(0x020e, Kind.QP),
    SRQ_CATASTROPHIC_ERROR(0x020f, Kind.BY_SOURCE),
    WQE_LSMM_TOO_LONG(0x0220, Kind.BY_SOURCE),
    ATOMIC_ALIGNMENT(0x0221, Kind.BY_SOURCE),
    ATOMIC_MASK(0x0222, Kind.BY_SOURCE),
    INVALID_REQUEST(0x0223, Kind.BY_SOURCE),
    PCIE_ATOMIC_DISABLE(0x0224, Kind.BY_SOURCE),
    DDP_INVALID_MSN_GAP_IN_MSN(0x0301, Kind.BY_SOURCE),
    DDP_UBE_DDP_MESSAGE_TOO_LONG_FOR_AVAILABLE_BUFFER(0x0303, Kind.BY_SOURCE),
    DDP_UBE_INVALID_DDP_VERSION(0x0304, Kind.QP),
    DDP_UBE_INVALID_MO(0x0305, Kind.QP),
    DDP_UBE_INVALID_MSN_NO_BUFFER_AVAILABLE(0x0306, Kind.BY_SOURCE),
    DDP_UBE_INVALID_QN(0x0307, Kind.QP),
    DDP_NO_L_BIT(0x0308, Kind.QP),
    RDMAP_ROE_INVALID_RDMAP_VERSION(0x0311, Kind.QP),
    RDMAP_ROE_UNEXPECTED_OPCODE(0x0312, Kind.QP),
    ROE_INVALID_RDMA_READ_REQUEST(0x0313, Kind.QP),
    ROE_INVALID_RDMA_WRITE_OR_READ_RESP(0x0314, Kind.QP),
    ROCE_RSP_LENGTH_ERROR(0x0316, Kind.QP),
    ROCE_EMPTY_MCG(0x0380, Kind.QP_IGNORE_SOURCE),
    ROCE_BAD_MC_IP_ADDR(0x0381, Kind.QP_IGNORE_SOURCE),
    ROCE_BAD_MC_QPID(0x0382, Kind.QP_IGNORE_SOURCE),
    MCG_QP_PROTOCOL_MISMATCH(0x0383, Kind.QP_IGNORE_SOURCE),
    INVALID_ARP_ENTRY(0x0401, Kind.QP),
    INVALID_TCP_OPTION_RCVD(0x0402, Kind.QP),
    STALE_ARP_ENTRY(0x0403, Kind.QP),
    INVALID_AH_ENTRY(0x0406, Kind.QP),
    LLP_CLOSE_COMPLETE(0x0501, Kind.QP_IGNORE_SOURCE),
    LLP_CONNECTION_RESET(0x0502, Kind.QP_IGNORE_SOURCE),
    LLP_FIN_RECEIVED(0x0503, Kind.QP_IGNORE_SOURCE),
    LLP_RECEIVED_MARKER_AND_LENGTH_FIELDS_DONT_MATCH(0x0504, Kind.BY_SOURCE),
    LLP_RECEIVED_MPA_CRC_ERROR(0x0505, Kind.QP),
    LLP_SEGMENT_TOO_SMALL(0x0507, Kind.QP),
    LLP_SYN_RECEIVED(0x0508, Kind.QP_IGNORE_SOURCE),
    LLP_TERMINATE_RECEIVED(0x0509, Kind.QP_IGNORE_SOURCE),
    LLP_TOO_MANY_RETRIES(0x050a, Kind.QP),
    LLP_TOO_MANY_KEEPALIVE_RETRIES(0x050b, Kind.BY_SOURCE),
    LLP_DOUBT_REACHABILITY(0x050c, Kind.QP),
    LLP_CONNECTION_ESTABLISHED(0x050e, Kind.QP),
    LLP_TOO_MANY_RNRS(0x050f, Kind.QP),
    RESOURCE_EXHAUSTION(0x0520, Kind.BY_SOURCE),
    RESET_SENT(0x0601, Kind.QP),
    TERMINATE_SENT(0x0602, Kind.QP),
    RESET_NOT_SENT(0x0603, Kind.QP),
    LCE_QP_CATASTROPHIC(0x0700, Kind.QP),
    LCE_FUNCTION_CATASTROPHIC(0x0701, Kind.BY_SOURCE),
    LCE_CQ_CATASTROPHIC(0x0702, Kind.CQ),
    REMOTE_QP_CATASTROPHIC(0x0703, Kind.QP),
    LOCAL_QP_CATASTROPHIC(0x0704, Kind.QP),
    RCE_QP_CATASTROPHIC(0x0705, Kind.QP),
    QP_SUSPEND_COMPLETE(0x0900, Kind.QP),
    CQP_DEFERRED_COMPLETE(0x0901, Kind.CQP_DEFERRED),
    ADAPTER_CATASTROPHIC(0x0b0b, Kind.BY_SOURCE);

    /** How irdma_sc_get_next_aeqe's first switch treats the code (ctrl.c). */
    public enum Kind {
        /** The completion context is the QP's; the AE source then refines which queue. */
        QP,
        /** QP event whose source field the driver ignores (LLP close/reset/FIN/SYN, Terminate received ...). */
        QP_IGNORE_SOURCE,
        /** IRDMA_AE_LCE_CQ_CATASTROPHIC: the context is a CQ's, shifted right by one. */
        CQ,
        /** IRDMA_AE_SRQ_LIMIT. */
        SRQ,
        /** IRDMA_AE_CQP_DEFERRED_COMPLETE: the WQE index carries the deferred info. */
        CQP_DEFERRED,
        /** Not named by the first switch: the AE source alone decides (IRDMA_AE_SOURCE_*). */
        BY_SOURCE
    }

    private static final AeCode[] BY_CODE = new AeCode[1 << 12];

    static {
        for (AeCode c : values()) {
            BY_CODE[c.code] = c;
        }
    }

    private final int code;
    private final Kind kind;

    AeCode(int code, Kind kind) {
        this.code = code;
        this.kind = kind;
    }

    /** The IRDMA_AEQE_AECODE value. */
    public int code() {
        return code;
    }

    public Kind kind() {
        return kind;
    }

    /** The kernel's macro name, e.g. "IRDMA_AE_LLP_CONNECTION_RESET". */
    public String kernelName() {
        return "IRDMA_AE_" + name();
    }

    /**
     * Whether irdma treats this event as abnormal: irdma_process_aeq (hw.c) handles the connection lifecycle
     * (established, FIN, close complete, bad close, reset sent, connection reset, terminate sent or received),
     * a QP's suspend, an SRQ's limit and the CQP's deferred completions as part of normal work, and logs every other
     * code at error level (a CQ operation error, an SRQ catastrophe, and the "abnormal ae_id" default that flushes
     * the QP).
     */
    public boolean abnormal() {
        return switch (this) {
            case LLP_CONNECTION_ESTABLISHED, LLP_FIN_RECEIVED, RDMAP_ROE_BAD_LLP_CLOSE, LLP_CLOSE_COMPLETE, BAD_CLOSE,
                    RESET_SENT, LLP_CONNECTION_RESET, QP_SUSPEND_COMPLETE, TERMINATE_SENT, LLP_TERMINATE_RECEIVED,
                    SRQ_LIMIT, CQP_DEFERRED_COMPLETE -> false;
            default -> true;
        };
    }

    public static AeCode of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
