package dev.irdmaemu.bridge.vhost;

import static dev.irdmaemu.bridge.vhost.OffloadFrames.ALL;
import static dev.irdmaemu.bridge.vhost.OffloadFrames.MTU;
import static dev.irdmaemu.bridge.vhost.OffloadFrames.build;
import static dev.irdmaemu.bridge.vhost.OffloadFrames.gso;
import static dev.irdmaemu.bridge.vhost.OffloadFrames.headers;
import static dev.irdmaemu.bridge.vhost.OffloadFrames.l4;
import static dev.irdmaemu.bridge.vhost.VirtioNet.NET_HEADER_SIZE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.vhost.BackendFixture.Collector;
import dev.irdmaemu.bridge.vhost.TxOffload.Refusal;
import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link TxOffload}: checksum completion, TCP segmentation, and every lying header dropped with its reason. */
class TxOffloadTest {
    private static final long HDR = 0;
    private static final long FRAME = NET_HEADER_SIZE;

    private final BytesStore<?, Void> buf = BytesStore.nativeStoreWithFixedCapacity(NET_HEADER_SIZE + 70_000);
    private final TxOffload offload = new TxOffload();
    private final Collector out = new Collector();
    private final VirtioNetHeader header = new VirtioNetHeader();

    @AfterEach
    void release() {
        buf.releaseLast();
        offload.release();
    }

    private Refusal deliver(int length, long features) {
        return offload.deliver(buf, HDR, FRAME, length, features, MTU, out);
    }

    @Test
    void aFrameWithoutOffloadsPassesUnchanged() {
        byte[] payload = BackendFixture.randomBytes(1000, 1);
        int length = build(buf, FRAME, false, false, payload, 5, TcpHeader.ACK, 9, false);
        header.wrap(buf, HDR).clear();
        byte[] before = bytes(FRAME, length);
        assertNull(deliver(length, 0));
        assertEquals(1, out.frames.size());
        assertArrayEquals(before, out.frames.get(0));
    }

    @ParameterizedTest
    @EnumSource(names = {"V4", "V6", "V4_VLAN"})
    void needsCsumIsCompletedOverTheSeededPseudoHeader(Shape shape) {
        byte[] payload = BackendFixture.randomBytes(777, 2);
        int length = build(buf, FRAME, shape.v6, shape.vlan, payload, 5, TcpHeader.ACK | TcpHeader.PSH, 9, true);
        header.wrap(buf, HDR).clear().flags(VirtioNetHeader.F_NEEDS_CSUM).csumStart(l4(shape.v6, shape.vlan))
                .csumOffset(16);
        assertEquals(TcpPacket.Status.TCP_BAD_CHECKSUM, validate(FRAME, length), "the seeded frame does not verify");
        assertNull(deliver(length, ALL));
        assertEquals(1, out.frames.size());
        OffloadFrames.assertSegmentsOf(out.frames, payload, 5, TcpHeader.ACK | TcpHeader.PSH, 1448, shape.v6,
                shape.vlan, 9);
    }

    enum Shape {
        V4(false, false), V6(true, false), V4_VLAN(false, true), V6_VLAN(true, true);

        final boolean v6;
        final boolean vlan;

        Shape(boolean v6, boolean vlan) {
            this.v6 = v6;
            this.vlan = vlan;
        }
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void aSuperFrameIsCutIntoMtuSizedSegments(Shape shape) {
        byte[] payload = BackendFixture.randomBytes(60_000, 3);
        int flags = TcpHeader.ACK | TcpHeader.PSH | TcpHeader.FIN | TcpHeader.CWR;
        long seq = 0xffff_f000L; // wraps in the middle
        int mss = MTU - (shape.v6 ? 40 : 20) - 32; // Linux's MSS with timestamps: 1448 over IPv4, 1428 over IPv6
        int length = build(buf, FRAME, shape.v6, shape.vlan, payload, seq, flags, 0xfffe, true);
        gso(buf, HDR, (shape.v6 ? VirtioNetHeader.GSO_TCPV6 : VirtioNetHeader.GSO_TCPV4) | VirtioNetHeader.GSO_ECN,
                mss, headers(shape.v6, shape.vlan), l4(shape.v6, shape.vlan));
        assertNull(deliver(length, ALL));
        assertEquals((60_000 + mss - 1) / mss, OffloadFrames.assertSegmentsOf(out.frames, payload, seq, flags, mss,
                shape.v6, shape.vlan, 0xfffe));
    }

