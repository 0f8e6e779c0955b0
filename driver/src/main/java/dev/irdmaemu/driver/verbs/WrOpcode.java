package dev.irdmaemu.driver.verbs;

/**
 * The send work requests an iWARP QP takes (include/rdma/ib_verbs.h enum ib_wr_opcode, the ones verbs.c
 * irdma_post_send accepts for iWARP on gen2: no atomics, no Send with Immediate).
 */
public enum WrOpcode {
    SEND,
    SEND_WITH_INV,
    RDMA_WRITE,
    RDMA_READ,
    RDMA_READ_WITH_INV,
    LOCAL_INV,
    REG_MR
}
