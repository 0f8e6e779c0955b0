package dev.irdmaemu.cm;

/**
 * One upcall to a {@link CmEventHandler}, shaped like {@code struct iw_cm_event}: type, status, the node it is
 * about, the peer's private data (CONNECT_REQUEST, CONNECT_REPLY) and the IRD/ORD in force.
 * Allocated once per upcall (a handful per connection), never on the per-segment path.
 */
public final class CmEvent {
    private final CmEventType type;
    private final CmStatus status;
    private final CmReason reason;
    private final CmNode node;
    private final byte[] privateData;
    private final int ird;
    private final int ord;
    private final long timeNanos;

    CmEvent(CmEventType type, CmStatus status, CmReason reason, CmNode node, byte[] privateData, int ird, int ord, long timeNanos) {
        this.type = type;
        this.status = status;
        this.reason = reason;
        this.node = node;
        this.privateData = privateData;
        this.ird = ird;
        this.ord = ord;
        this.timeNanos = timeNanos;
    }

    public CmEventType type() {
        return type;
    }

    public CmStatus status() {
        return status;
    }

    /** Which path of cm.c produced a failure or an ending; NONE for the ordinary ones. */
    public CmReason reason() {
        return reason;
    }

    public CmNode node() {
        return node;
    }

    /** A copy of the private data the peer sent (empty when the event carries none). */
    public byte[] privateData() {
        return privateData.clone();
    }

    public int ird() {
        return ird;
    }

    public int ord() {
        return ord;
    }

    /** Simulated time the upcall was made. */
    public long timeNanos() {
        return timeNanos;
    }

    @Override
    public String toString() {
        return type + (status == CmStatus.OK ? "" : "(" + status + ")")
                + (reason == CmReason.NONE ? "" : " " + reason)
                + (privateData.length > 0 ? " pd=" + privateData.length + "B" : "")
                + (type == CmEventType.CONNECT_REQUEST || type == CmEventType.ESTABLISHED
                        || (type == CmEventType.CONNECT_REPLY && status == CmStatus.OK) ? " ird=" + ird + " ord=" + ord : "")
                + " " + node.local() + "<-" + node.remote();
    }
}
