package dev.irdmaemu.bridge.vhost;

import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.InternetChecksum;
import dev.irdmaemu.fw.frame.Ipv4Header;
import dev.irdmaemu.fw.frame.Ipv6Header;
import dev.irdmaemu.fw.frame.TcpHeader;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Large receives to the guest (GUEST_TSO4, GUEST_TSO6): in-order TCP segments of one flow that the model sends in
 * one round are held and handed to the guest as one super-frame behind a GSO header (virtio 1.2 §5.1.6.4: gso_type
 * TCPV4 or TCPV6, gso_size the segments' payload size, NEEDS_CSUM with csum_start/csum_offset on the TCP checksum,
 * which holds the pseudo-header's sum), so the guest's stack takes one packet, not dozens. The model and its pcap
 * still see every segment as it was sent.
 *
 * <p>A segment joins the run held when it is TCP over IPv4 (no options, not a fragment, header checksum good) or
 * IPv6 (no extension headers) with a good TCP checksum, flags ACK or ACK|PSH only, data in it, the next sequence
 * number, every header byte equal to the first segment's but lengths, IPv4 identification, sequence number, flags
 * and checksums, and the run has room (an IP packet of at most 65535 bytes). Its payload size must not exceed the
 * first's; a shorter one ends the run. PSH does not end it (the model, as irdma does, sets PSH on every segment it
 * sends; the data of a run reaches the guest at once anyway): the super-frame has PSH when a segment had it.
 * Anything else is not held: the caller hands on what is held first, then that frame as it is. Not thread-safe: its connection's lock guards it; nothing is allocated per frame.
 */
final class RxCoalescer {
    /** The largest super-frame: an IPv4 or IPv6 packet of 65535 bytes behind a tagged Ethernet header. */
    static final int MAX_HELD = EthernetFrame.TAGGED_HEADER_LENGTH + 65535;

    private final BytesStore<?, Void> held = BytesStore.nativeStoreWithFixedCapacity(MAX_HELD);
    private final EthernetFrame ethernet = new EthernetFrame();
    private final Ipv4Header ipv4 = new Ipv4Header();
    private final Ipv6Header ipv6 = new Ipv6Header();
    private final TcpHeader tcp = new TcpHeader();
    private final RxChecksum checksum = new RxChecksum();

    // the frame last looked at by candidate()
    private int cL3;
    private int cL4;
    private int cHeaders;
    private boolean cV6;
    private long cSeq;
    private int cFlags;

    // the run held
    private int length;
    private int segments;
    private int l3;
    private int l4;
    private int headers;
    private boolean v6;
    private int mss;
    private long nextSeq;
    private boolean ended;
    private boolean push;

    int segments() {
        return segments;
    }

    int length() {
        return length;
    }

    BytesStore<?, Void> store() {
        return held;
    }

    /**
     * True when the frame may be held: TCP data segment of the kind described above, over an IP version whose
     * GUEST_TSO bit was negotiated. Remembers what it parsed for {@link #joins} and {@link #add}.
     */
    boolean candidate(BytesStore<?, ?> s, long off, int len, boolean tso4, boolean tso6) {
        ethernet.wrap(s, off, len);
        if (!ethernet.validate().accepted()) {
            return false;
        }
        int a = ethernet.headerLength();
        int type = ethernet.etherType();
        int b;
        if (type == EthernetFrame.ETHERTYPE_IPV4 && tso4) {
            ipv4.wrap(s, off + a, len - a);
            if (!ipv4.validate().accepted() || ipv4.headerLength() != Ipv4Header.MIN_HEADER_LENGTH
                    || ipv4.protocol() != InternetChecksum.PROTOCOL_TCP || ipv4.totalLength() != len - a) {
                return false;
            }
            b = a + Ipv4Header.MIN_HEADER_LENGTH;
            cV6 = false;
        } else if (type == EthernetFrame.ETHERTYPE_IPV6 && tso6) {
            ipv6.wrap(s, off + a, len - a);
            if (!ipv6.validate().accepted() || ipv6.nextHeader() != InternetChecksum.PROTOCOL_TCP
                    || ipv6.payloadLength() != len - a - Ipv6Header.HEADER_LENGTH) {
                return false;
            }
            b = a + Ipv6Header.HEADER_LENGTH;
            cV6 = true;
        } else {
            return false;
        }
        tcp.wrap(s, off + b, len - b);
        int th = tcp.headerLength();
        int flags = tcp.flags();
        if (th < TcpHeader.MIN_HEADER_LENGTH || b + th >= len
                || (flags != TcpHeader.ACK && flags != (TcpHeader.ACK | TcpHeader.PSH))
                || !checksum.tcpChecksumValid(s, off, len)) {
            return false;
        }
        cL3 = a;
        cL4 = b;
        cHeaders = b + th;
        cSeq = tcp.sequenceNumber();
        cFlags = flags;
        return true;
    }

