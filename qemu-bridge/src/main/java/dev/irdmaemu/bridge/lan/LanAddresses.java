package dev.irdmaemu.bridge.lan;

import dev.irdmaemu.cm.IpEndpoint;

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

    /** The addresses {@code ipv4} and {@code ipv6} (their ports play no part), with their prefix lengths. */
    public static LanAddresses of(long mac, IpEndpoint ipv4, int v4Prefix, IpEndpoint ipv6, int v6Prefix) {
        if (!ipv4.ipv4()) {
            throw new IllegalArgumentException("not an IPv4 address: " + ipv4);
        }
        if (ipv6.ipv4()) {
            throw new IllegalArgumentException("not an IPv6 address: " + ipv6);
        }
        return new LanAddresses(mac, ipv4.ipv4Address(), v4Prefix, ipv6.addressHi(), ipv6.addressLo(), v6Prefix);
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

    /** The high half of every solicited-node multicast address (ff02::). */
    public static final long SOLICITED_NODE_HI = 0xff02_0000_0000_0000L;
}
