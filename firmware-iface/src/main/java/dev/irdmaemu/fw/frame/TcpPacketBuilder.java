package dev.irdmaemu.fw.frame;

import dev.irdmaemu.fw.NetworkOrder;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Reusable, allocation-free writer of a whole TCP frame: Ethernet (optionally one 802.1Q tag), IPv4 or
 * IPv6, TCP with options, payload, with every length and both checksums filled in.
 *
 * <p>Set the fields (they persist until changed or {@link #reset()}), configure TCP through {@link #tcp()},
 * then either {@link #build(BytesStore, long, BytesStore, long, int)} with the payload copied from a
 * caller's range, or {@link #begin(BytesStore, long, int)} to reserve the payload, write it yourself at
 * the answered offset, and {@link #finish()} to checksum it. No Ethernet padding to the 60-byte minimum is
 * added: the device's MAC pads on transmit, and the emulator's taps do not require it.
 */
public final class TcpPacketBuilder {
    private final TcpHeader.Builder tcp = new TcpHeader.Builder();

    private long destinationMac;
    private long sourceMac;
    private boolean vlan;
    private int pcp;
    private boolean dei;
    private int vlanId;

    private boolean ipv6;
    private long sourceHi;
    private long sourceLo;
    private long destinationHi;
    private long destinationLo;
    private int tos;
    private int identification;
    private boolean dontFragment;
    private int ttl;
    private int flowLabel;

    // State between begin() and finish().
    private BytesStore<?, ?> out;
    private long frameOffset = -1;
    private int tcpOffset;
    private int segmentLength;
    private long pseudoHeaderSum;

    public TcpPacketBuilder() {
        reset();
    }

    /** Back to defaults: no VLAN, IPv4 0.0.0.0, TOS 0, DF set, TTL/hop limit 64, empty TCP header. */
    public TcpPacketBuilder reset() {
        destinationMac = 0;
        sourceMac = 0;
        vlan = false;
        pcp = 0;
        dei = false;
        vlanId = 0;
        ipv6 = false;
        sourceHi = IpAddress.IPV4_MAPPED_HI;
        sourceLo = IpAddress.mappedLo(0);
        destinationHi = IpAddress.IPV4_MAPPED_HI;
        destinationLo = IpAddress.mappedLo(0);
        tos = 0;
        identification = 0;
        dontFragment = true;
        ttl = 64;
        flowLabel = 0;
        tcp.reset();
        frameOffset = -1;
        out = null;
        return this;
    }

    /** MAC addresses as 48-bit values (first octet in bits 47..40). */
    public TcpPacketBuilder ethernet(long destination, long source) {
        this.destinationMac = destination & 0xffff_ffff_ffffL;
        this.sourceMac = source & 0xffff_ffff_ffffL;
        return this;
    }

    public TcpPacketBuilder vlan(int pcp, boolean dei, int vlanId) {
        if (pcp < 0 || pcp > 7 || vlanId < 0 || vlanId > 0xfff) {
            throw new IllegalArgumentException("802.1Q PCP must be 0..7 and VID 0..4095");
        }
        this.vlan = true;
        this.pcp = pcp;
        this.dei = dei;
        this.vlanId = vlanId;
        return this;
    }

    public TcpPacketBuilder noVlan() {
        this.vlan = false;
        return this;
    }

    public TcpPacketBuilder ipv4(int source, int destination) {
        return addresses(IpAddress.IPV4_MAPPED_HI, IpAddress.mappedLo(source),
                IpAddress.IPV4_MAPPED_HI, IpAddress.mappedLo(destination));
    }

    /** IPv6 addresses; IPv4-mapped ones are refused (they would be sent as IPv4, see {@link #addresses}). */
    public TcpPacketBuilder ipv6(long sourceHi, long sourceLo, long destinationHi, long destinationLo) {
        if (IpAddress.isIpv4Mapped(sourceHi, sourceLo) || IpAddress.isIpv4Mapped(destinationHi, destinationLo)) {
            throw new IllegalArgumentException("IPv4-mapped addresses are not sent in IPv6 packets");
        }
        return addresses(sourceHi, sourceLo, destinationHi, destinationLo);
    }

    /**
     * Addresses in the {@link IpAddress} form: both IPv4-mapped means an IPv4 packet, neither means IPv6.
     */
    public TcpPacketBuilder addresses(long sourceHi, long sourceLo, long destinationHi, long destinationLo) {
        boolean v4s = IpAddress.isIpv4Mapped(sourceHi, sourceLo);
        boolean v4d = IpAddress.isIpv4Mapped(destinationHi, destinationLo);
        if (v4s != v4d) {
            throw new IllegalArgumentException("source and destination are of different families");
        }
        this.ipv6 = !v4s;
        this.sourceHi = sourceHi;
        this.sourceLo = sourceLo;
        this.destinationHi = destinationHi;
        this.destinationLo = destinationLo;
        return this;
    }

    /** IPv4 TOS octet, or IPv6 traffic class (same DSCP/ECN layout, RFC 2474 §3, RFC 3168 §5). */
    public TcpPacketBuilder tos(int tos) {
        this.tos = tos & 0xff;
        return this;
    }

    public TcpPacketBuilder identification(int identification) {
        this.identification = identification & 0xffff;
        return this;
    }

    public TcpPacketBuilder dontFragment(boolean dontFragment) {
        this.dontFragment = dontFragment;
        return this;
    }

    /** IPv4 TTL, or IPv6 hop limit. */
    public TcpPacketBuilder ttl(int ttl) {
        this.ttl = ttl & 0xff;
        return this;
    }

    public TcpPacketBuilder flowLabel(int flowLabel) {
        this.flowLabel = flowLabel & 0xfffff;
        return this;
    }

    /** The TCP header and options to write; configure it in place. */
    public TcpHeader.Builder tcp() {
        return tcp;
    }

    public boolean isIpv6() {
        return ipv6;
    }

    /** Bytes before the payload: Ethernet + IP + TCP headers. */
    public int headersLength() {
        return (vlan ? EthernetFrame.TAGGED_HEADER_LENGTH : EthernetFrame.HEADER_LENGTH)
                + (ipv6 ? Ipv6Header.HEADER_LENGTH : Ipv4Header.MIN_HEADER_LENGTH)
                + tcp.headerLength();
    }

    /**
     * Write all headers for a payload of {@code payloadLength} bytes at {@code offset}; answers the absolute
     * offset where the caller writes the payload, then calls {@link #finish()}.
     */
    public long begin(BytesStore<?, ?> out, long offset, int payloadLength) {
        int headers = headersLength();
        int tcpHeaderLength = tcp.headerLength();
        if (payloadLength < 0) {
            throw new IllegalArgumentException("negative payload length");
        }
        int ipPayload = tcpHeaderLength + payloadLength;
        int ipLimit = ipv6 ? 0xffff : 0xffff - Ipv4Header.MIN_HEADER_LENGTH;
        if (payloadLength > ipLimit || ipPayload > ipLimit) {
            throw new IllegalArgumentException("TCP segment of " + ipPayload + " bytes does not fit in one IP packet");
        }
        NetworkOrder.requireRange(out, offset, (long) headers + payloadLength);

        long at = writeLinkAndIp(out, offset, ipPayload);
        this.tcpOffset = (int) (at - offset);
        at += tcp.write(out, at);
        if (this.out != out) {
            this.out = out; // a reference store runs the GC's write barrier: skipped when it is the same buffer
        }
        this.frameOffset = offset;
        this.segmentLength = ipPayload;
        return at;
    }

    /** Ethernet (with the tag if set) and the IPv4 or IPv6 header for an IP payload of {@code ipPayload} bytes. */
    private long writeLinkAndIp(BytesStore<?, ?> out, long offset, int ipPayload) {
        long at = offset;
        int etherType = ipv6 ? EthernetFrame.ETHERTYPE_IPV6 : EthernetFrame.ETHERTYPE_IPV4;
        at += vlan
                ? EthernetFrame.writeTagged(out, at, destinationMac, sourceMac, pcp, dei, vlanId, etherType)
                : EthernetFrame.write(out, at, destinationMac, sourceMac, etherType);
        if (ipv6) {
            at += Ipv6Header.write(out, at, tos, flowLabel, ipPayload, InternetChecksum.PROTOCOL_TCP, ttl,
                    sourceHi, sourceLo, destinationHi, destinationLo);
            pseudoHeaderSum = InternetChecksum.ipv6PseudoHeaderSum(sourceHi, sourceLo, destinationHi, destinationLo,
                    ipPayload, InternetChecksum.PROTOCOL_TCP);
        } else {
            int src = IpAddress.ipv4(sourceLo);
            int dst = IpAddress.ipv4(destinationLo);
            at += Ipv4Header.write(out, at, tos, Ipv4Header.MIN_HEADER_LENGTH + ipPayload, identification,
                    dontFragment, ttl, InternetChecksum.PROTOCOL_TCP, src, dst);
            pseudoHeaderSum = InternetChecksum.ipv4PseudoHeaderSum(src, dst, InternetChecksum.PROTOCOL_TCP, ipPayload);
        }
        return at;
    }

    /** Bytes of the Ethernet and IP headers alone (what {@link #encapsulate} puts before the segment). */
    public int linkAndIpLength() {
        return (vlan ? EthernetFrame.TAGGED_HEADER_LENGTH : EthernetFrame.HEADER_LENGTH)
                + (ipv6 ? Ipv6Header.HEADER_LENGTH : Ipv4Header.MIN_HEADER_LENGTH);
    }

    /**
     * Puts the caller's whole TCP segment ({@code segmentLength} bytes at {@code segmentOffset}: header, options
     * and payload, checksum field ignored) behind the Ethernet and IP headers of this builder's fields and fills
     * in the TCP checksum: what a device does with a buffer that begins at the TCP header (the gen2 PUDA send,
     * irdma puda.c irdma_puda_send). The builder's own TCP header is not used. Answers the frame length. The
     * segment must have passed {@link TcpHeader#validate()} (at least the 20-byte header).
     */
    public int encapsulate(BytesStore<?, ?> out, long offset, BytesStore<?, ?> segment, long segmentOffset,
                           int segmentLength) {
        int ipLimit = ipv6 ? 0xffff : 0xffff - Ipv4Header.MIN_HEADER_LENGTH;
        if (segmentLength < TcpHeader.MIN_HEADER_LENGTH || segmentLength > ipLimit) {
            throw new IllegalArgumentException("TCP segment of " + segmentLength + " bytes");
        }
        NetworkOrder.requireRange(segment, segmentOffset, segmentLength);
        NetworkOrder.requireRange(out, offset, (long) linkAndIpLength() + segmentLength);
        long at = writeLinkAndIp(out, offset, segmentLength);
        out.write(at, segment, segmentOffset, segmentLength);
        TcpHeader.writeChecksum(out, at, segmentLength, pseudoHeaderSum);
        return (int) (at - offset) + segmentLength;
    }

    /** Compute the TCP checksum over the headers and the payload now in place; answers the frame length. */
    public int finish() {
        if (frameOffset < 0) {
            throw new IllegalStateException("finish() without begin()");
        }
        TcpHeader.writeChecksum(out, frameOffset + tcpOffset, segmentLength, pseudoHeaderSum);
        int frameLength = tcpOffset + segmentLength;
        frameOffset = -1;
        return frameLength;
    }

    /**
     * Write the whole frame at {@code offset} with {@code payloadLength} bytes copied from
     * {@code payload} at {@code payloadOffset}; answers the frame length.
     */
    public int build(BytesStore<?, ?> out, long offset, BytesStore<?, ?> payload, long payloadOffset,
                     int payloadLength) {
        if (payloadLength > 0) {
            NetworkOrder.requireRange(payload, payloadOffset, payloadLength);
        }
        long at = begin(out, offset, payloadLength);
        if (payloadLength > 0) {
            out.write(at, payload, payloadOffset, payloadLength);
        }
        return finish();
    }

    /** Write a frame with no payload (SYN, ACK, FIN, RST); answers the frame length. */
    public int build(BytesStore<?, ?> out, long offset) {
        begin(out, offset, 0);
        return finish();
    }
}
