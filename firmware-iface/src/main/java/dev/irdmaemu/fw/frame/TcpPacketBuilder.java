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
public final class TcpPacketBuilder extends EncapsulatedFrameBuilder<TcpPacketBuilder> {
    private final TcpHeader.Builder tcp = new TcpHeader.Builder();

    // State between begin() and finish().
    private BytesStore<?, ?> out;
    private long frameOffset = -1;
    private int tcpOffset;
    private int segmentLength;

    public TcpPacketBuilder() {
        reset();
    }

    /** Back to defaults: no VLAN, IPv4 0.0.0.0, TOS 0, DF set, TTL/hop limit 64, empty TCP header. */
    public TcpPacketBuilder reset() {
        link.reset();
        tcp.reset();
        frameOffset = -1;
        out = null;
        return this;
    }

    /** IPv6 addresses; IPv4-mapped ones are refused (they would be sent as IPv4, see {@link #addresses}). */
    @Override
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
        link.addresses(sourceHi, sourceLo, destinationHi, destinationLo);
        return this;
    }

    public TcpPacketBuilder dontFragment(boolean dontFragment) {
        link.dontFragment(dontFragment);
        return this;
    }

    /** The TCP header and options to write; configure it in place. */
    public TcpHeader.Builder tcp() {
        return tcp;
    }

    public boolean isIpv6() {
        return link.isIpv6();
    }

    /** Bytes before the payload: Ethernet + IP + TCP headers. */
    public int headersLength() {
        return link.length() + tcp.headerLength();
    }

    /**
     * Write all headers for a payload of {@code payloadLength} bytes at {@code offset}; answers the absolute
     * offset where the caller writes the payload, then calls {@link #finish()}.
     */
    @Override
    public long begin(BytesStore<?, ?> out, long offset, int payloadLength) {
        int headers = headersLength();
        int tcpHeaderLength = tcp.headerLength();
        if (payloadLength < 0) {
            throw new IllegalArgumentException("negative payload length");
        }
        int ipPayload = tcpHeaderLength + payloadLength;
        int ipLimit = link.maxIpPayload();
        if (payloadLength > ipLimit || ipPayload > ipLimit) {
            throw new IllegalArgumentException("TCP segment of " + ipPayload + " bytes does not fit in one IP packet");
        }
        NetworkOrder.requireRange(out, offset, (long) headers + payloadLength);

        long at = link.write(out, offset, ipPayload, InternetChecksum.PROTOCOL_TCP);
        this.tcpOffset = (int) (at - offset);
        at += tcp.write(out, at);
        if (this.out != out) {
            this.out = out; // a reference store runs the GC's write barrier: skipped when it is the same buffer
        }
        this.frameOffset = offset;
        this.segmentLength = ipPayload;
        return at;
    }

    /** Bytes of the Ethernet and IP headers alone (what {@link #encapsulate} puts before the segment). */
    public int linkAndIpLength() {
        return link.length();
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
        if (segmentLength < TcpHeader.MIN_HEADER_LENGTH || segmentLength > link.maxIpPayload()) {
            throw new IllegalArgumentException("TCP segment of " + segmentLength + " bytes");
        }
        NetworkOrder.requireRange(segment, segmentOffset, segmentLength);
        NetworkOrder.requireRange(out, offset, (long) linkAndIpLength() + segmentLength);
        long at = link.write(out, offset, segmentLength, InternetChecksum.PROTOCOL_TCP);
        out.write(at, segment, segmentOffset, segmentLength);
        TcpHeader.writeChecksum(out, at, segmentLength, link.pseudoHeaderSum());
        return (int) (at - offset) + segmentLength;
    }

    /** Compute the TCP checksum over the headers and the payload now in place; answers the frame length. */
    @Override
    public int finish() {
        if (frameOffset < 0) {
            throw new IllegalStateException("finish() without begin()");
        }
        TcpHeader.writeChecksum(out, frameOffset + tcpOffset, segmentLength, link.pseudoHeaderSum());
        int frameLength = tcpOffset + segmentLength;
        frameOffset = -1;
        return frameLength;
    }
}