    @Test
    void aSuperFrameOfOneSegmentOrNoPayloadIsOneFrame() {
        int length = build(buf, FRAME, false, false, new byte[0], 1, TcpHeader.ACK | TcpHeader.FIN, 3, true);
        gso(buf, HDR, VirtioNetHeader.GSO_TCPV4, 1448, headers(false, false), l4(false, false));
        assertNull(deliver(length, ALL));
        OffloadFrames.assertSegmentsOf(out.frames, new byte[0], 1, TcpHeader.ACK | TcpHeader.FIN, 1448, false, false,
                3);
    }

    /** Each lie in a virtio-net header, and the reason it is dropped for. */
    enum Lie {
        DATA_VALID_FROM_THE_DRIVER(Refusal.BAD_FLAGS),
        NEEDS_CSUM_WITHOUT_CSUM(Refusal.CSUM_NOT_NEGOTIATED),
        CSUM_START_PAST_THE_FRAME(Refusal.CSUM_OUT_OF_BOUNDS),
        CSUM_OFFSET_PAST_THE_FRAME(Refusal.CSUM_OUT_OF_BOUNDS),
        TCPV4_WITHOUT_HOST_TSO4(Refusal.GSO_NOT_NEGOTIATED),
        TCPV6_WITHOUT_HOST_TSO6(Refusal.GSO_NOT_NEGOTIATED),
        UDP_GSO(Refusal.GSO_NOT_NEGOTIATED),
        UNKNOWN_GSO_TYPE(Refusal.GSO_NOT_NEGOTIATED),
        ECN_WITHOUT_HOST_ECN(Refusal.ECN_NOT_NEGOTIATED),
        GSO_WITHOUT_NEEDS_CSUM(Refusal.GSO_WITHOUT_CSUM),
        HDR_LEN_PAST_THE_FRAME(Refusal.HDR_LEN_OUT_OF_BOUNDS),
        GSO_SIZE_ZERO(Refusal.GSO_SIZE_ZERO),
        TCPV4_ON_AN_IPV6_FRAME(Refusal.NOT_TCP),
        TCPV6_ON_AN_IPV4_FRAME(Refusal.NOT_TCP),
        TCPV4_ON_A_UDP_PACKET(Refusal.NOT_TCP),
        TCPV4_ON_AN_IPV4_FRAGMENT(Refusal.NOT_TCP),
        TCPV4_ON_A_TRUNCATED_TCP_HEADER(Refusal.NOT_TCP),
        CSUM_START_NOT_AT_TCP(Refusal.CSUM_NOT_TCP),
        CSUM_OFFSET_NOT_TCP_CHECKSUM(Refusal.CSUM_NOT_TCP),
        GSO_SIZE_OVER_THE_MTU(Refusal.SEGMENT_OVER_MTU),
        SEGMENT_COUNT_OVERFLOW(Refusal.TOO_MANY_SEGMENTS);

        final Refusal refusal;

        Lie(Refusal refusal) {
            this.refusal = refusal;
        }
    }

