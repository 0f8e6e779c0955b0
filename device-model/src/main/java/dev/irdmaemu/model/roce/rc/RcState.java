package dev.irdmaemu.model.roce.rc;

/**
 * The QP states the RC transport acts on (IBA Vol. 1 §10.3.1; the IB states irdma's modify_qp_roce maps onto its
 * IWARP_STATE codes): before RTR it drops everything, in RTR it only responds, in RTS it also requests, in ERROR it
 * drops everything and leaves the work requests to the flush.
 */
public enum RcState {
    RESET, READY_TO_RECEIVE, READY_TO_SEND, ERROR;

    boolean responds() {
        return this == READY_TO_RECEIVE || this == READY_TO_SEND;
    }

    boolean requests() {
        return this == READY_TO_SEND;
    }
}
