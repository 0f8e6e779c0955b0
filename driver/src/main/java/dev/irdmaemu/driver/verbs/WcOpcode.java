package dev.irdmaemu.driver.verbs;

import dev.irdmaemu.fw.queue.SqOpcode;

/**
 * What a work completion completed (ib_verbs.h enum ib_wc_opcode), as verbs.h set_ib_wc_op_sq / set_ib_wc_op_rq
 * derive it from the CQE's IRDMACQ_OP for gen2 iWARP. {@link #UNKNOWN} stands for the opcode field irdma leaves
 * unset when it reports IB_WC_GENERAL_ERR for an op type it does not know.
 */
public enum WcOpcode {
    SEND,
    RDMA_WRITE,
    RDMA_READ,
    COMP_SWAP,
    FETCH_ADD,
    LOCAL_INV,
    REG_MR,
    RECV,
    RECV_RDMA_WITH_IMM,
    UNKNOWN;

    /**
     * verbs.h set_ib_wc_op_sq: what an SQ completion of IRDMACQ_OP / IRDMAQPSQ_OPCODE {@code opType} completed;
     * {@link #UNKNOWN} for a code irdma does not map (NOP, Bind MW, GEN_RTS_AE, undefined codes).
     */
    static WcOpcode fromSq(int opType) {
        SqOpcode op = SqOpcode.of(opType);
        return op == null ? UNKNOWN : switch (op) {
            case RDMA_WRITE, RDMA_WRITE_SOL -> RDMA_WRITE;
            case RDMA_READ, RDMA_READ_LOC_INV -> RDMA_READ;
            case RDMA_SEND, RDMA_SEND_INV, RDMA_SEND_SOL_EVENT, RDMA_SEND_SOL_EVENT_INV -> SEND;
            case FAST_REGISTER -> REG_MR;
            case ATOMIC_COMPARE_SWAP_ADD -> COMP_SWAP;
            case ATOMIC_FETCH_ADD -> FETCH_ADD;
            case LOCAL_INVALIDATE -> LOCAL_INV;
            default -> UNKNOWN;
        };
    }
}
