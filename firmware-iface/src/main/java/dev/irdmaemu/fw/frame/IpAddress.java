package dev.irdmaemu.fw.frame;

/**
 * One zero-allocation representation for IPv4 and IPv6 addresses: two {@code long}s, {@code hi} holding
 * bytes 0..7 of the 128-bit IPv6 address (first on the wire in the top bits) and {@code lo} bytes 8..15.
 * An IPv4 address {@code a.b.c.d} is kept as the IPv4-mapped IPv6 address {@code ::ffff:a.b.c.d}
 * (RFC 4291 §2.5.5.2): {@code hi = 0}, {@code lo = 0x0000_ffff_0000_0000 | (a.b.c.d as unsigned 32 bits)}.
 *
 * <p>Why: a connection manager can key every connection by (hi, lo, port) pairs of primitives, whatever
 * the family, without boxing or a second table, and the two families can never collide, because
 * {@link TcpPacket} refuses IPv6 packets whose source or destination is IPv4-mapped (RFC 6890 §2.2.3 lists
 * {@code ::ffff:0:0/96} as neither a valid source nor destination on the wire), so a mapped pair always
 * means "this arrived over IPv4".
 *
 * <p>Formatting appends to a caller's {@link StringBuilder} (for logs): mapped addresses as the IPv4
 * dotted quad {@code 192.0.2.1} (they are IPv4 in this representation), others in the RFC 5952 canonical
 * text form ({@code 2001:db8::1}).
 */
public final class IpAddress {
    /** {@code hi} of every IPv4-mapped address. */
    public static final long IPV4_MAPPED_HI = 0L;
    /** Bits of {@code lo} above the IPv4 address in a mapped address ({@code ::ffff:0:0/96}). */
    public static final long IPV4_MAPPED_LO_PREFIX = 0x0000_ffff_0000_0000L;

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private IpAddress() {
    }

    /** {@code lo} of the IPv4-mapped form of {@code ipv4} (first octet in bits 31..24). */
    public static long mappedLo(int ipv4) {
        return IPV4_MAPPED_LO_PREFIX | (ipv4 & 0xffff_ffffL);
    }

    public static boolean isIpv4Mapped(long hi, long lo) {
        return hi == IPV4_MAPPED_HI && (lo & 0xffff_ffff_0000_0000L) == IPV4_MAPPED_LO_PREFIX;
    }

    /** The IPv4 address inside a mapped {@code lo}. */
    public static int ipv4(long lo) {
        return (int) lo;
    }

    /** {@code a.b.c.d} as an int, first octet in bits 31..24. */
    public static int ipv4(int a, int b, int c, int d) {
        return ((a & 0xff) << 24) | ((b & 0xff) << 16) | ((c & 0xff) << 8) | (d & 0xff);
    }

    /** Append {@code ipv4} as a dotted quad. */
    public static StringBuilder formatIpv4(int ipv4, StringBuilder out) {
        out.append(ipv4 >>> 24).append('.')
                .append((ipv4 >>> 16) & 0xff).append('.')
                .append((ipv4 >>> 8) & 0xff).append('.')
                .append(ipv4 & 0xff);
        return out;
    }

    /** Append the address: dotted quad if IPv4-mapped, else RFC 5952 canonical IPv6 text. */
    public static StringBuilder format(long hi, long lo, StringBuilder out) {
        if (isIpv4Mapped(hi, lo)) {
            return formatIpv4(ipv4(lo), out);
        }
        return formatIpv6(hi, lo, out);
    }

    /**
     * Append RFC 5952 canonical text: lowercase hex (§4.3), no leading zeros (§4.1), the longest run of two
     * or more zero groups replaced by {@code ::}, the first such run on a tie (§4.2.1-4.2.3). Mapped
     * addresses are written in hex here ({@code ::ffff:c000:201}); use {@link #format} for the dotted form.
     */
    public static StringBuilder formatIpv6(long hi, long lo, StringBuilder out) {
        int bestStart = -1;
        int bestLength = 1; // a single zero group is never compressed (§4.2.2)
        int runStart = -1;
        for (int i = 0; i < 8; i++) {
            if (group(hi, lo, i) == 0) {
                if (runStart < 0) {
                    runStart = i;
                }
                int runLength = i - runStart + 1;
                if (runLength > bestLength) {
                    bestStart = runStart;
                    bestLength = runLength;
                }
            } else {
                runStart = -1;
            }
        }
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                out.append("::");
                i += bestLength - 1;
                continue;
            }
            if (i > 0 && i != bestStart + bestLength) {
                out.append(':');
            }
            appendHex(group(hi, lo, i), out);
        }
        return out;
    }

    private static int group(long hi, long lo, int i) {
        long half = i < 4 ? hi : lo;
        return (int) (half >>> (48 - 16 * (i & 3))) & 0xffff;
    }

    private static void appendHex(int g, StringBuilder out) {
        boolean started = false;
        for (int shift = 12; shift >= 0; shift -= 4) {
            int nibble = (g >>> shift) & 0xf;
            if (nibble != 0 || started || shift == 0) {
                out.append(HEX[nibble]);
                started = true;
            }
        }
    }
}
