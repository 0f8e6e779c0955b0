package dev.irdmaemu.bridge.vhost;

/** Feature bits and layouts of virtio-net over split virtqueues that the back-end speaks (virtio 1.x spec). */
public final class VirtioNet {
    /** virtio 1.2 §5.1.3: the device completes checksums of frames the driver flags NEEDS_CSUM. */
    public static final int F_CSUM = 0;
    /** §5.1.3: the driver takes frames flagged DATA_VALID (checksum checked by the device). */
    public static final int F_GUEST_CSUM = 1;
    /** §5.1.3: the driver takes TCP/IPv4, TCP/IPv6 super-frames, with ECN, UFO (not offered here). */
    public static final int F_GUEST_TSO4 = 7;
    public static final int F_GUEST_TSO6 = 8;
    public static final int F_GUEST_ECN = 9;
    public static final int F_GUEST_UFO = 10;
    /** §5.1.3: the device segments TCP/IPv4 and TCP/IPv6 super-frames, with CWR on the first segment (ECN). */
    public static final int F_HOST_TSO4 = 11;
    public static final int F_HOST_TSO6 = 12;
    public static final int F_HOST_ECN = 13;
    /** virtio 1.x §5.1.3: the device merges receive buffers; num_buffers in the header counts them. */
    public static final int F_MRG_RXBUF = 15;
    /** virtio 1.x §6 (reserved feature bits): the driver may use indirect descriptor tables. */
    public static final int F_INDIRECT_DESC = 28;
    /** virtio 1.x §6: used_event / avail_event suppress notifications. */
    public static final int F_EVENT_IDX = 29;
    /** vhost-user.rst: the unused bit 30 means "GET/SET_PROTOCOL_FEATURES are understood". */
    public static final int F_PROTOCOL_FEATURES = 30;
    /** virtio 1.x §6: a modern (non-legacy) device; little-endian rings, the 12-byte net header. */
    public static final int F_VERSION_1 = 32;

    /**
     * Everything this back-end offers in GET_FEATURES: checksum offload both ways and TCP segmentation of the guest's
     * super-frames ({@link TxOffload}), large receives of TCP over IPv4 and IPv6 ({@link RxCoalescer}); no ECN or UFO
     * for the guest.
     */
    public static final long OFFERED_FEATURES = 1L << F_CSUM | 1L << F_GUEST_CSUM | 1L << F_GUEST_TSO4
            | 1L << F_GUEST_TSO6 | 1L << F_HOST_TSO4
            | 1L << F_HOST_TSO6 | 1L << F_HOST_ECN | 1L << F_MRG_RXBUF | 1L << F_INDIRECT_DESC | 1L << F_EVENT_IDX
            | 1L << F_PROTOCOL_FEATURES | 1L << F_VERSION_1;
    /** The ring and device features offered before the offloads (issue 17): what {@code none} offers. */
    public static final long BASE_FEATURES = 1L << F_MRG_RXBUF | 1L << F_INDIRECT_DESC | 1L << F_EVENT_IDX
            | 1L << F_PROTOCOL_FEATURES | 1L << F_VERSION_1;

    /**
     * The system property that narrows what is offered, for comparisons: {@code all} (the default,
     * {@link #OFFERED_FEATURES}), {@code no-lro} (all but GUEST_TSO4/6: no large receives) or {@code none}
     * ({@link #BASE_FEATURES}: no offload at all); any other value is {@code all}. Read when a front-end connects.
     */
    public static final String OFFLOADS_PROPERTY = "irdmaemu.vhost.offloads";

    /** What a new connection offers, after {@link #OFFLOADS_PROPERTY}. */
    static long offeredFeatures() {
        String v = System.getProperty(OFFLOADS_PROPERTY, "all");
        return switch (v) {
            case "none" -> BASE_FEATURES;
            case "no-lro" -> OFFERED_FEATURES & ~(1L << F_GUEST_TSO4 | 1L << F_GUEST_TSO6);
            default -> OFFERED_FEATURES; // "all", and anything else
        };
    }

    /** Everything this back-end offers in GET_PROTOCOL_FEATURES: REPLY_ACK only (no MQ: one queue pair). */
    public static final long OFFERED_PROTOCOL_FEATURES = 1L << VhostUserRequest.PROTOCOL_F_REPLY_ACK;

    /**
     * virtio 1.x §5.1.6: struct virtio_net_hdr (flags u8, gso_type u8, hdr_len, gso_size, csum_start, csum_offset,
     * num_buffers; u16 little-endian each). With VERSION_1, num_buffers is always present: 12 bytes.
     */
    public static final int NET_HEADER_SIZE = 12;
    /** Offset of num_buffers in the header. */
    public static final int NET_HEADER_NUM_BUFFERS = 10;

    /** Queue indexes of a single-queue-pair virtio-net device (virtio 1.x §5.1.2: receiveq1, transmitq1). */
    public static final int RX_QUEUE = 0;
    public static final int TX_QUEUE = 1;
    public static final int QUEUES = 2;

    /** virtio 1.x §2.7: Queue Size is a power of 2 and at most 32768. */
    public static final int MAX_QUEUE_SIZE = 32768;

    private VirtioNet() {
    }
}
