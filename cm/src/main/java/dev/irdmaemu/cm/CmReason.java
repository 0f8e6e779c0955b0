package dev.irdmaemu.cm;

/**
 * Why a connection failed or ended, beside the errno-like {@link CmStatus}: cm.c reports all of these as
 * {@code -ECONNRESET} (or {@code -ECONNREFUSED}), the reason says which of its paths it was.
 */
public enum CmReason {
    /** Nothing went wrong (a successful reply, a graceful close). */
    NONE,
    /** The peer answered the MPA request with a reject (R flag). */
    PEER_REJECTED,
    /** The peer reset the connection (irdma_handle_rst_pkt, or the QP's LLP_CONNECTION_RESET). */
    PEER_RESET,
    /** The peer closed (FIN) while we waited for its MPA reply (irdma_handle_fin_pkt, MPAREQ_SENT). */
    PEER_CLOSED,
    /** The peer stopped answering: the retransmissions ran out (irdma_retrans_expired). */
    RETRIES_EXHAUSTED,
    /** A segment broke the TCP setup rules: a SYN on an active open, a SYN-ACK for another SYN, bad options. */
    PROTOCOL_ERROR,
    /** The peer's MPA frame failed irdma_parse_mpa or the IRD/ORD negotiation. */
    BAD_MPA,
    /** A SYN found the listener's backlog full (cm.c irdma_handle_syn_pkt: the node is dropped unanswered). */
    BACKLOG_FULL,
    /** This side ended it: an abortive disconnect or the local address going away. */
    LOCAL_ABORT,
    /** The close did not complete in time and was forced (the close entry of cm.c irdma_handle_close_entry). */
    CLOSE_TIMEOUT,
    /** The QP never raised IRDMA_AE_LLP_CONNECTION_ESTABLISHED within IRDMA_MAX_TIMEOUT (irdma_accept's wait). */
    ESTABLISH_TIMEOUT,
    /** The QP terminated the connection: a Terminate was sent or received, the QP is in error. */
    TERMINATED
}
