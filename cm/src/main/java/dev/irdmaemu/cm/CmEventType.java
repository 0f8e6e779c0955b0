package dev.irdmaemu.cm;

/** The upcalls of the iWARP connection manager (include/rdma/iw_cm.h {@code enum iw_cm_event_type}). */
public enum CmEventType {
    /** Passive: an MPA request arrived on a listener; carries the peer's private data and IRD/ORD. */
    CONNECT_REQUEST,
    /** Active: the peer's MPA reply (accepted, status OK) or reject (CONNECTION_REFUSED) or a failure. */
    CONNECT_REPLY,
    /** Passive: accept completed, the QP is in RTS. */
    ESTABLISHED,
    /** Orderly shutdown started by the peer (status OK) or the connection was reset. */
    DISCONNECT,
    /** The connection is closed; the node is gone after this event. */
    CLOSE
}
