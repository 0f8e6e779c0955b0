package dev.irdmaemu.driver.verbs;

/**
 * The verbs QP states (ib_verbs.h enum ib_qp_state, in order: irdma compares them, e.g. {@code ibqp_state >
 * IB_QPS_RTS}). irdma maps them on the iWARP QP states in verbs.c irdma_modify_qp: INIT and RTR to IDLE, RTS to
 * RTS, SQD to CLOSING, SQE to TERMINATE, ERR and RESET to ERROR.
 */
public enum IbQpState {
    RESET,
    INIT,
    RTR,
    RTS,
    SQD,
    SQE,
    ERR
}
