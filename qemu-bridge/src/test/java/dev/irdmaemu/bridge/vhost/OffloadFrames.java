package dev.irdmaemu.bridge.vhost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.frame.InternetChecksum;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import java.io.ByteArrayOutputStream;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;

/** TCP super-frames behind a virtio-net header, as a guest's driver hands them over, and checks of what comes out. */
final class OffloadFrames {
    static final long GUEST_MAC = 0x02005e000002L;
    static final long NODE_MAC = 0x02005e000001L;
    static final int GUEST_V4 = 0xc0000202;
    static final int NODE_V4 = 0xc0000201;
    /** The offloads and ring features a Linux guest takes. */
    static final long ALL = VirtioNet.OFFERED_FEATURES;
    static final int MTU = 1500;

    private OffloadFrames() {
    }

    /** The headers a built frame has: Ethernet (+ tag), IP, TCP with timestamps. */
    static int l4(boolean v6, boolean vlan) {
        return (vlan ? 18 : 14) + (v6 ? 40 : 20);
    }

    static int headers(boolean v6, boolean vlan) {
        return l4(v6, vlan) + 32;
    }

    /**
     * Writes a TCP frame with {@code payload} at {@code frame} (valid checksums, a seeded NEEDS_CSUM field when
     * {@code partial}), answers its length.
     */
    static int build(BytesStore<?, ?> buf, long frame, boolean v6, boolean vlan, byte[] payload, long seq,
                     int tcpFlags, int id, boolean partial) {
        TcpPacketBuilder b = new TcpPacketBuilder().ethernet(NODE_MAC, GUEST_MAC);
        if (vlan) {
            b.vlan(0, false, 5);
        }
        if (v6) {
            b.ipv6(0x20010db800000000L, 2, 0x20010db800000000L, 1);
        } else {
            b.ipv4(GUEST_V4, NODE_V4).identification(id);
        }
        b.tcp().ports(40000, 7174).sequenceNumber(seq).acknowledgmentNumber(77).flags(tcpFlags).window(500)
                .timestamps(1, 2);
        BytesStore<?, Void> p = BytesStore.nativeStoreWithFixedCapacity(Math.max(1, payload.length));
        p.write(0, payload);
        int length = b.build(buf, frame, p, 0, payload.length);
        p.releaseLast();
        if (partial) {
            // what a driver with CHECKSUM_PARTIAL leaves: the pseudo-header's folded sum, not complemented
            int l4 = l4(v6, vlan);
            int tcpLength = length - l4;
            long pseudo = v6 ? InternetChecksum.ipv6PseudoHeaderSum(0x20010db800000000L, 2, 0x20010db800000000L, 1,
                    tcpLength, 6) : InternetChecksum.ipv4PseudoHeaderSum(GUEST_V4, NODE_V4, 6, tcpLength);
            NetworkOrder.put16(buf, frame + l4 + 16, InternetChecksum.fold(pseudo));
        }
        return length;
    }

    /** Writes the virtio-net header of a TSO super-frame. */
    static void gso(BytesStore<?, ?> buf, long hdr, int type, int mss, int hdrLen, int csumStart) {
        new VirtioNetHeader().wrap(buf, hdr).clear().flags(VirtioNetHeader.F_NEEDS_CSUM).gsoType(type)
                .hdrLen(hdrLen).gsoSize(mss).csumStart(csumStart).csumOffset(16);
    }

    /**
     * Every frame is a valid TCP packet (IP and TCP checksums) within the MTU, sequence numbers follow, and their
     * payloads put together are {@code payload}; FIN/PSH only on the last, CWR only on the first. Answers the count.
     */
    static int assertSegmentsOf(List<byte[]> frames, byte[] payload, long seq, int tcpFlags, int mss, boolean v6,
                                boolean vlan, int id) {
        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        TcpPacket packet = new TcpPacket();
        long expectSeq = seq;
        for (int k = 0; k < frames.size(); k++) {
            byte[] f = frames.get(k);
            BytesStore<?, ?> s = BackendFixture.store(f);
            try {
                packet.wrap(s, 0, f.length);
                assertEquals(TcpPacket.Status.ACCEPTED, packet.validate(), "segment " + k);
                assertTrue(f.length - (vlan ? 18 : 14) <= MTU, "segment " + k + " of " + f.length + " bytes");
                assertEquals(expectSeq & 0xffffffffL, packet.tcp().sequenceNumber(), "segment " + k);
                int payloadLength = (int) packet.tcpPayloadLength();
                assertTrue(payloadLength <= mss);
                if (k < frames.size() - 1) {
                    assertEquals(mss, payloadLength, "every segment but the last is full");
                }
                int f0 = packet.tcp().flags();
                int keep = tcpFlags & ~(0x01 | 0x08 | 0x80);
                int expect = keep | (k == frames.size() - 1 ? tcpFlags & (0x01 | 0x08) : 0)
                        | (k == 0 ? tcpFlags & 0x80 : 0);
                assertEquals(expect, f0, "flags of segment " + k);
                if (!v6) {
                    assertEquals((id + k) & 0xffff, packet.ipv4().identification());
                }
                joined.write(f, (int) packet.tcpPayloadOffset(), payloadLength);
                expectSeq += payloadLength;
            } finally {
                s.releaseLast();
            }
        }
        org.junit.jupiter.api.Assertions.assertArrayEquals(payload, joined.toByteArray());
        return frames.size();
    }
}
