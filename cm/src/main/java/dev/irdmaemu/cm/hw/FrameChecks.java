package dev.irdmaemu.cm.hw;

import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.wire.LinkPort;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The in-memory device's receive checks (Ethernet, IP, TCP, checksums) and the account of what the link's
 * corruption did: refused by them, passed in checksummed bytes (must never happen), or passed in IPv6 header bytes
 * no checksum covers. Allocates nothing.
 */
final class FrameChecks {
    private long refused;
    private long corruptedRefused;
    private long corruptedAccepted;
    private long corruptedUnprotectedAccepted;

    /** Wraps the frame in {@code rx} and checks it; false (counted) when refused. */
    boolean accept(TcpPacket rx, BytesStore<?, ?> store, long offset, int length, LinkPort wire) {
        int corruptedAt = wire == null ? -1 : wire.deliveringCorruptedAt();
        if (!rx.wrap(store, offset, length).validate().accepted()) {
            refused++;
            if (corruptedAt >= 0) {
                corruptedRefused++;
            }
            return false;
        }
        if (corruptedAt >= 0) {
            if (checksummed(rx, corruptedAt)) {
                corruptedAccepted++;
            } else {
                corruptedUnprotectedAccepted++;
            }
        }
        return true;
    }

    /**
     * Whether a byte of the validated frame is covered by a checksum: the IPv4 header (its header checksum), the
     * TCP segment, and the IPv6 fields in the TCP pseudo-header (payload length, next header, addresses). IPv6
     * has no header checksum (RFC 8200 §8.1): its traffic class, flow label and hop limit are protected only by
     * the link's FCS, which the simulated wire does not model.
     */
    private static boolean checksummed(TcpPacket rx, int at) {
        int ip = rx.ipOffset();
        if (at >= rx.tcpOffset()) {
            return true;
        }
        if (!rx.isIpv6()) {
            return at >= ip;
        }
        int rel = at - ip;
        return rel == 4 || rel == 5 || rel == 6 || rel >= 8;
    }

    long refused() {
        return refused;
    }

    long corruptedRefused() {
        return corruptedRefused;
    }

    long corruptedAccepted() {
        return corruptedAccepted;
    }

    long corruptedUnprotectedAccepted() {
        return corruptedUnprotectedAccepted;
    }
}
