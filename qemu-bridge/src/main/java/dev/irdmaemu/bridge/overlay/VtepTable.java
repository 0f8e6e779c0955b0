package dev.irdmaemu.bridge.overlay;

import java.util.Arrays;

/**
 * The MAC-to-endpoint table of a VXLAN tunnel endpoint (RFC 7348 section 4: "the association of VM's MAC to VTEP's
 * IP address is discovered via source-address learning"): the inner source MAC of each accepted datagram, against the
 * endpoint it came from. Open addressing in fixed arrays, so learning and lookup allocate nothing. Entries do not
 * age; an entry moves when its MAC shows up behind another endpoint. When the table is full, new MACs are not
 * learned and their frames go to every endpoint, which is always correct on a segment, only less frugal.
 */
final class VtepTable {
    /** Endpoints one cable may name. */
    static final int MAX_PEERS = 16;
    /** MACs one cable learns. */
    static final int CAPACITY = 1024;
    private static final long EMPTY = -1L;

    private final int peers;
    private final long[] macs = new long[CAPACITY * 2];
    private final byte[] peerOf = new byte[CAPACITY * 2];
    private int size;

    VtepTable(int peers) {
        if (peers < 1 || peers > MAX_PEERS) {
            throw new IllegalArgumentException("peers " + peers);
        }
        this.peers = peers;
        Arrays.fill(macs, EMPTY);
    }

    /** {@code mac} (48 bits) was seen behind endpoint {@code peer}; group addresses are not learned. */
    void learn(long mac, int peer) {
        if (peer < 0 || peer >= peers || (mac & (1L << 40)) != 0 || mac == 0) {
            return;
        }
        int slot = find(mac);
        if (macs[slot] == mac) {
            peerOf[slot] = (byte) peer;
        } else if (size < CAPACITY) {
            macs[slot] = mac;
            peerOf[slot] = (byte) peer;
            size++;
        }
    }

    /** The endpoint {@code mac} was learned behind, or -1 (not learned: flood). */
    int peerOf(long mac) {
        int slot = find(mac);
        return macs[slot] == mac ? peerOf[slot] : -1;
    }

    int size() {
        return size;
    }

    /** The slot holding {@code mac}, or the empty slot where it would go (the table is never more than half full). */
    private int find(long mac) {
        int mask = macs.length - 1;
        int i = Long.hashCode(mac * 0x9E3779B97F4A7C15L) & mask;
        while (macs[i] != EMPTY && macs[i] != mac) {
            i = (i + 1) & mask;
        }
        return i;
    }
}
