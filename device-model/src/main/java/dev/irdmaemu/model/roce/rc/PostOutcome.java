package dev.irdmaemu.model.roce.rc;

/**
 * What became of a work request handed to {@link RcEngine#post}: taken, or refused for a reason the integration
 * turns into the WQE's error (irdma's post_send checks the SQ space itself; a full engine ring is a model limit).
 */
public enum PostOutcome {
    ACCEPTED,
    /** The QP is in ERROR: the request completed at once, flushed (IBA §10.8.2.2: posts to an error QP flush). */
    FLUSHED,
    /** Before RTS. */
    NOT_READY,
    /** The engine's ring of outstanding work requests is full. */
    QUEUE_FULL,
    /** A message over 2^31 bytes (IBA §9.7.7: the RETH's DMA length, and irdma's max_msg_size). */
    TOO_LONG
}
