package dev.irdmaemu.fw.queue;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Where a gen2 device places a frame it hands to the ILQ/IEQ, as irdma_puda_get_tcpip_info (utils.c) expects:
 * the Ethernet header is stripped, the TCP header always starts at {@link #TCP_OFFSET} (puda.h IRDMA_TCP_OFFSET,
 * 40), so an IPv4 header (20 bytes) starts at {@link #IPV4_PAD} (puda.h IRDMA_IPV4_PAD) and an IPv6 header at 0.
 * The CQE's IRDMACQ_PAYLDLEN is the placed length counted from offset 0 (40 + TCP header + data), its IPv4 bit
 * says which, and the VLAN (if any) and source MAC travel in the {@link CqeExtension}. The gen2 driver reads no
 * L3/L4 protocol fields, header-length fields or TCP error bits from the CQE (those are gen1's
 * IRDMA_UDA_L3PROTO / IRDMA_UDA_L4PROTO / IRDMA_VLAN_TAG_VALID); it takes the TCP header length from the
 * placed header's data offset, so the model must place a real TCP header there.
 */
public final class PudaLayout {
    public static final int TCP_OFFSET = 40;
    public static final int IPV4_PAD = 20;
    public static final int IPV4_HEADER = 20;
    public static final int IPV6_HEADER = 40;
    /** What {@link #place} answers when the packet does not fit the receive buffer (irdma drops it as too long). */
    public static final long NO_ROOM = -1;
    /** What {@link #place} answers for a bad source range or an IP header the PUDA layout cannot carry. */
    public static final long BAD_LAYOUT = -2;

    private PudaLayout() {
    }

    /** Offset of the IP header in the receive buffer. */
    public static int ipHeaderOffset(boolean ipv4) {
        return ipv4 ? IPV4_PAD : 0;
    }

    /**
     * Copies an IP packet ({@code ipLength} bytes at {@code src[ipOffset]}, no Ethernet header) into a PUDA
     * receive buffer at {@code dst[dstOffset]} of {@code bufferSize} bytes. Answers the payload length to put
     * in the CQE; {@link #NO_ROOM} when it does not fit the buffer (or {@code dst}); {@link #BAD_LAYOUT} when the
     * source range is bad, shorter
     * than an IP header, or an IPv4 header is not exactly 20 bytes (options would move the TCP header off
     * {@link #TCP_OFFSET}).
     */
    public static long place(BytesStore<?, ?> src, long ipOffset, int ipLength, boolean ipv4,
                             BytesStore<?, ?> dst, long dstOffset, long bufferSize) {
        if (ipLength < (ipv4 ? IPV4_HEADER : IPV6_HEADER) || ipOffset < src.start()
            || ipOffset > src.readLimit() - ipLength) {
            return BAD_LAYOUT;
        }
        if (ipv4 && (src.readUnsignedByte(ipOffset) & 0x0f) != 5) {
            return BAD_LAYOUT;
        }
        int at = ipHeaderOffset(ipv4);
        long placed = (long) at + ipLength;
        if (placed > bufferSize || dstOffset < dst.start() || dstOffset > dst.capacity() - placed) {
            return NO_ROOM;
        }
        dst.write(dstOffset + at, src, ipOffset, ipLength);
        return placed;
    }

    /** The TCP header length the driver computes ({@code doff << 2}) from the placed buffer. */
    public static int tcpHeaderLength(BytesStore<?, ?> buf, long bufOffset) {
        long at = bufOffset + TCP_OFFSET + 12;
        if (bufOffset < buf.start() || at >= buf.readLimit()) {
            return 0;
        }
        return (buf.readUnsignedByte(at) >>> 4) << 2;
    }

    /** The data length the driver computes: payload_len - 40 - TCP header length (may be negative if lying). */
    public static long dataLength(long payloadLength, int tcpHeaderLength) {
        return payloadLength - TCP_OFFSET - tcpHeaderLength;
    }

    /**
     * Checks an ILQ receive CQE's payload length against the buffer: the driver trusts it, so the model must
     * never write one shorter than the headers or longer than the posted buffer.
     */
    public static PudaCheck check(long payloadLength, int tcpHeaderLength, long bufferSize) {
        if (payloadLength > bufferSize) {
            return PudaCheck.LONGER_THAN_BUFFER;
        }
        if (tcpHeaderLength < 20 || payloadLength < TCP_OFFSET + (long) tcpHeaderLength) {
            return PudaCheck.SHORTER_THAN_HEADERS;
        }
        return PudaCheck.ACCEPTED;
    }
}
