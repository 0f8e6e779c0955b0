package dev.irdmaemu.fw.frame;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Test-side reference implementations, deliberately naive (byte by byte, straight from RFC 1071 §1 and the
 * pseudo-header layouts of RFC 9293 §3.1 / RFC 8200 §8.1), so the production code is checked against
 * something that shares none of its tricks (no wide reads, no byte swapping, no deferred carries).
 */
final class Ref {
    private Ref() {
    }

    static byte[] hex(String hex) {
        String h = hex.replaceAll("[\\s:]", "");
        if (h.length() % 2 != 0) {
            throw new IllegalArgumentException("odd hex length");
        }
        byte[] b = new byte[h.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }

    static String toHex(byte[] b, int off, int len) {
        StringBuilder sb = new StringBuilder();
        for (int i = off; i < off + len; i++) {
            sb.append(String.format("%02x", b[i] & 0xff));
        }
        return sb.toString();
    }

    static BytesStore<?, byte[]> store(byte[] b) {
        return BytesStore.wrap(b);
    }

    /** One's complement sum, 16-bit words big-endian, odd byte padded with zero, folding after every add. */
    static int sum(byte[] b, int off, int len) {
        int s = 0;
        for (int i = 0; i < len; i += 2) {
            int hi = b[off + i] & 0xff;
            int lo = i + 1 < len ? b[off + i + 1] & 0xff : 0;
            s += (hi << 8) | lo;
            if (s > 0xffff) {
                s = (s & 0xffff) + 1;
            }
        }
        return s;
    }

    static int checksum(byte[] b, int off, int len) {
        return ~sum(b, off, len) & 0xffff;
    }

    static int u16(byte[] b, int at) {
        return ((b[at] & 0xff) << 8) | (b[at + 1] & 0xff);
    }

    static void put16(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 8);
        b[at + 1] = (byte) v;
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] r = new byte[a.length + b.length];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    /** The IPv4 pseudo-header bytes (RFC 9293 §3.1) followed by the TCP segment, as one array. */
    static byte[] ipv4PseudoAndSegment(byte[] frame, int ipOff, int tcpOff, int segLen) {
        byte[] p = new byte[12 + segLen];
        System.arraycopy(frame, ipOff + 12, p, 0, 8); // source, destination
        p[8] = 0;
        p[9] = 6;
        put16(p, 10, segLen);
        System.arraycopy(frame, tcpOff, p, 12, segLen);
        return p;
    }

    /** The IPv6 pseudo-header bytes (RFC 8200 §8.1) followed by the TCP segment. */
    static byte[] ipv6PseudoAndSegment(byte[] frame, int ipOff, int tcpOff, int segLen) {
        byte[] p = new byte[40 + segLen];
        System.arraycopy(frame, ipOff + 8, p, 0, 32); // source, destination
        p[32] = (byte) (segLen >>> 24);
        p[33] = (byte) (segLen >>> 16);
        p[34] = (byte) (segLen >>> 8);
        p[35] = (byte) segLen;
        p[39] = 6;
        System.arraycopy(frame, tcpOff, p, 40, segLen);
        return p;
    }

    /**
     * Recompute the IPv4 header checksum in place (header of {@code ihl*4} bytes at ipOff); left alone if
     * the IHL reaches past the array (such a header fails on its length before its checksum is looked at).
     */
    static void fixIpv4Checksum(byte[] f, int ipOff) {
        int hl = (f[ipOff] & 0x0f) * 4;
        if (ipOff + hl > f.length) {
            return;
        }
        put16(f, ipOff + 10, 0);
        put16(f, ipOff + 10, checksum(f, ipOff, hl));
    }

    /** Recompute the TCP checksum in place for a frame carrying IPv4 at ipOff. */
    static void fixTcpChecksumV4(byte[] f, int ipOff) {
        int hl = (f[ipOff] & 0x0f) * 4;
        int total = u16(f, ipOff + 2);
        int tcpOff = ipOff + hl;
        put16(f, tcpOff + 16, 0);
        put16(f, tcpOff + 16, checksum(ipv4PseudoAndSegment(f, ipOff, tcpOff, total - hl), 0, 12 + total - hl));
    }

    /** Recompute the TCP checksum in place for a frame carrying IPv6 at ipOff. */
    static void fixTcpChecksumV6(byte[] f, int ipOff) {
        int seg = u16(f, ipOff + 4);
        int tcpOff = ipOff + 40;
        put16(f, tcpOff + 16, 0);
        put16(f, tcpOff + 16, checksum(ipv6PseudoAndSegment(f, ipOff, tcpOff, seg), 0, 40 + seg));
    }
}
