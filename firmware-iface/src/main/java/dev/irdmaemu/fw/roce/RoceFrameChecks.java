package dev.irdmaemu.fw.roce;

import dev.irdmaemu.fw.frame.Ipv4Header;
import dev.irdmaemu.fw.frame.Ipv6Header;
import dev.irdmaemu.fw.frame.UdpHeader;

/**
 * The layer codecs' verdicts as {@link RoceCheck}s: {@link RoceFrame} answers one enum for the whole frame, as
 * {@code TcpPacket} does for TCP frames.
 */
final class RoceFrameChecks {
    private RoceFrameChecks() {
    }

    static RoceCheck map(Ipv4Header.Status s) {
        switch (s) {
            case TRUNCATED: return RoceCheck.IPV4_TRUNCATED;
            case BAD_VERSION: return RoceCheck.IPV4_BAD_VERSION;
            case IHL_TOO_SMALL: return RoceCheck.IPV4_IHL_TOO_SMALL;
            case IHL_BEYOND_BUFFER: return RoceCheck.IPV4_IHL_BEYOND_BUFFER;
            case TOTAL_LENGTH_BELOW_HEADER: return RoceCheck.IPV4_TOTAL_LENGTH_BELOW_HEADER;
            case TOTAL_LENGTH_BEYOND_BUFFER: return RoceCheck.IPV4_TOTAL_LENGTH_BEYOND_BUFFER;
            case BAD_CHECKSUM: return RoceCheck.IPV4_BAD_CHECKSUM;
            case FRAGMENT: return RoceCheck.IPV4_FRAGMENT;
            default: return RoceCheck.ACCEPTED;
        }
    }

    static RoceCheck map(Ipv6Header.Status s) {
        switch (s) {
            case TRUNCATED: return RoceCheck.IPV6_TRUNCATED;
            case BAD_VERSION: return RoceCheck.IPV6_BAD_VERSION;
            case PAYLOAD_LENGTH_BEYOND_BUFFER: return RoceCheck.IPV6_PAYLOAD_LENGTH_BEYOND_BUFFER;
            case EXTENSION_HEADER: return RoceCheck.IPV6_EXTENSION_HEADER;
            default: return RoceCheck.ACCEPTED;
        }
    }

    static RoceCheck map(UdpHeader.Status s) {
        switch (s) {
            case TRUNCATED: return RoceCheck.UDP_TRUNCATED;
            case LENGTH_BELOW_HEADER: return RoceCheck.UDP_LENGTH_BELOW_HEADER;
            case LENGTH_MISMATCH: return RoceCheck.UDP_LENGTH_MISMATCH;
            default: return RoceCheck.ACCEPTED;
        }
    }
}
