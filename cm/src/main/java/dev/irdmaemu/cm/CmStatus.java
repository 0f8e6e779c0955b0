package dev.irdmaemu.cm;

/** The status an event carries, as the errno cm.c puts in {@code iw_cm_event.status}. */
public enum CmStatus {
    OK(0),
    /** {@code -ECONNRESET}: reset by the peer, or the connection attempt failed (irdma_event_connect_error). */
    CONNECTION_RESET(-104),
    /** {@code -ECONNREFUSED}: the peer rejected the MPA request (irdma_cm_event_handler, MPA_REJECT). */
    CONNECTION_REFUSED(-111),
    /** {@code -ETIMEDOUT}: the QP was being destroyed when the reply came (irdma_cm_event_connected). */
    TIMED_OUT(-110);

    private final int errno;

    CmStatus(int errno) {
        this.errno = errno;
    }

    /** The kernel's negative errno value. */
    public int errno() {
        return errno;
    }
}
