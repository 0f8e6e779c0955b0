package dev.irdmaemu.fw.lan;

import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.frame.InternetChecksum;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The header fields a LAN Tx engine rewrites when it offloads checksums and segments a TSO packet, at the offsets
 * of RFC 791 §3.1 (IPv4: total length at 2, identification at 4, header checksum at 10), RFC 8200 §3 (IPv6:
 * payload length at 4) and RFC 9293 §3.1 (TCP: sequence number at 4, flags at 13, checksum at 16), plus the UDP
 * checksum at 6 (RFC 768). Callers have bounded every range (the engine checks MACLEN/IPLEN/L4LEN against the
 * frame first); nothing here allocates.
 */
public final class OffloadHeaders {
    private OffloadHeaders() {
    }

    public static final int TCP_FIN = 0x01;
    public static final int TCP_PSH = 0x08;
    public static final int TCP_CWR = 0x80;
    public static final int PROTOCOL_UDP = 17;

    public static int ipVersion(BytesStore<?, ?> s, long ip) {
        return NetworkOrder.u8(s, ip) >>> 4;
    }

    public static void ipv4TotalLength(BytesStore<?, ?> s, long ip, int v) {
        NetworkOrder.put16(s, ip + 2, v);
    }

    public static int ipv4Identification(BytesStore<?, ?> s, long ip) {
        return NetworkOrder.u16(s, ip + 4);
    }

    public static void ipv4Identification(BytesStore<?, ?> s, long ip, int v) {
        NetworkOrder.put16(s, ip + 4, v);
    }

    /** Recomputes the IPv4 header checksum over {@code ipLength} header bytes. */
    public static void ipv4Checksum(BytesStore<?, ?> s, long ip, int ipLength) {
        NetworkOrder.put16(s, ip + 10, 0);
        NetworkOrder.put16(s, ip + 10, InternetChecksum.checksum(s, ip, ipLength));
    }

    public static void ipv6PayloadLength(BytesStore<?, ?> s, long ip, int v) {
        NetworkOrder.put16(s, ip + 4, v);
    }

    /** The TCP or UDP source port of the L4 header at {@code l4} (both start with the two ports). */
    public static int l4SourcePort(BytesStore<?, ?> s, long l4) {
        return s.readUnsignedByte(l4) << 8 | s.readUnsignedByte(l4 + 1);
    }

    /** The TCP or UDP destination port of the L4 header at {@code l4}. */
    public static int l4DestinationPort(BytesStore<?, ?> s, long l4) {
        return s.readUnsignedByte(l4 + 2) << 8 | s.readUnsignedByte(l4 + 3);
    }

    public static long tcpSequence(BytesStore<?, ?> s, long l4) {
        return NetworkOrder.u32(s, l4 + 4);
    }

    public static void tcpSequence(BytesStore<?, ?> s, long l4, long v) {
        NetworkOrder.put32(s, l4 + 4, (int) v);
    }

    public static int tcpFlags(BytesStore<?, ?> s, long l4) {
        return NetworkOrder.u8(s, l4 + 13);
    }

    public static void tcpFlags(BytesStore<?, ?> s, long l4, int v) {
        NetworkOrder.put8(s, l4 + 13, v);
    }

    /** Offset of the L4 checksum field for IP protocol {@code protocol}: TCP 16, UDP 6; -1 for others. */
    public static int checksumOffset(int protocol) {
        return protocol == InternetChecksum.PROTOCOL_TCP ? 16 : protocol == PROTOCOL_UDP ? 6 : -1;
    }

    /**
     * Computes the L4 checksum of {@code l4Length} bytes at {@code l4} with the pseudo-header of the IP header at
     * {@code ip} (IPv4 or IPv6, by its version nibble) and stores it at {@code checksumAt} bytes into L4.
     */
    public static void l4Checksum(BytesStore<?, ?> s, long ip, long l4, int l4Length, int protocol, int checksumAt) {
        NetworkOrder.put16(s, l4 + checksumAt, 0);
        long pseudo;
        if (ipVersion(s, ip) == 4) {
            pseudo = InternetChecksum.ipv4PseudoHeaderSum(NetworkOrder.i32(s, ip + 12), NetworkOrder.i32(s, ip + 16),
                    protocol, l4Length);
        } else {
            pseudo = InternetChecksum.ipv6PseudoHeaderSum(NetworkOrder.i64(s, ip + 8), NetworkOrder.i64(s, ip + 16),
                    NetworkOrder.i64(s, ip + 24), NetworkOrder.i64(s, ip + 32), l4Length, protocol);
        }
        int c = InternetChecksum.checksum(s, l4, l4Length, pseudo);
        if (c == 0 && protocol == PROTOCOL_UDP) {
            c = 0xFFFF; // RFC 768: a computed 0 is sent as all ones
        }
        NetworkOrder.put16(s, l4 + checksumAt, c);
    }
}
