package dev.irdmaemu.fw.queue;

/** The SQ WQE opcodes of irdma (defs.h IRDMAQP_OP_*, the 6-bit IRDMAQPSQ_OPCODE field). */
public enum SqOpcode {
    RDMA_WRITE(0x00),
    RDMA_READ(0x01),
    RDMA_SEND(0x03),
    RDMA_SEND_INV(0x04),
    RDMA_SEND_SOL_EVENT(0x05),
    RDMA_SEND_SOL_EVENT_INV(0x06),
    BIND_MW(0x08),
    FAST_REGISTER(0x09),
    LOCAL_INVALIDATE(0x0a),
    RDMA_READ_LOC_INV(0x0b),
    NOP(0x0c),
    RDMA_WRITE_SOL(0x0d),
    ATOMIC_FETCH_ADD(0x0f),
    ATOMIC_COMPARE_SWAP_ADD(0x11),
    GEN_RTS_AE(0x30);

    private static final SqOpcode[] BY_CODE = new SqOpcode[64];

    static {
        for (SqOpcode o : values()) {
            BY_CODE[o.code] = o;
        }
    }

    private final int code;

    SqOpcode(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** Null for a code irdma does not define. */
    public static SqOpcode of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    /** Send, Send with SE, with Invalidate, with SE and Invalidate. */
    public boolean isSend() {
        return this == RDMA_SEND || this == RDMA_SEND_INV || this == RDMA_SEND_SOL_EVENT
            || this == RDMA_SEND_SOL_EVENT_INV;
    }

    public boolean isWrite() {
        return this == RDMA_WRITE || this == RDMA_WRITE_SOL;
    }

    public boolean isRead() {
        return this == RDMA_READ || this == RDMA_READ_LOC_INV;
    }

    /** Opcodes whose WQE carries a local fragment list in the uk.c layout (slot 0 at +0, others from +32). */
    public boolean carriesFragments() {
        return isSend() || isWrite() || isRead();
    }
}
