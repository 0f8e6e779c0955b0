package dev.irdmaemu.bridge.lan;

import dev.irdmaemu.fw.frame.IpAddress;

/**
 * The addresses the LAN function answers for: the port's MAC, one IPv4 address and one IPv6 address, each with
 * the prefix length of its on-link subnet (neighbours are learned only inside it). IPv6 addresses are two longs,
 * most significant half first, as in {@code fw.frame}.
 */
public record LanAddresses(long mac, int ipv4, int ipv4PrefixLength, long ipv6Hi, long ipv6Lo, int ipv6PrefixLength) {
    public LanAddresses {
        if ((mac & ~0xffff_ffff_ffffL) != 0 || (mac >>> 40 & 1) != 0 || mac == 0) {
            throw new IllegalArgumentException("the port's MAC must be a 48-bit unicast address");
        }
        if (ipv4PrefixLength < 1 || ipv4PrefixLength > 30 || ipv6PrefixLength < 1 || ipv6PrefixLength > 127) {
            throw new IllegalArgumentException("prefix lengths: IPv4 1..30, IPv6 1..127");
        }
    }

    /** The hosted node's addresses (documentation ranges: RFC 5737, RFC 3849). */
    public static LanAddresses of(long mac, String ipv4, int v4Prefix, String ipv6, int v6Prefix) {
        byte[] a = literal(ipv4, 4);
        byte[] b = literal(ipv6, 16);
        int v4 = IpAddress.ipv4(a[0] & 0xff, a[1] & 0xff, a[2] & 0xff, a[3] & 0xff);
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 8; i++) {
            hi = hi << 8 | (b[i] & 0xff);
            lo = lo << 8 | (b[i + 8] & 0xff);
        }
        return new LanAddresses(mac, v4, v4Prefix, hi, lo, v6Prefix);
    }

    private static byte[] literal(String text, int length) {
        if (text == null || !text.matches("[0-9A-Fa-f:.]+")) {
            throw new IllegalArgumentException("not a numeric address: " + text);
        }
        try {
            byte[] b = java.net.InetAddress.getByName(text).getAddress();
            if (b.length != length) {
                throw new IllegalArgumentException("not an IPv" + (length == 4 ? 4 : 6) + " address: " + text);
            }
            return b;
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException("not a numeric address: " + text, e);
        }
    }

    /** True when {@code address} is in this port's IPv4 subnet (its own address included). */
    public boolean onLinkV4(int address) {
        int mask = -1 << (32 - ipv4PrefixLength);
        return (address & mask) == (ipv4 & mask);
    }

    /** True when the IPv6 address is in this port's IPv6 prefix (its own address included). */
    public boolean onLinkV6(long hi, long lo) {
        if (ipv6PrefixLength <= 64) {
            long mask = -1L << (64 - ipv6PrefixLength);
            return (hi & mask) == (ipv6Hi & mask);
        }
        long mask = -1L << (128 - ipv6PrefixLength);
        return hi == ipv6Hi && (lo & mask) == (ipv6Lo & mask);
    }

    public boolean isOwnV6(long hi, long lo) {
        return hi == ipv6Hi && lo == ipv6Lo;
    }

    /**
     * RFC 4291 §2.7.1: the solicited-node multicast address of our IPv6 address, ff02::1:ffXX:XXXX (the low 24
     * bits of the address), low half; the high half is {@link #SOLICITED_NODE_HI}.
     */
    public long solicitedNodeLo() {
        return 0x0000_0001_ff00_0000L | (ipv6Lo & 0xff_ffffL);
    }

    /** The high half of every solicited-node multicast address (ff02::). */
    public static final long SOLICITED_NODE_HI = 0xff02_0000_0000_0000L;
}
