package dev.irdmaemu.fw.cqp;

/**
 * The CQP SQ WQE opcodes, {@code IRDMA_CQP_OP_*} of defs.h, carried in IRDMA_CQPSQ_OPCODE (bits 37:32 of the WQE
 * header, quadword 3). 0x22 has two names in defs.h (FLUSH_WQES and GEN_AE); it is one constant here,
 * {@link #FLUSH_WQES}, with {@link #GEN_AE} as an alias. {@link #modelled()} marks the ops {@link CqpWqe} decodes, which are also the ops the device model executes.
 */
public enum CqpOpcode {
    CREATE_QP(0x00, true),
    MODIFY_QP(0x01, true),
    DESTROY_QP(0x02, true),
    CREATE_CQ(0x03, true),
    MODIFY_CQ(0x04, true),
    DESTROY_CQ(0x05, true),
    CREATE_SRQ(0x06, false),
    MODIFY_SRQ(0x07, false),
    DESTROY_SRQ(0x08, false),
    ALLOC_STAG(0x09, true),
    REG_MR(0x0a, true),
    QUERY_STAG(0x0b, false),
    REG_SMR(0x0c, false),
    DEALLOC_STAG(0x0d, true),
    MANAGE_LOC_MAC_TABLE(0x0e, false),
    MANAGE_ARP(0x0f, true),
    MANAGE_VF_PBLE_BP(0x10, false),
    MANAGE_PUSH_PAGES(0x11, false),
    QUERY_RDMA_FEATURES(0x12, true),
    UPLOAD_CONTEXT(0x13, false),
    ALLOCATE_LOC_MAC_TABLE_ENTRY(0x14, false),
    MANAGE_HMC_PM_FUNC_TABLE(0x15, false),
    CREATE_CEQ(0x16, true),
    DESTROY_CEQ(0x18, true),
    CREATE_AEQ(0x19, true),
    DESTROY_AEQ(0x1b, true),
    CREATE_ADDR_HANDLE(0x1c, true),
    MODIFY_ADDR_HANDLE(0x1d, true),
    DESTROY_ADDR_HANDLE(0x1e, true),
    UPDATE_PE_SDS(0x1f, true),
    QUERY_FPM_VAL(0x20, true),
    COMMIT_FPM_VAL(0x21, true),
    /** 0x22: also IRDMA_CQP_OP_GEN_AE (defs.h: "the same value"). */
    FLUSH_WQES(0x22, true),
    MANAGE_APBVT(0x23, true),
    NOP(0x24, true),
    MANAGE_QUAD_HASH_TABLE_ENTRY(0x25, true),
    CREATE_MCAST_GRP(0x26, false),
    MODIFY_MCAST_GRP(0x27, false),
    DESTROY_MCAST_GRP(0x28, false),
    SUSPEND_QP(0x29, false),
    RESUME_QP(0x2a, false),
    SHMC_PAGES_ALLOCATED(0x2b, true),
    WORK_SCHED_NODE(0x2c, true),
    MANAGE_STATS(0x2d, false),
    GATHER_STATS(0x2e, true),
    UP_MAP(0x2f, false);

    /** IRDMA_CQP_OP_GEN_AE shares 0x22 with FLUSH_WQES. */
    public static final CqpOpcode GEN_AE = FLUSH_WQES;

    private static final CqpOpcode[] BY_CODE = new CqpOpcode[64];

    static {
        for (CqpOpcode op : values()) {
            BY_CODE[op.code] = op;
        }
    }

    private final int code;
    private final boolean modelled;

    CqpOpcode(int code, boolean modelled) {
        this.code = code;
        this.modelled = modelled;
    }

    public int code() {
        return code;
    }

    /**
     * True for the ops whose fields {@link CqpWqe} decodes, validates and writes, and which the device model
     * executes (any other opcode completes with its UNSUPPORTED_OPCODE error).
     */
    public boolean modelled() {
        return modelled;
    }

    /** The opcode for a 6-bit code, null when defs.h defines none (0x17, 0x1a, 0x30..0x3f, ...). */
    public static CqpOpcode of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
