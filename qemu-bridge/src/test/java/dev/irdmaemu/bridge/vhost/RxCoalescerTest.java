package dev.irdmaemu.bridge.vhost;

import static dev.irdmaemu.bridge.vhost.OffloadFrames.build;
import static dev.irdmaemu.bridge.vhost.OffloadFrames.headers;
import static dev.irdmaemu.bridge.vhost.OffloadFrames.l4;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.frame.InternetChecksum;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import java.io.ByteArrayOutputStream;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link RxCoalescer}: which segments join a run, and the super-frame a run makes. */
class RxCoalescerTest {
    private static final int MSS = 1448;

    private final RxCoalescer c = new RxCoalescer();
    private final BytesStore<?, Void> seg = BytesStore.nativeStoreWithFixedCapacity(4096);
    private final BytesStore<?, Void> hdrStore = BytesStore.nativeStoreWithFixedCapacity(VirtioNet.NET_HEADER_SIZE);
    private final VirtioNetHeader header = new VirtioNetHeader();

    @AfterEach
    void release() {
        c.release();
        seg.releaseLast();
        hdrStore.releaseLast();
    }

    /** Offers a segment the way the connection does; answers whether it joined the run held (or started one). */
    private boolean offer(int length) {
        if (!c.candidate(seg, 0, length, true, true)) {
            return false;
        }
        if (c.segments() > 0 && !c.joins(seg, 0, length)) {
            return false;
        }
        c.add(seg, 0, length);
        return true;
    }

    private int segment(boolean v6, byte[] payload, long seq, int flags) {
        return build(seg, 0, v6, false, payload, seq, flags, (int) seq & 0xffff, false);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void inOrderSegmentsMakeOneSuperFrameThatCompletesToAValidPacket(boolean v6) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        long seq = 0xffff_fa00L; // wraps inside the run
        for (int k = 0; k < 5; k++) {
            byte[] p = BackendFixture.randomBytes(k < 4 ? MSS : 300, k);
            all.write(p, 0, p.length);
            assertTrue(offer(segment(v6, p, seq, TcpHeader.ACK | (k == 2 ? TcpHeader.PSH : 0))), "segment " + k);
            seq += p.length;
        }
        assertEquals(5, c.segments());
        header.wrap(hdrStore, 0);
        c.finish(header);
        int length = c.length();
        BytesStore<?, Void> s = c.store();
        assertEquals(VirtioNetHeader.F_NEEDS_CSUM, header.flags());
        assertEquals(v6 ? VirtioNetHeader.GSO_TCPV6 : VirtioNetHeader.GSO_TCPV4, header.gsoType());
        assertEquals(MSS, header.gsoSize());
        assertEquals(headers(v6, false), header.hdrLen());
        assertEquals(l4(v6, false), header.csumStart());
        assertEquals(16, header.csumOffset());
        // what the guest's stack does with NEEDS_CSUM: complete from csum_start to the end
        int start = header.csumStart();
        NetworkOrder.put16(s, start + 16, InternetChecksum.checksum(s, start, length - start));
        TcpPacket packet = new TcpPacket().wrap(s, 0, length);
        assertEquals(TcpPacket.Status.ACCEPTED, packet.validate());
        assertEquals(0xffff_fa00L, packet.tcp().sequenceNumber());
        assertEquals(TcpHeader.ACK | TcpHeader.PSH, packet.tcp().flags(), "PSH of a segment is kept");
        byte[] joined = new byte[(int) packet.tcpPayloadLength()];
        s.read(packet.tcpPayloadOffset(), joined, 0, joined.length);
        assertArrayEquals(all.toByteArray(), joined);
    }

