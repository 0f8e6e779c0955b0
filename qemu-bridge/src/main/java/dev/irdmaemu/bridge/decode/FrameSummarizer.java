package dev.irdmaemu.bridge.decode;

import dev.irdmaemu.fw.Check;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.frame.Ipv4Header;
import dev.irdmaemu.fw.frame.Ipv6Header;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.iwarp.DdpCheck;
import dev.irdmaemu.fw.iwarp.DdpHeader;
import dev.irdmaemu.fw.iwarp.Fpdu;
import dev.irdmaemu.fw.iwarp.FpduCheck;
import dev.irdmaemu.fw.iwarp.MpaCheck;
import dev.irdmaemu.fw.iwarp.MpaFrame;
import dev.irdmaemu.fw.iwarp.RdmaReadRequest;
import dev.irdmaemu.fw.iwarp.RdmaReadRequestCheck;
import dev.irdmaemu.fw.iwarp.RdmapOpcode;
import dev.irdmaemu.fw.iwarp.Terminate;
import dev.irdmaemu.fw.iwarp.TerminateCheck;
import dev.irdmaemu.fw.roce.RoceFrame;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * One-line summaries of the frames of a capture, in the spirit of tshark's summary line:
 * <pre>
 *  192.0.2.1 → 192.0.2.2 TCP 66 49152 → 4791 [SYN] Seq=0 Win=64240 Len=0 MSS=1460 SACK_PERM WS=128
 *  192.0.2.1 → 192.0.2.2 MPA 90 49152 → 4791 [PSH, ACK] Seq=1 Ack=1 Win=64256 Len=36 | MPA Req rev 2 [CRC,
 *      enhanced] PD 16 IRD 16 ORD 16 P2P RTR=write
 *  192.0.2.2 → 192.0.2.1 DDP/RDMA 94 4791 → 49152 [PSH, ACK] Seq=29 Ack=57 Win=64256 Len=40 | FPDU len 34 CRC ok
 *      DDP untagged QN 0 MSN 1 MO 0 L RDMAP Send 16 bytes
 * </pre>
 * Source → destination (IP addresses, or MACs for frames without a valid IP header), {@code [vlan N]} when
 * 802.1Q-tagged, the protocol, the frame length, then the layers (RoCEv2 frames as {@code RoceSummarizer} shows
 * them): TCP ports, flags, sequence and acknowledgment
 * numbers <em>relative</em> to each direction's SYN (or first segment seen) as tshark shows them, the window (scaled
 * once both SYNs announced a window scale, RFC 7323 §2.2), the payload length and the SYN options; after a
 * {@code |}, what the payload carries.
 *
 * <p>The summarizer is stateful: one instance decodes one capture, in order, and remembers each connection
 * ({@link StreamState}). MPA Request and Reply frames (RFC 5044 §7.1, RFC 6581) are recognized by their keys
 * before a connection's MPA exchange is complete; once the Reply accepted it, both directions carry FPDUs, with
 * a CRC if either frame had the C flag (RFC 5044 §7.1: CRC is used when either side asks). Before that,
 * payloads are {@code TCP payload N bytes}. Several FPDUs in one segment are shown one after the other (at most
 * {@link #MAX_FPDUS_SHOWN}, then {@code +N more}); a segment that starts inside an FPDU says so.
 *
 * <p>A checksum that does not verify is not malformed input: a capture taken on the sending host holds the partial
 * checksums that checksum offload leaves, so the line carries {@link #TCP_CHECKSUM_MARK} or
 * {@link #IPV4_CHECKSUM_MARK} after the TCP fields and the payload is decoded as for a good segment (as tshark
 * does). Hostile input is normal: a frame that fails a rule of its structure (a length, an offset, a truncation)
 * shows that check's {@code describe()} text and the byte offset from the start of the frame of the field that
 * failed ({@code TCP: data offset below 5 words at 46}), never an exception. Allocation per frame is small (a CLI), parsing uses the codecs' flyweights.
 */
public final class FrameSummarizer {
    /** IEEE 802.3 clause 3.1.1: destination (6), source (6), length/type (2). */
    public static final int ETHERNET_HEADER_LENGTH = 14;
    /** After the TCP fields of a segment whose TCP checksum (RFC 9293 §3.1) does not verify. */
    public static final String TCP_CHECKSUM_MARK = "[TCP CHECKSUM INCORRECT]";
    /** After a RoCEv2 packet whose UDP checksum (RFC 768) is present and does not verify. */
    public static final String UDP_CHECKSUM_MARK = "[UDP CHECKSUM INCORRECT]";
    /** After the fields of a packet whose IPv4 header checksum (RFC 791 §3.1) does not verify. */
    public static final String IPV4_CHECKSUM_MARK = "[IPv4 CHECKSUM INCORRECT]";
    /** FPDUs of one segment summarized in full; the rest are counted. */
    public static final int MAX_FPDUS_SHOWN = 4;

    /** IANA protocol numbers. */
    private static final int PROTOCOL_ICMP = 1;
    private static final int PROTOCOL_UDP = 17;
    private static final int PROTOCOL_ICMPV6 = 58;

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private final EthernetFrame ethernet = new EthernetFrame();
    private final TcpPacket packet = new TcpPacket();
    private final MpaFrame mpa = new MpaFrame();
    private final Fpdu fpdu = new Fpdu();
    private final DdpHeader ddp = new DdpHeader();
    private final RdmaReadRequest readRequest = new RdmaReadRequest();
    private final Terminate terminate = new Terminate();
    private final DdpHeader copiedDdp = new DdpHeader();
    private final RoceSummarizer roce = new RoceSummarizer();
    private final StreamState.Table streams = new StreamState.Table();
    private final StringBuilder info = new StringBuilder(512);
    private final StringBuilder discard = new StringBuilder(256);
    private String protocol;

    /**
     * Appends the summary of the frame at {@code [offset, offset + length)} of {@code frame} to {@code out}, and
     * learns from it (frames of one capture must be given in order).
     */
    public void summarize(BytesStore<?, ?> frame, long offset, int length, StringBuilder out) {
        if (length < 0 || offset < frame.start() || offset > frame.readLimit() - length) {
            out.append("frame outside its buffer (offset ").append(offset).append(", length ").append(length)
                    .append(')');
            return;
        }
        if (length < ETHERNET_HEADER_LENGTH) {
            out.append("short frame: ").append(length).append(" bytes, below the 14-byte Ethernet header");
            return;
        }
        EthernetFrame.Status es = ethernet.wrap(frame, offset, length).validate();
        if (!es.accepted()) {
            macs(out);
            out.append(" 802.1Q ").append(length).append(" Ethernet: ").append(es.describe()).append(" at ")
                    .append(ethernet.failedAt());
            return;
        }
        int type = ethernet.etherType();
        if (type == EthernetFrame.ETHERTYPE_IPV4 || type == EthernetFrame.ETHERTYPE_IPV6) {
            ip(frame, offset, length, out);
        } else if (type == EthernetFrame.ETHERTYPE_ARP) {
            arp(frame, offset + ethernet.payloadOffset(), ethernet.payloadLength(), length, out);
        } else {
            macs(out);
            vlan(out);
            out.append(' ');
            appendEtherType(type, out);
            out.append(' ').append(length);
        }
    }

    // ---- L2 / L3 ----------------------------------------------------------------------------------------------

    private void macs(StringBuilder out) {
        appendMac(ethernet.source(), out);
        out.append(" → ");
        appendMac(ethernet.destination(), out);
    }

    private void vlan(StringBuilder out) {
        if (ethernet.hasVlanTag()) {
            out.append(" [vlan ").append(ethernet.vlanId()).append(']');
        }
    }

    /** RFC 826: Ethernet/IPv4 ARP, 28 bytes. */
    private void arp(BytesStore<?, ?> frame, long at, long available, int length, StringBuilder out) {
        macs(out);
        vlan(out);
        out.append(" ARP ").append(length);
        if (available < 28 || u16(frame, at) != 1 || u16(frame, at + 2) != EthernetFrame.ETHERTYPE_IPV4
                || frame.readUnsignedByte(at + 4) != 6 || frame.readUnsignedByte(at + 5) != 4) {
            out.append(" (not Ethernet/IPv4 ARP)");
            return;
        }
        int op = u16(frame, at + 6);
        int spa = u32(frame, at + 14);
        int tpa = u32(frame, at + 24);
        if (op == 1) {
            IpAddress.formatIpv4(tpa, out.append(" Who has ")).append("? Tell ");
            IpAddress.formatIpv4(spa, out);
        } else if (op == 2) {
            IpAddress.formatIpv4(spa, out.append(' ')).append(" is at ");
            appendMac(u48(frame, at + 8), out);
        } else {
            out.append(" opcode ").append(op);
        }
    }

    private void ip(BytesStore<?, ?> frame, long offset, int length, StringBuilder out) {
        // structure only: a checksum that does not verify is a mark on the line, not a reason to stop (captures
        // taken on a sending host hold the partial checksums that checksum offload leaves)
        TcpPacket.Status s = packet.wrap(frame, offset, length).validateStructure();
        boolean v6 = ethernet.etherType() == EthernetFrame.ETHERTYPE_IPV6;
        if (s.accepted()) {
            tcp(frame, offset, length, out);
            return;
        }
        if (s == TcpPacket.Status.NOT_TCP) {
            notTcp(frame, offset, length, v6, out);
            ipv4ChecksumMark(out);
            return;
        }
        if (s.name().startsWith("TCP_")) {
            addresses(packet.sourceHi(), packet.sourceLo(), packet.destinationHi(), packet.destinationLo(), out);
            out.append(" TCP ").append(length).append(' ');
            failure(s, packet.failedAt(), out);
            ipv4ChecksumMark(out);
            return;
        }
        macs(out);
        vlan(out);
        out.append(v6 ? " IPv6 " : " IPv4 ").append(length).append(' ');
        failure(s, packet.failedAt(), out);
    }

    /** The mark of an IPv4 header checksum that does not verify (RFC 791 §3.1), after a structure check. */
    private void ipv4ChecksumMark(StringBuilder out) {
        if (!packet.ipv4ChecksumVerifies()) {
            out.append(' ').append(IPV4_CHECKSUM_MARK);
        }
    }

    private void addresses(long srcHi, long srcLo, long dstHi, long dstLo, StringBuilder out) {
        IpAddress.format(srcHi, srcLo, out).append(" → ");
        IpAddress.format(dstHi, dstLo, out);
        vlan(out);
    }

    /**
     * An IP packet that is not TCP: RoCEv2 to UDP port 4791 ({@code RoceSummarizer}), other UDP with its ports,
     * ICMP, or the protocol number.
     */
    private void notTcp(BytesStore<?, ?> frame, long offset, int length, boolean v6, StringBuilder out) {
        int protocol;
        long payloadAt;
        long payloadLength;
        if (v6) {
            Ipv6Header h = packet.ipv6();
            addresses(h.sourceHi(), h.sourceLo(), h.destinationHi(), h.destinationLo(), out);
            protocol = h.nextHeader();
            payloadAt = offset + packet.ipOffset() + Ipv6Header.HEADER_LENGTH;
            payloadLength = h.payloadLength();
        } else {
            Ipv4Header h = packet.ipv4();
            addresses(IpAddress.IPV4_MAPPED_HI, IpAddress.mappedLo(h.source()), IpAddress.IPV4_MAPPED_HI,
                    IpAddress.mappedLo(h.destination()), out);
            protocol = h.protocol();
            payloadAt = offset + packet.ipOffset() + h.payloadOffset();
            payloadLength = h.payloadLength();
        }
        if (protocol == PROTOCOL_UDP && payloadLength >= 8 && u16(frame, payloadAt + 2) == RoceFrame.UDP_PORT) {
            roce.summarize(frame, offset, length, out);
        } else if (protocol == PROTOCOL_UDP) {
            out.append(" UDP ").append(length);
            // RFC 768: source port, destination port, length, checksum; the IP layer bounded the payload
            if (payloadLength >= 8) {
                out.append(' ').append(u16(frame, payloadAt)).append(" → ").append(u16(frame, payloadAt + 2))
                        .append(" Len=").append(Math.max(0, u16(frame, payloadAt + 4) - 8));
            } else {
                out.append(" shorter than the 8-byte UDP header");
            }
        } else if (protocol == PROTOCOL_ICMP && !v6) {
            out.append(" ICMP ").append(length);
        } else if (protocol == PROTOCOL_ICMPV6 && v6) {
            out.append(" ICMPv6 ").append(length);
        } else {
            out.append(v6 ? " IPv6 " : " IPv4 ").append(length).append(" protocol ").append(protocol);
        }
    }

    // ---- TCP --------------------------------------------------------------------------------------------------

    private void tcp(BytesStore<?, ?> frame, long offset, int length, StringBuilder out) {
        TcpHeader t = packet.tcp();
        long srcHi = packet.sourceHi();
        long srcLo = packet.sourceLo();
        long dstHi = packet.destinationHi();
        long dstLo = packet.destinationLo();
        StreamState st = streams.lookup(srcHi, srcLo, t.sourcePort(), dstHi, dstLo, t.destinationPort());
        boolean zero = StreamState.sourceIsSideZero(srcHi, srcLo, t.sourcePort(), dstHi, dstLo, t.destinationPort());
        long seq = t.sequenceNumber();
        StreamState.Direction me = st.side[zero ? 0 : 1];
        boolean synRetransmission = me.synSeen && me.base == seq && me.next == ((seq + 1) & 0xffff_ffffL);
        if (t.syn() && !t.ack() && st.started() && !synRetransmission) {
            st.reset(); // a new connection on the same 4-tuple: start afresh
            me = st.side[zero ? 0 : 1];
        }
        StreamState.Direction peer = st.side[zero ? 1 : 0];

        int payloadLength = (int) t.payloadLength();
        if (t.syn()) {
            me.synSeen = true;
            me.baseKnown = true;
            me.base = seq;
            me.windowShift = t.hasWindowScale() ? t.windowScale() : -1;
        } else if (!me.baseKnown) {
            me.baseKnown = true;
            me.base = seq;
        }
        long end = (seq + payloadLength + (t.syn() ? 1 : 0) + (t.fin() ? 1 : 0)) & 0xffff_ffffL;
        boolean retransmission = payloadLength > 0 && me.nextKnown && TcpHeader.seqDelta(end, me.next) <= 0;
        if (!me.nextKnown || TcpHeader.seqBefore(me.next, end)) {
            me.nextKnown = true;
            me.next = end;
        }

        info.setLength(0);
        protocol = "TCP";
        ports(t, info);
        info.append(' ');
        appendFlags(t.flags(), info);
        info.append(" Seq=").append((seq - me.base) & 0xffff_ffffL);
        if (t.ack()) {
            long ack = t.acknowledgmentNumber();
            info.append(" Ack=").append(peer.baseKnown ? (ack - peer.base) & 0xffff_ffffL : ack);
        }
        long window = t.window();
        if (!t.syn() && st.windowScaling()) {
            window <<= me.windowShift;
        }
        info.append(" Win=").append(window).append(" Len=").append(payloadLength);
        if (t.hasMss()) {
            info.append(" MSS=").append(t.mss());
        }
        if (t.sackPermitted()) {
            info.append(" SACK_PERM");
        }
        if (t.hasTimestamps()) {
            info.append(" TSval=").append(t.tsVal()).append(" TSecr=").append(t.tsEcr());
        }
        if (t.hasWindowScale()) {
            // tshark shows the multiplier, 2^shift
            info.append(" WS=").append(1L << t.windowScale());
        }
        if (retransmission) {
            info.append(" [retransmission]");
        }
        ipv4ChecksumMark(info);
        if (!packet.tcpChecksumVerifies()) {
            info.append(' ').append(TCP_CHECKSUM_MARK);
        }
        if (payloadLength > 0) {
            payload(st, me, peer, frame, offset + packet.tcpPayloadOffset(), packet.tcpPayloadOffset(), seq,
                    payloadLength, retransmission);
        }
        addresses(srcHi, srcLo, dstHi, dstLo, out);
        out.append(' ').append(protocol).append(' ').append(length).append(' ').append(info);
    }

    private static void ports(TcpHeader t, StringBuilder out) {
        out.append(t.sourcePort()).append(" → ").append(t.destinationPort());
    }

    /** tshark's order and names: FIN, SYN, RST, PSH, ACK, URG, ECE, CWR (RFC 9293 §3.1, RFC 3168 §6.1). */
    static void appendFlags(int flags, StringBuilder out) {
        out.append('[');
        String[] names = {"FIN", "SYN", "RST", "PSH", "ACK", "URG", "ECE", "CWR"};
        boolean first = true;
        for (int bit = 0; bit < names.length; bit++) {
            if ((flags & 1 << bit) != 0) {
                out.append(first ? "" : ", ").append(names[bit]);
                first = false;
            }
        }
        if (first) {
            out.append("<none>");
        }
        out.append(']');
    }

    // ---- MPA, FPDUs -------------------------------------------------------------------------------------------

    /**
     * The TCP payload at absolute {@code at} ({@code frameAt} from the frame start), {@code length} bytes from
     * sequence number {@code seq}, by what the connection is known to carry.
     */
    private void payload(StreamState st, StreamState.Direction me, StreamState.Direction peer,
                         BytesStore<?, ?> frame, long at, long frameAt, long seq, int length, boolean retransmission) {
        int pos = 0;
        boolean beforeFpdus = st.phase == StreamState.Phase.TCP || st.phase == StreamState.Phase.REQUEST_SEEN;
        mpa.wrap(frame, at, length);
        boolean mpaKey = mpa.isRequest() || mpa.isReply();
        if (beforeFpdus && !mpaKey) {
            info.append(" | TCP payload ").append(length).append(" bytes");
            return;
        }
        // an MPA frame, or the retransmission of one after the exchange
        if (mpaKey && (beforeFpdus || retransmission)) {
            protocol = "MPA";
            int frameLength = length;
            if (length >= MpaFrame.HEADER_SIZE) {
                frameLength = Math.min(length, MpaFrame.HEADER_SIZE + mpa.privateDataLengthField());
                mpa.wrap(frame, at, frameLength);
            }
            info.append(" | ");
            MpaCheck c = mpa.validate();
            if (!c.accepted()) {
                info.append("MPA: ");
                failure(c, frameAt + mpa.failedAt(), info);
                return;
            }
            mpaFrame(info);
            if (!retransmission) {
                learnMpa(st, me, peer, seq, frameLength);
            }
            pos = frameLength;
            if (pos == length) {
                return;
            }
            if (st.phase != StreamState.Phase.FPDU) {
                info.append(" | TCP payload ").append(length - pos).append(" bytes after the MPA frame");
                return;
            }
        } else if (st.phase == StreamState.Phase.REJECTED) {
            info.append(" | TCP payload ").append(length).append(" bytes (MPA connection rejected)");
            return;
        }
        if (st.markers) {
            protocol = "MPA";
            info.append(" | FPDU: ").append(FpduCheck.MARKERS_NOT_SUPPORTED.describe());
            return;
        }
        if (pos == 0 && me.fpduKnown && !retransmission) {
            int before = TcpHeader.seqDelta(me.nextFpdu, seq);
            if (before >= length) {
                protocol = "DDP/RDMA";
                info.append(" | mid-FPDU: ").append(length).append(" bytes continue an earlier FPDU");
                if (before > length) {
                    info.append(", ").append(before - length).append(" more to its end");
                }
                return;
            }
            if (before > 0) {
                info.append(" | mid-FPDU: ").append(before).append(" bytes end an earlier FPDU");
                pos = before;
            } else if (before < 0) {
                info.append(" | ").append(-before).append(" bytes before this segment were not seen");
            }
        }
        fpdus(st, me, frame, at, frameAt, seq, length, pos, retransmission);
    }

    private void mpaFrame(StringBuilder out) {
        out.append("MPA ").append(mpa.isRequest() ? "Req" : "Rep").append(" rev ").append(mpa.revision());
        int flags = mpa.flags();
        if ((flags & 0xf0) != 0) {
            out.append(" [");
            boolean first = true;
            first = flag(mpa.requestsMarkers(), "markers", first, out);
            first = flag(mpa.requestsCrc(), "CRC", first, out);
            first = flag(mpa.isReject(), "reject", first, out);
            flag(mpa.isEnhanced(), "enhanced", first, out);
            out.append(']');
        }
        out.append(" PD ").append(mpa.privateDataLengthField());
        if (mpa.hasRtr()) {
            out.append(" IRD ");
            irdOrd(mpa.ird(), out);
            out.append(" ORD ");
            irdOrd(mpa.ord(), out);
            if (mpa.peerToPeer()) {
                out.append(" P2P");
            }
            out.append(" RTR=");
            boolean first = true;
            first = flag(mpa.zeroLengthFpduRtr(), "send", first, out);
            first = flag(mpa.rdma0WriteRtr(), "write", first, out);
            first = flag(mpa.rdma0ReadRtr(), "read", first, out);
            if (first) {
                out.append("none");
            }
        }
    }

    private static boolean flag(boolean set, String name, boolean first, StringBuilder out) {
        if (set) {
            out.append(first ? "" : ",").append(first ? "" : " ").append(name);
            return false;
        }
        return first;
    }

    private static void irdOrd(int value, StringBuilder out) {
        if (value == MpaFrame.NO_IRD_ORD) {
            out.append("none"); // RFC 6581 §5: 0x3fff means "no value"
        } else {
            out.append(value);
        }
    }

    /** An accepted MPA Request/Reply moves the connection on (RFC 5044 §7.1). */
    private void learnMpa(StreamState st, StreamState.Direction me, StreamState.Direction peer, long seq,
                          int frameLength) {
        me.fpduKnown = true;
        me.nextFpdu = (seq + frameLength) & 0xffff_ffffL;
        if (mpa.isRequest()) {
            me.requestedCrc = mpa.requestsCrc();
            me.requestedMarkers = mpa.requestsMarkers();
            st.phase = StreamState.Phase.REQUEST_SEEN;
        } else if (mpa.isReject()) {
            st.phase = StreamState.Phase.REJECTED;
        } else {
            st.phase = StreamState.Phase.FPDU;
            // RFC 5044 §7.1: CRC MUST be used if either side requested it; markers are refused by this decoder
            st.crc = mpa.requestsCrc() || peer.requestedCrc;
            st.markers = mpa.requestsMarkers() || peer.requestedMarkers;
        }
    }

    private void fpdus(StreamState st, StreamState.Direction me, BytesStore<?, ?> frame, long at, long frameAt,
                       long seq, int length, int pos, boolean retransmission) {
        protocol = "DDP/RDMA";
        int count = 0;
        boolean synced = true;
        long next = pos;
        while (pos < length) {
            count++;
            StringBuilder out = count <= MAX_FPDUS_SHOWN ? info : discard;
            discard.setLength(0);
            out.append(" | ");
            int remaining = length - pos;
            long fpduAt = frameAt + pos;
            // RFC 5044 §4.1: the 4-byte CRC field is present in every FPDU; without CRC in use it may hold any
            // value and is not checked (siw sends zeros there), so a mismatch then means nothing
            FpduCheck c = fpdu.wrap(frame, at + pos, remaining, true).validate();
            if (c == FpduCheck.TOO_SHORT || c == FpduCheck.ULPDU_TOO_SHORT) {
                out.append("FPDU: ");
                failure(c, fpduAt + fpdu.failedAt(), out);
                synced = false;
                break;
            }
            int total = fpdu.totalLength();
            out.append("FPDU len ").append(fpdu.ulpduLength());
            if (c == FpduCheck.INCOMPLETE) {
                out.append(", ").append(remaining).append(" of its ").append(total).append(" bytes here");
                ddp(frame, fpduAt, Math.min(fpdu.ulpduLength(), remaining - Fpdu.LENGTH_SIZE), out);
                next = pos + (long) total;
                pos = length;
                break;
            }
            if (!st.crc) {
                out.append(" CRC off");
            } else if (c == FpduCheck.CRC_MISMATCH) {
                out.append(" CRC BAD (received ");
                hex32(fpdu.receivedCrc(), out);
                out.append(", computed ");
                hex32(fpdu.computedCrc(), out);
                out.append(')');
            } else {
                out.append(" CRC ok");
            }
            ddp(frame, fpduAt, fpdu.ulpduLength(), out);
            pos += total;
            next = pos;
        }
        if (count > MAX_FPDUS_SHOWN) {
            info.append(" | +").append(count - MAX_FPDUS_SHOWN).append(" more FPDUs");
        }
        if (!retransmission) {
            me.fpduKnown = synced;
            me.nextFpdu = (seq + next) & 0xffff_ffffL;
        }
    }

    /** The DDP segment of the FPDU at frame offset {@code fpduAt}, {@code ulpdu} of its bytes present. */
    private void ddp(BytesStore<?, ?> frame, long fpduAt, int ulpdu, StringBuilder out) {
        long ddpAt = fpduAt + Fpdu.LENGTH_SIZE;
        DdpCheck c = ddp.wrap(frame, fpdu.ulpduOffset(), ulpdu).validate();
        out.append(' ');
        if (!c.accepted()) {
            out.append("DDP: ");
            failure(c, ddpAt + ddp.failedAt(), out);
            return;
        }
        ddpHeader(ddp, out);
        RdmapOpcode op = ddp.rdmapOpcode();
        out.append(" RDMAP ");
        long payload = ddp.payloadLength();
        long payloadAt = ddpAt + ddp.headerLength();
        switch (op) {
            case RDMA_WRITE -> out.append("RDMA Write ").append(payload).append(" bytes");
            case RDMA_READ_RESPONSE -> out.append("Read Response ").append(payload).append(" bytes");
            case SEND -> out.append("Send ").append(payload).append(" bytes");
            case SEND_WITH_SE -> out.append("Send with SE ").append(payload).append(" bytes");
            case SEND_WITH_INVALIDATE, SEND_WITH_SE_AND_INVALIDATE -> {
                out.append(op == RdmapOpcode.SEND_WITH_INVALIDATE ? "Send with Invalidate" : "Send with SE and Invalidate")
                        .append(" STag ");
                hex32(ddp.invalidateStag(), out);
                out.append(' ').append(payload).append(" bytes");
            }
            case RDMA_READ_REQUEST -> readRequest(frame, payloadAt, payload, out);
            case TERMINATE -> terminate(frame, payloadAt, payload, out);
            default -> out.append("opcode ").append(ddp.opcode());
        }
    }

    private static void ddpHeader(DdpHeader h, StringBuilder out) {
        if (h.tagged()) {
            out.append("DDP tagged STag ");
            hex32(h.stag(), out);
            out.append(" TO 0x").append(Long.toHexString(h.taggedOffset()));
        } else {
            out.append("DDP untagged QN ").append(h.queueNumber()).append(" MSN ").append(h.msn()).append(" MO ")
                    .append(h.messageOffset());
        }
        if (h.last()) {
            out.append(" L");
        }
        if (!h.queueMatchesOpcode()) {
            out.append(" (QN ").append(RdmapOpcode.expectedQueueFor(h.opcode())).append(" expected)");
        }
    }

    /** RFC 5040 §4.4. */
    private void readRequest(BytesStore<?, ?> frame, long frameAt, long payload, StringBuilder out) {
        RdmaReadRequestCheck c = readRequest.wrap(frame, ddp.payloadOffset(), payload).validate();
        if (!c.accepted()) {
            out.append("Read Request: ");
            failure(c, frameAt + readRequest.failedAt(), out);
            return;
        }
        out.append("Read Request (sink STag ");
        hex32(readRequest.sinkStag(), out);
        out.append(" TO 0x").append(Long.toHexString(readRequest.sinkTaggedOffset()))
                .append(" len ").append(readRequest.readMessageSize()).append(" source STag ");
        hex32(readRequest.sourceStag(), out);
        out.append(" TO 0x").append(Long.toHexString(readRequest.sourceTaggedOffset())).append(')');
    }

    /** RFC 5040 §4.8. */
    private void terminate(BytesStore<?, ?> frame, long frameAt, long payload, StringBuilder out) {
        TerminateCheck c = terminate.wrap(frame, ddp.payloadOffset(), payload).validate();
        if (!c.accepted()) {
            out.append("Terminate: ");
            failure(c, frameAt + terminate.failedAt(), out);
            return;
        }
        out.append("Terminate (");
        TerminateNames.append(terminate.layer(), terminate.errorType(), terminate.errorCode(), out);
        out.append(')');
        if (terminate.hasDdpSegmentLength()) {
            out.append(" M len ").append(terminate.ddpSegmentLength());
        }
        if (terminate.hasDdpHeader()) {
            copiedDdp.wrap(frame, terminate.ddpHeaderOffset(), terminate.ddpHeaderLength());
            out.append(" D [");
            ddpHeader(copiedDdp, out);
            out.append(']');
        }
        if (terminate.hasRdmaHeader()) {
            out.append(" R");
        }
    }

    private static void failure(Check c, long at, StringBuilder out) {
        out.append(c.describe()).append(" at ").append(at);
    }

    // ---- formatting -------------------------------------------------------------------------------------------

    static void hex32(int v, StringBuilder out) {
        out.append("0x");
        for (int shift = 28; shift >= 0; shift -= 4) {
            out.append(HEX[v >>> shift & 0xf]);
        }
    }

    private static void appendMac(long mac, StringBuilder out) {
        for (int shift = 40; shift >= 0; shift -= 8) {
            int b = (int) (mac >>> shift) & 0xff;
            out.append(HEX[b >>> 4]).append(HEX[b & 0xf]);
            if (shift > 0) {
                out.append(':');
            }
        }
    }

    private static int u16(BytesStore<?, ?> s, long at) {
        return s.readUnsignedByte(at) << 8 | s.readUnsignedByte(at + 1);
    }

    private static int u32(BytesStore<?, ?> s, long at) {
        return u16(s, at) << 16 | u16(s, at + 2);
    }

    private static long u48(BytesStore<?, ?> s, long at) {
        return (long) u16(s, at) << 32 | Integer.toUnsignedLong(u32(s, at + 2));
    }

    private static void appendEtherType(int type, StringBuilder out) {
        switch (type) {
            case 0x0800 -> out.append("IPv4");   // IEEE EtherType registry
            case 0x0806 -> out.append("ARP");
            case 0x86dd -> out.append("IPv6");
            case 0x8100 -> out.append("802.1Q");
            case 0x88cc -> out.append("LLDP");
            default -> {
                if (type <= 1500) {
                    // IEEE 802.3 clause 3.2.6: a value up to 1500 is an 802.3 length field, not a type
                    out.append("802.3");
                } else {
                    out.append("0x").append(HEX[type >>> 12]).append(HEX[type >>> 8 & 0xf])
                            .append(HEX[type >>> 4 & 0xf]).append(HEX[type & 0xf]);
                }
            }
        }
    }
}
