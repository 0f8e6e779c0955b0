package dev.irdmaemu.cm.verbs;

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
    UNKNOWN
}
