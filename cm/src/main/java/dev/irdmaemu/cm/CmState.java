package dev.irdmaemu.cm;

/**
 * The life of one connection node, every state of irdma's {@code enum irdma_cm_node_state} (cm.h), in its order.
 * ONE_SIDE_ESTABLISHED, ACCEPTING, INITED and CLOSE_WAIT are declared by irdma but never entered by cm.c;
 * they are kept so that a close in them means what cm.c's irdma_cm_close says.
 */
public enum CmState {
    UNKNOWN,
    INITED,
    /** A passive node created for a SYN that found a listener, before the SYN is processed. */
    LISTENING,
    SYN_RCVD,
    SYN_SENT,
    ONE_SIDE_ESTABLISHED,
    /** Passive: the three-way handshake completed, waiting for the MPA request. */
    ESTABLISHED,
    ACCEPTING,
    MPAREQ_SENT,
    /** Passive: the MPA request was indicated to the listener (CONNECT_REQUEST), waiting for accept or reject. */
    MPAREQ_RCVD,
    MPAREJ_RCVD,
    /** Handed to the hardware: the QP owns the TCP connection now; the CM drops its segments. */
    OFFLOADED,
    FIN_WAIT1,
    FIN_WAIT2,
    CLOSE_WAIT,
    TIME_WAIT,
    LAST_ACK,
    CLOSING,
    LISTENER_DESTROYED,
    CLOSED;

    /** cm.c compares states by order ({@code state >= IRDMA_CM_STATE_FIN_WAIT1}) in irdma_dec_refcnt_listen. */
    boolean closingOrLater() {
        return compareTo(FIN_WAIT1) >= 0;
    }
}