    @Test
    void holdingAndFinishingAllocateNothing() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        header.wrap(hdrStore, 0);
        byte[] payload = BackendFixture.randomBytes(MSS, 9);
        segment(false, payload, 0, TcpHeader.ACK); // built once (the builder allocates); then only re-sequenced
        long before = 0;
        for (int round = 0; round < 3; round++) {
            before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 2_000; i++) {
                long seq = 0;
                for (int k = 0; k < 20; k++) {
                    assertTrue(offer(reseq(seq)));
                    seq += MSS;
                }
                c.finish(header);
                c.clear();
            }
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        // one object per segment would be 640 KB or more; what is left is the JIT's and the runtime's own
        assertTrue(allocated < 16 * 1024, allocated + " bytes allocated for 2000 runs of 20 segments");
    }

    private int segmentLength;

    /** The segment in {@link #seg} with sequence number {@code seq} (checksum rewritten), no allocation. */
    private int reseq(long seq) {
        if (segmentLength == 0) {
            segmentLength = headers(false, false) + MSS;
        }
        NetworkOrder.put32(seg, l4(false, false) + 4, (int) seq);
        TcpHeader.writeChecksumIpv4(seg, l4(false, false), segmentLength - l4(false, false), OffloadFrames.GUEST_V4,
                OffloadFrames.NODE_V4);
        return segmentLength;
    }

    @Test
    void aShortSegmentEndsTheRun() {
        assertTrue(offer(segment(false, new byte[MSS], 0, TcpHeader.ACK)));
        assertTrue(offer(segment(false, new byte[100], MSS, TcpHeader.ACK)));
        assertFalse(offer(segment(false, new byte[MSS], MSS + 100, TcpHeader.ACK)));
        assertEquals(2, c.segments());
    }

    @Test
    void aGapOrARetransmissionDoesNotJoin() {
        assertTrue(offer(segment(false, new byte[MSS], 1000, TcpHeader.ACK)));
        assertFalse(offer(segment(false, new byte[MSS], 1000 + 2 * MSS, TcpHeader.ACK)), "a gap");
        assertFalse(offer(segment(false, new byte[MSS], 1000, TcpHeader.ACK)), "a retransmission");
        assertFalse(offer(segment(false, new byte[MSS + 1], 1000 + MSS, TcpHeader.ACK)), "longer than the first");
        assertEquals(1, c.segments());
    }

    @Test
    void anotherFlowOrAnotherAckDoesNotJoin() {
        assertTrue(offer(segment(false, new byte[MSS], 0, TcpHeader.ACK)));
        int length = segment(false, new byte[MSS], MSS, TcpHeader.ACK);
        NetworkOrder.put32(seg, l4(false, false) + 8, 78); // another acknowledgment number
        TcpHeader.writeChecksumIpv4(seg, l4(false, false), length - l4(false, false), OffloadFrames.GUEST_V4,
                OffloadFrames.NODE_V4);
        assertFalse(offer(length));
        assertFalse(offer(segment(true, new byte[MSS], MSS, TcpHeader.ACK)), "IPv6, not IPv4");
        assertEquals(1, c.segments());
    }

    @Test
    void onlyGoodDataSegmentsWithAckOrPshAreHeld() {
        assertFalse(offer(segment(false, new byte[0], 0, TcpHeader.ACK)), "no data");
        assertFalse(offer(segment(false, new byte[10], 0, TcpHeader.ACK | TcpHeader.FIN)), "FIN");
        assertFalse(offer(segment(false, new byte[10], 0, TcpHeader.SYN | TcpHeader.ACK)), "SYN");
        assertFalse(offer(segment(false, new byte[10], 0, TcpHeader.ACK | TcpHeader.CWR)), "CWR (no GUEST_ECN)");
        int length = segment(false, new byte[10], 0, TcpHeader.ACK);
        seg.writeByte(length - 1, (byte) 1); // the checksum no longer verifies
        assertFalse(offer(length), "a bad checksum");
        length = segment(false, new byte[10], 0, TcpHeader.ACK);
        assertFalse(c.candidate(seg, 0, length, false, true), "IPv4 without GUEST_TSO4");
        assertEquals(0, c.segments());
    }

    @Test
    void aRunStopsShortOfA64KibIpPacket() {
        int joined = 0;
        long seq = 0;
        while (offer(segment(false, new byte[MSS], seq, TcpHeader.ACK))) {
            joined++;
            seq += MSS;
        }
        assertEquals((65535 - 20 - 32) / MSS, joined);
        assertTrue(c.length() - 14 <= 65535);
    }
}
