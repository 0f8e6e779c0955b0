package dev.irdmaemu.bridge.vhost;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over struct virtio_net_hdr (virtio 1.2 §5.1.6): little-endian, 12 bytes with VERSION_1.
 *
 * <pre>
 *  byte 0: flags (NEEDS_CSUM 1, DATA_VALID 2, RSC_INFO 4)   1: gso_type (NONE 0, TCPV4 1, UDP 3, TCPV6 4; ECN 0x80)
 *  byte 2..3: hdr_len   4..5: gso_size   6..7: csum_start   8..9: csum_offset   10..11: num_buffers
 * </pre>
 *
 * Fields are read as they are; what they may hold is for the caller to check ({@link TxOffload} for frames from the
 * guest). Reads and writes go through the store's native order, which is little-endian on every machine this runs
 * on (as for the rings, {@link SplitVirtqueue}).
 */
final class VirtioNetHeader {
    /** §5.1.6: csum_start/csum_offset say where the checksum is still to be completed (driver to device). */
    static final int F_NEEDS_CSUM = 1;
    /** §5.1.6: the device checked the packet's checksum (device to driver). */
    static final int F_DATA_VALID = 2;
    /** §5.1.6: the device coalesced segments (RSC, device to driver; never negotiated here). */
    static final int F_RSC_INFO = 4;

    static final int GSO_NONE = 0;
    static final int GSO_TCPV4 = 1;
    static final int GSO_UDP = 3;
    static final int GSO_TCPV6 = 4;
    /** Set in gso_type with TCPV4/TCPV6: the TCP has CWR set (HOST_ECN / GUEST_ECN). */
    static final int GSO_ECN = 0x80;

    private static final int FLAGS = 0;
    private static final int GSO_TYPE = 1;
    private static final int HDR_LEN = 2;
    private static final int GSO_SIZE = 4;
    private static final int CSUM_START = 6;
    private static final int CSUM_OFFSET = 8;
    private static final int NUM_BUFFERS = 10;

    private BytesStore<?, ?> store;
    private long base;

    VirtioNetHeader wrap(BytesStore<?, ?> store, long offset) {
        if (offset < store.start() || offset > store.capacity() - VirtioNet.NET_HEADER_SIZE) {
            throw new IllegalArgumentException("virtio_net_hdr at " + offset + " outside its store");
        }
        this.store = store;
        this.base = offset;
        return this;
    }

    int flags() {
        return store.readUnsignedByte(base + FLAGS);
    }

    int gsoType() {
        return store.readUnsignedByte(base + GSO_TYPE);
    }

    int hdrLen() {
        return store.readUnsignedShort(base + HDR_LEN);
    }

    int gsoSize() {
        return store.readUnsignedShort(base + GSO_SIZE);
    }

    int csumStart() {
        return store.readUnsignedShort(base + CSUM_START);
    }

    int csumOffset() {
        return store.readUnsignedShort(base + CSUM_OFFSET);
    }

    int numBuffers() {
        return store.readUnsignedShort(base + NUM_BUFFERS);
    }

    VirtioNetHeader flags(int flags) {
        store.writeByte(base + FLAGS, (byte) flags);
        return this;
    }

    VirtioNetHeader gsoType(int type) {
        store.writeByte(base + GSO_TYPE, (byte) type);
        return this;
    }

    VirtioNetHeader hdrLen(int v) {
        store.writeShort(base + HDR_LEN, (short) v);
        return this;
    }

    VirtioNetHeader gsoSize(int v) {
        store.writeShort(base + GSO_SIZE, (short) v);
        return this;
    }

    VirtioNetHeader csumStart(int v) {
        store.writeShort(base + CSUM_START, (short) v);
        return this;
    }

    VirtioNetHeader csumOffset(int v) {
        store.writeShort(base + CSUM_OFFSET, (short) v);
        return this;
    }

    VirtioNetHeader numBuffers(int v) {
        store.writeShort(base + NUM_BUFFERS, (short) v);
        return this;
    }

    /** All twelve bytes zero: no offload, no checksum claim. */
    VirtioNetHeader clear() {
        store.zeroOut(base, base + VirtioNet.NET_HEADER_SIZE);
        return this;
    }
}
