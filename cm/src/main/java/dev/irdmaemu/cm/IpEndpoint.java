package dev.irdmaemu.cm;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * An IP address and TCP port. The address is the firmware-iface form: two longs, IPv4 as the IPv4-mapped IPv6
 * address {@code ::ffff:a.b.c.d} (hi 0, lo {@code 0x0000ffff_xxxxxxxx}); the all-zero address of either family is
 * the wildcard of a listen.
 */
public record IpEndpoint(boolean ipv4, long addressHi, long addressLo, int port) {
    private static final long MAPPED_PREFIX = 0x0000_ffff_0000_0000L;

    public IpEndpoint {
        if (port < 0 || port > 0xffff) {
            throw new IllegalArgumentException("port " + port);
        }
        if (ipv4 && (addressHi != 0 || ((addressLo & 0xffff_ffff_0000_0000L) != MAPPED_PREFIX && addressLo != 0))) {
            throw new IllegalArgumentException("IPv4 endpoint must be IPv4-mapped");
        }
        if (ipv4 && addressLo == 0) {
            addressLo = MAPPED_PREFIX;
        }
    }

    public static IpEndpoint ipv4(int address, int port) {
        return new IpEndpoint(true, 0, MAPPED_PREFIX | (address & 0xffff_ffffL), port);
    }

    /** Parses a numeric literal ("192.0.2.1", "2001:db8::1", "0.0.0.0", "::"); never resolves names. */
    public static IpEndpoint of(String literal, int port) {
        if (literal.isEmpty() || !literal.matches("[0-9A-Fa-f:.]+")) {
            throw new IllegalArgumentException("not a numeric address: " + literal);
        }
        byte[] b;
        try {
            b = InetAddress.getByName(literal).getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not a numeric address: " + literal, e);
        }
        if (b.length == 4) {
            int v = (b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | (b[3] & 0xff);
            return ipv4(v, port);
        }
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 8; i++) {
            hi = hi << 8 | (b[i] & 0xff);
            lo = lo << 8 | (b[i + 8] & 0xff);
        }
        if (hi == 0 && (lo & 0xffff_ffff_0000_0000L) == MAPPED_PREFIX) {
            return new IpEndpoint(true, 0, lo, port);
        }
        return new IpEndpoint(false, hi, lo, port);
    }

    public IpEndpoint withPort(int newPort) {
        return new IpEndpoint(ipv4, addressHi, addressLo, newPort);
    }

    /** The unspecified address of its family (0.0.0.0 or ::): a listen on every local address. */
    public boolean isWildcard() {
        return ipv4 ? (addressLo & 0xffff_ffffL) == 0 : addressHi == 0 && addressLo == 0;
    }

    /** The IPv4 address as a 32-bit value (valid when {@link #ipv4()}). */
    public int ipv4Address() {
        return (int) addressLo;
    }

    static String format(boolean ipv4, long hi, long lo) {
        if (ipv4) {
            int a = (int) lo;
            return (a >>> 24) + "." + (a >>> 16 & 0xff) + "." + (a >>> 8 & 0xff) + "." + (a & 0xff);
        }
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (hi >>> (56 - 8 * i));
            b[i + 8] = (byte) (lo >>> (56 - 8 * i));
        }
        try {
            return InetAddress.getByAddress(b).getHostAddress();
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return ipv4 ? format(true, addressHi, addressLo) + ":" + port : "[" + format(false, addressHi, addressLo) + "]:" + port;
    }
}
