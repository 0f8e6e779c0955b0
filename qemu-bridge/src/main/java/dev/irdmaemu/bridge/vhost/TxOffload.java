package dev.irdmaemu.bridge.vhost;

import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.InternetChecksum;
import dev.irdmaemu.fw.frame.Ipv4Header;
import dev.irdmaemu.fw.frame.Ipv6Header;
import dev.irdmaemu.fw.frame.TcpHeader;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The offloads of frames the guest transmits, done before the model sees them, so the model (and its pcap) sees the
 * wire as a NIC puts it there: frames no larger than the MTU with valid checksums.
 *
 * <ul>
 *   <li>Checksum completion (VIRTIO_NET_F_CSUM, virtio 1.2 §5.1.6.2): a frame flagged NEEDS_CSUM holds, at
 *       csum_start + csum_offset, the partial sum the driver seeded (the pseudo-header); the one's complement of the
 *       sum from csum_start to the end of the frame goes there.</li>
 *   <li>TCP segmentation (HOST_TSO4, HOST_TSO6, HOST_ECN): a TCP super-frame is cut into segments of gso_size payload
 *       bytes, each with the super-frame's headers: IPv4 total length, identification (+1 per segment) and header
 *       checksum, or IPv6 payload length; TCP sequence number; FIN and PSH on the last segment only, CWR on the
 *       first only; the TCP checksum over the IPv4 or IPv6 pseudo-header.</li>
 * </ul>
 *
 * The super-frame is cut in place: segment k's headers are written just before its payload, over the tail of the
 * segment already handed on (the receiver takes each frame's bytes during its call only). Nothing is allocated per
 * frame. A header that lies (fields out of bounds, offloads not negotiated, a segment over the MTU, too many
 * segments, not TCP) drops the frame with a {@link Refusal}: the guest's ring stays healthy, only that frame is lost.
 * Not thread-safe: its connection's lock guards it.
 */
final class TxOffload {
    /** Why a frame from the guest was dropped by its virtio-net header. */
    enum Refusal {
        /** flags other than NEEDS_CSUM (DATA_VALID and RSC_INFO are the device's to set, §5.1.6.2). */
        BAD_FLAGS,
        /** NEEDS_CSUM without VIRTIO_NET_F_CSUM negotiated. */
        CSUM_NOT_NEGOTIATED,
        /** csum_start or csum_start + csum_offset + 2 past the end of the frame. */
        CSUM_OUT_OF_BOUNDS,
        /** a gso_type this back-end does not segment (UDP, unknown) or whose HOST_TSO bit was not negotiated. */
        GSO_NOT_NEGOTIATED,
        /** the ECN bit in gso_type without HOST_ECN negotiated. */
        ECN_NOT_NEGOTIATED,
        /** a gso_type without NEEDS_CSUM (§5.1.6.2: the driver sets both). */
        GSO_WITHOUT_CSUM,
        /** hdr_len past the end of the frame. */
        HDR_LEN_OUT_OF_BOUNDS,
        /** gso_size 0 with a gso_type. */
        GSO_SIZE_ZERO,
        /** the frame is not TCP over the IP version its gso_type names (or is an IPv4 fragment, a short header). */
        NOT_TCP,
        /** csum_start and csum_offset of a GSO frame do not name its TCP checksum field. */
        CSUM_NOT_TCP,
        /** a segment (IP header, TCP header, gso_size bytes) larger than the MTU. */
        SEGMENT_OVER_MTU,
        /** more segments than {@link #MAX_SEGMENTS}. */
        TOO_MANY_SEGMENTS
    }

    /**
     * The most segments one super-frame may make: a 64 KiB TCP super-frame at an MSS of 536 (the smallest IPv4
     * default, RFC 9293 §3.7.1) makes 123, so 256 covers every real guest, and keeps a lying gso_size of 1 from making
     * the bridge write 65535 frames for one.
     */
    static final int MAX_SEGMENTS = 256;
    /** The largest header template: a tagged Ethernet header, a 60-byte IPv4 header, a 60-byte TCP header. */
    private static final int MAX_HEADERS = EthernetFrame.TAGGED_HEADER_LENGTH + 60 + TcpHeader.MAX_HEADER_LENGTH;
    private static final int TCP_CHECKSUM = 16;
    private static final int TCP_SEQUENCE = 4;
    private static final int TCP_FLAGS = 13;
    private static final int IPV4_TOTAL_LENGTH = 2;
    private static final int IPV4_ID = 4;
    private static final int IPV4_CHECKSUM = 10;
    private static final int IPV6_PAYLOAD_LENGTH = 4;

    private final VirtioNetHeader header = new VirtioNetHeader();
    private final EthernetFrame ethernet = new EthernetFrame();
    private final Ipv4Header ipv4 = new Ipv4Header();
    private final Ipv6Header ipv6 = new Ipv6Header();
    private final TcpHeader tcp = new TcpHeader();
    private final BytesStore<?, Void> template = BytesStore.nativeStoreWithFixedCapacity(MAX_HEADERS);

    /**
     * Hands the frame of {@code length} bytes at {@code frame}, whose virtio-net header is at {@code hdr} in the same
     * store, to {@code out}: as it is, with its checksum completed, or cut into segments. Answers null when it was
     * handed on, else why it was dropped. The frame's bytes may be changed.
     *
     * @param features the negotiated virtio feature bits
     * @param mtu      the largest IP packet a segment may be
     */
    Refusal deliver(BytesStore<?, ?> store, long hdr, long frame, int length, long features, int mtu,
                    FrameReceiver out) {
        header.wrap(store, hdr);
        int flags = header.flags();
        int gsoType = header.gsoType();
        if (flags == 0 && gsoType == VirtioNetHeader.GSO_NONE) {
            out.frame(store, frame, length);
            return null;
        }
        if ((flags & ~VirtioNetHeader.F_NEEDS_CSUM) != 0) {
            return Refusal.BAD_FLAGS;
        }
        boolean needsCsum = flags == VirtioNetHeader.F_NEEDS_CSUM;
        if (needsCsum && !has(features, VirtioNet.F_CSUM)) {
            return Refusal.CSUM_NOT_NEGOTIATED;
        }
        int csumStart = header.csumStart();
        int csumOffset = header.csumOffset();
        if (needsCsum && (csumStart > length || csumStart + csumOffset + 2 > length)) {
            return Refusal.CSUM_OUT_OF_BOUNDS;
        }
        if (gsoType == VirtioNetHeader.GSO_NONE) {
            completeChecksum(store, frame, length, csumStart, csumOffset);
            out.frame(store, frame, length);
            return null;
        }
        return segment(store, frame, length, gsoType, needsCsum, csumStart, csumOffset, features, mtu, out);
    }

    private Refusal segment(BytesStore<?, ?> store, long frame, int length, int gsoType, boolean needsCsum,
                            int csumStart, int csumOffset, long features, int mtu, FrameReceiver out) {
        Refusal refusal = gsoRefusal(gsoType, needsCsum, features, length);
        if (refusal != null) {
            return refusal;
        }
        int mss = header.gsoSize();
        boolean v4 = (gsoType & ~VirtioNetHeader.GSO_ECN) == VirtioNetHeader.GSO_TCPV4;
        refusal = wrapTcpHeaders(store, frame, length, v4);
        if (refusal != null) {
            return refusal;
        }
        int l3Length = l3Length(v4);
        int tcpLength = tcp.headerLength();
        int l4 = ethernet.headerLength() + l3Length;
        if (csumStart != l4 || csumOffset != TCP_CHECKSUM) {
            return Refusal.CSUM_NOT_TCP;
        }
        int headers = l4 + tcpLength;
        int payload = length - headers;
        int first = Math.min(mss, payload);
        if (l3Length + tcpLength + first > mtu) {
            return Refusal.SEGMENT_OVER_MTU;
        }
        int segments = payload == 0 ? 1 : (payload - 1) / mss + 1;
        if (segments > MAX_SEGMENTS) {
            return Refusal.TOO_MANY_SEGMENTS;
        }
        holdTemplate(store, frame, headers, v4);
        for (int k = 0; k < segments; k++) {
            int size = Math.min(mss, payload - k * mss);
            long at = frame + (long) k * mss;
            if (k > 0) {
                store.write(at, template, 0, headers);
            }
            writeSegmentHeaders(store, at, v4, k, segments, mss, size);
            out.frame(store, at, headers + size);
        }
        return null;
    }

    /**
     * Why the header's GSO request cannot be honoured before the frame is looked at: its TCP version or ECN not
     * negotiated, no NEEDS_CSUM, hdr_len past the frame, gso_size 0; null when none applies.
     */
    private Refusal gsoRefusal(int gsoType, boolean needsCsum, long features, int length) {
        int type = gsoType & ~VirtioNetHeader.GSO_ECN;
        if (!(type == VirtioNetHeader.GSO_TCPV4 && has(features, VirtioNet.F_HOST_TSO4))
                && !(type == VirtioNetHeader.GSO_TCPV6 && has(features, VirtioNet.F_HOST_TSO6))) {
            return Refusal.GSO_NOT_NEGOTIATED;
        }
        if ((gsoType & VirtioNetHeader.GSO_ECN) != 0 && !has(features, VirtioNet.F_HOST_ECN)) {
            return Refusal.ECN_NOT_NEGOTIATED;
        }
        if (!needsCsum) {
            return Refusal.GSO_WITHOUT_CSUM;
        }
        if (header.hdrLen() > length) {
            return Refusal.HDR_LEN_OUT_OF_BOUNDS;
        }
        if (header.gsoSize() == 0) {
            return Refusal.GSO_SIZE_ZERO;
        }
        return null;
    }

    /**
     * Wraps the flyweights over the super-frame's headers: Ethernet (one VLAN tag at most), IPv4 without fragments
     * or IPv6 without extension headers, then TCP, each inside the frame; NOT_TCP when they are not that, else null.
     */
    private Refusal wrapTcpHeaders(BytesStore<?, ?> store, long frame, int length, boolean v4) {
        ethernet.wrap(store, frame, length);
        if (!ethernet.validate().accepted()
                || ethernet.etherType() != (v4 ? EthernetFrame.ETHERTYPE_IPV4 : EthernetFrame.ETHERTYPE_IPV6)) {
            return Refusal.NOT_TCP;
        }
        int l3 = ethernet.headerLength();
        if (v4) {
            ipv4.wrap(store, frame + l3, length - l3);
            int l3Length = ipv4.headerLength();
            if (length - l3 < Ipv4Header.MIN_HEADER_LENGTH || ipv4.version() != 4 || l3Length < 20
                    || l3 + l3Length > length || ipv4.protocol() != InternetChecksum.PROTOCOL_TCP
                    || ipv4.moreFragments() || ipv4.fragmentOffset() != 0) {
                return Refusal.NOT_TCP;
            }
        } else {
            ipv6.wrap(store, frame + l3, length - l3);
            if (length - l3 < Ipv6Header.HEADER_LENGTH || ipv6.version() != 6
                    || ipv6.nextHeader() != InternetChecksum.PROTOCOL_TCP) {
                return Refusal.NOT_TCP;
            }
        }
        int l4 = l3 + l3Length(v4);
        tcp.wrap(store, frame + l4, length - l4);
        int tcpLength = tcp.headerLength();
        if (length - l4 < TcpHeader.MIN_HEADER_LENGTH || tcpLength < TcpHeader.MIN_HEADER_LENGTH
                || l4 + tcpLength > length) {
            return Refusal.NOT_TCP;
        }
        return null;
    }

    /** The IP header's length: IPv4's IHL, IPv6's fixed 40 bytes. */
    private int l3Length(boolean v4) {
        return v4 ? ipv4.headerLength() : Ipv6Header.HEADER_LENGTH;
    }

    /**
     * Copies the super-frame's {@code headers} bytes into the template every segment's headers start from, and
     * wraps the flyweights over that copy: segment 0's headers are changed in place, and later segments' headers
     * are written over segment 0's bytes, so the original fields are read from the template only.
     */
    private void holdTemplate(BytesStore<?, ?> store, long frame, int headers, boolean v4) {
        int tcpLength = tcp.headerLength();
        template.write(0, store, frame, headers);
        ethernet.wrap(template, 0, headers);
        int l3 = ethernet.headerLength();
        if (v4) {
            ipv4.wrap(template, l3, headers - l3);
        } else {
            ipv6.wrap(template, l3, headers - l3);
        }
        tcp.wrap(template, headers - tcpLength, tcpLength);
    }

    /**
     * Segment {@code k} of {@code segments} (its headers at {@code at}, {@code size} payload bytes): the TCP sequence
     * number advanced by k·mss, FIN and PSH on the last only, CWR on the first only, the IP lengths (and IPv4's
     * identification and header checksum), then the TCP checksum over the pseudo-header.
     */
    private void writeSegmentHeaders(BytesStore<?, ?> store, long at, boolean v4, int k, int segments, int mss,
                                     int size) {
        int l3 = ethernet.headerLength();
        int l3Length = l3Length(v4);
        int f = tcp.flags();
        if (k < segments - 1) {
            f &= ~(TcpHeader.FIN | TcpHeader.PSH);
        }
        if (k > 0) {
            f &= ~TcpHeader.CWR;
        }
        long t = at + l3 + l3Length;
        NetworkOrder.put32(store, t + TCP_SEQUENCE, (int) (tcp.sequenceNumber() + (long) k * mss));
        NetworkOrder.put8(store, t + TCP_FLAGS, f);
        int segmentTcp = tcp.headerLength() + size;
        long pseudo;
        if (v4) {
            long ip = at + l3;
            NetworkOrder.put16(store, ip + IPV4_TOTAL_LENGTH, l3Length + segmentTcp);
            NetworkOrder.put16(store, ip + IPV4_ID, (ipv4.identification() + k) & 0xffff);
            NetworkOrder.put16(store, ip + IPV4_CHECKSUM, 0);
            NetworkOrder.put16(store, ip + IPV4_CHECKSUM, InternetChecksum.checksum(store, ip, l3Length));
            pseudo = InternetChecksum.ipv4PseudoHeaderSum(ipv4.source(), ipv4.destination(),
                    InternetChecksum.PROTOCOL_TCP, segmentTcp);
        } else {
            NetworkOrder.put16(store, at + l3 + IPV6_PAYLOAD_LENGTH, segmentTcp);
            pseudo = InternetChecksum.ipv6PseudoHeaderSum(ipv6.sourceHi(), ipv6.sourceLo(), ipv6.destinationHi(),
                    ipv6.destinationLo(), segmentTcp, InternetChecksum.PROTOCOL_TCP);
        }
        TcpHeader.writeChecksum(store, t, segmentTcp, pseudo);
    }

    /** UDP's checksum field offset: a computed 0 is sent as 0xffff there (RFC 768; 0 means "no checksum"). */
    private static final int UDP_CHECKSUM = 6;

    /** The one's complement of the sum from csum_start to the end, at csum_start + csum_offset. */
    private static void completeChecksum(BytesStore<?, ?> store, long frame, int length, int start, int offset) {
        long field = frame + start + offset;
        int sum = InternetChecksum.checksum(store, frame + start, length - start);
        NetworkOrder.put16(store, field, sum == 0 && offset == UDP_CHECKSUM ? 0xffff : sum);
    }

    private static boolean has(long features, int bit) {
        return (features & 1L << bit) != 0;
    }

    void release() {
        template.releaseLast();
    }
}