    @ParameterizedTest
    @EnumSource(Lie.class)
    void aLyingHeaderDropsTheFrameWithItsReason(Lie lie) {
        boolean v6 = lie == Lie.TCPV6_WITHOUT_HOST_TSO6 || lie == Lie.TCPV4_ON_AN_IPV6_FRAME;
        int length = build(buf, FRAME, v6, false, BackendFixture.randomBytes(20_000, 4), 1, TcpHeader.ACK, 1, true);
        int l4 = l4(v6, false);
        gso(buf, HDR, v6 ? VirtioNetHeader.GSO_TCPV6 : VirtioNetHeader.GSO_TCPV4, 1448, headers(v6, false), l4);
        header.wrap(buf, HDR);
        long features = ALL;
        switch (lie) {
            case DATA_VALID_FROM_THE_DRIVER -> header.flags(VirtioNetHeader.F_NEEDS_CSUM | VirtioNetHeader.F_DATA_VALID);
            case NEEDS_CSUM_WITHOUT_CSUM -> {
                header.gsoType(VirtioNetHeader.GSO_NONE);
                features &= ~(1L << VirtioNet.F_CSUM);
            }
            case CSUM_START_PAST_THE_FRAME -> header.gsoType(VirtioNetHeader.GSO_NONE).csumStart(length + 1);
            case CSUM_OFFSET_PAST_THE_FRAME -> header.gsoType(VirtioNetHeader.GSO_NONE).csumOffset(0xffff);
            case TCPV4_WITHOUT_HOST_TSO4 -> features &= ~(1L << VirtioNet.F_HOST_TSO4);
            case TCPV6_WITHOUT_HOST_TSO6 -> features &= ~(1L << VirtioNet.F_HOST_TSO6);
            case UDP_GSO -> header.gsoType(VirtioNetHeader.GSO_UDP);
            case UNKNOWN_GSO_TYPE -> header.gsoType(2);
            case ECN_WITHOUT_HOST_ECN -> {
                header.gsoType(VirtioNetHeader.GSO_TCPV4 | VirtioNetHeader.GSO_ECN);
                features &= ~(1L << VirtioNet.F_HOST_ECN);
            }
            case GSO_WITHOUT_NEEDS_CSUM -> header.flags(0);
            case HDR_LEN_PAST_THE_FRAME -> header.hdrLen(length + 1);
            case GSO_SIZE_ZERO -> header.gsoSize(0);
            case TCPV4_ON_AN_IPV6_FRAME -> header.gsoType(VirtioNetHeader.GSO_TCPV4);
            case TCPV6_ON_AN_IPV4_FRAME -> header.gsoType(VirtioNetHeader.GSO_TCPV6);
            case TCPV4_ON_A_UDP_PACKET -> NetworkOrder.put8(buf, FRAME + 14 + 9, 17);
            case TCPV4_ON_AN_IPV4_FRAGMENT -> NetworkOrder.put16(buf, FRAME + 14 + 6, 0x2000);
            case TCPV4_ON_A_TRUNCATED_TCP_HEADER -> {
                NetworkOrder.put8(buf, FRAME + l4 + 12, 15 << 4); // a 60-byte TCP header in a frame cut at 40
                header.hdrLen(0);
                length = l4 + 40;
            }
            case CSUM_START_NOT_AT_TCP -> header.csumStart(14);
            case CSUM_OFFSET_NOT_TCP_CHECKSUM -> header.csumOffset(6);
            case GSO_SIZE_OVER_THE_MTU -> header.gsoSize(1449 + 12); // 20 + 32 + 1461 > 1500
            case SEGMENT_COUNT_OVERFLOW -> header.gsoSize(20_000 / TxOffload.MAX_SEGMENTS - 1);
            default -> throw new AssertionError(lie);
        }
        assertEquals(lie.refusal, deliver(length, features));
        assertTrue(out.frames.isEmpty(), "nothing reached the model");
    }

    @Test
    void segmentingAndCompletingAllocateNothing() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        byte[] payload = BackendFixture.randomBytes(30_000, 5);
        long[] frames = new long[1];
        FrameReceiver count = (s, o, l) -> frames[0]++;
        int length = build(buf, FRAME, false, false, payload, 1, TcpHeader.ACK, 1, true);
        BytesStore<?, Void> copy = BytesStore.nativeStoreWithFixedCapacity(NET_HEADER_SIZE + length);
        gso(buf, HDR, VirtioNetHeader.GSO_TCPV4, 1448, 0, l4(false, false));
        copy.write(0, buf, 0, NET_HEADER_SIZE + length);
        try {
            long before = 0;
            for (int round = 0; round < 3; round++) { // the last round after the JIT has had its go
                before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 2_000; i++) {
                    buf.write(0, copy, 0, NET_HEADER_SIZE + length);
                    assertNull(offload.deliver(buf, HDR, FRAME, length, ALL, MTU, count));
                }
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            // one object per segment would be 670 KB or more; what is left is the JIT's and the runtime's own
            assertTrue(allocated < 16 * 1024, allocated + " bytes allocated for 2000 super-frames");
            assertEquals(3 * 2_000 * 21, frames[0]);
        } finally {
            copy.releaseLast();
        }
    }

    private TcpPacket.Status validate(long at, int length) {
        return new TcpPacket().wrap(buf, at, length).validate();
    }

    private byte[] bytes(long at, int length) {
        byte[] b = new byte[length];
        buf.read(at, b, 0, length);
        return b;
    }
}