    /** The candidate just looked at continues the run held. */
    boolean joins(BytesStore<?, ?> s, long off, int len) {
        if (segments == 0 || ended || cV6 != v6 || cL3 != l3 || cL4 != l4 || cHeaders != headers
                || cSeq != nextSeq || len - headers > mss || length + len - headers > l3 + 65535) {
            return false;
        }
        for (int i = 0; i < headers; i++) {
            if (variable(i)) {
                continue;
            }
            if (held.readByte(i) != s.readByte(off + i)) {
                return false;
            }
        }
        return true;
    }

    /** Header bytes that differ between segments of one run: IP lengths, IPv4 id and checksum, TCP seq/flags/sum. */
    private boolean variable(int i) {
        int r3 = i - l3;
        if (v6 ? r3 == 4 || r3 == 5 : r3 >= 2 && r3 < 6 || r3 == 10 || r3 == 11) {
            return true;
        }
        int r4 = i - l4;
        return r4 >= 4 && r4 < 8 || r4 == 13 || r4 == 16 || r4 == 17;
    }

    /** Holds the candidate: a new run when none is held, else appended (the caller checked {@link #joins}). */
    void add(BytesStore<?, ?> s, long off, int len) {
        int payload = len - cHeaders;
        if (segments == 0) {
            held.write(0, s, off, len);
            length = len;
            l3 = cL3;
            l4 = cL4;
            headers = cHeaders;
            v6 = cV6;
            mss = payload;
            push = false;
            ended = false;
        } else {
            held.write(length, s, off + headers, payload);
            length += payload;
            if (payload < mss) {
                ended = true;
            }
        }
        if ((cFlags & TcpHeader.PSH) != 0) {
            push = true;
        }
        nextSeq = (cSeq + payload) & 0xffff_ffffL;
        segments++;
    }

    /**
     * Makes the run held one super-frame (IP lengths, IPv4 header checksum, PSH if a segment had it, the TCP checksum
     * field seeded with the pseudo-header's sum) and writes its virtio-net header into {@code header}. Only for a run
     * of two segments or more; a single segment goes as it came.
     */
    void finish(VirtioNetHeader header) {
        int tcpLength = length - l4;
        long pseudo;
        if (v6) {
            NetworkOrder.put16(held, l3 + 4, tcpLength);
            ipv6.wrap(held, l3, length - l3);
            pseudo = InternetChecksum.ipv6PseudoHeaderSum(ipv6.sourceHi(), ipv6.sourceLo(), ipv6.destinationHi(),
                    ipv6.destinationLo(), tcpLength, InternetChecksum.PROTOCOL_TCP);
        } else {
            NetworkOrder.put16(held, l3 + 2, length - l3);
            NetworkOrder.put16(held, l3 + 10, 0);
            NetworkOrder.put16(held, l3 + 10, InternetChecksum.checksum(held, l3, Ipv4Header.MIN_HEADER_LENGTH));
            ipv4.wrap(held, l3, length - l3);
            pseudo = InternetChecksum.ipv4PseudoHeaderSum(ipv4.source(), ipv4.destination(),
                    InternetChecksum.PROTOCOL_TCP, tcpLength);
        }
        if (push) {
            NetworkOrder.put8(held, l4 + 13, TcpHeader.ACK | TcpHeader.PSH);
        }
        NetworkOrder.put16(held, l4 + 16, InternetChecksum.fold(pseudo));
        header.clear().flags(VirtioNetHeader.F_NEEDS_CSUM)
                .gsoType(v6 ? VirtioNetHeader.GSO_TCPV6 : VirtioNetHeader.GSO_TCPV4).hdrLen(headers).gsoSize(mss)
                .csumStart(l4).csumOffset(16);
    }

    /** Forgets the run held (handed on, or dropped). */
    void clear() {
        segments = 0;
        length = 0;
    }

    void release() {
        held.releaseLast();
    }
}
