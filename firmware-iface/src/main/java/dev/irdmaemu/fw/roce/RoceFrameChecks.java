package dev.irdmaemu.fw.roce;

import dev.irdmaemu.fw.frame.LinkAndIpCheck;
import dev.irdmaemu.fw.frame.UdpHeader;

/**
 * The layer codecs' verdicts as {@link RoceCheck}s: {@link RoceFrame} answers one enum for the whole frame, as
 * {@code TcpPacket} does for TCP frames.
 */
final class RoceFrameChecks {
    private RoceFrameChecks() {
    }

    static RoceCheck map(LinkAndIpCheck c) {
        switch (c) {
            case ETH_TRUNCATED: return RoceCheck.ETH_TRUNCATED;
            case ETH_VLAN_TAG_TRUNCATED: return RoceCheck.ETH_VLAN_TAG_TRUNCATED;
            case NOT_IP: return RoceCheck.NOT_IP;
            case IPV4_TRUNCATED: return RoceCheck.IPV4_TRUNCATED;
            case IPV4_BAD_VERSION: return RoceCheck.IPV4_BAD_VERSION;
            case IPV4_IHL_TOO_SMALL: return RoceCheck.IPV4_IHL_TOO_SMALL;
            case IPV4_IHL_BEYOND_BUFFER: return RoceCheck.IPV4_IHL_BEYOND_BUFFER;
            case IPV4_TOTAL_LENGTH_BELOW_HEADER: return RoceCheck.IPV4_TOTAL_LENGTH_BELOW_HEADER;
            case IPV4_TOTAL_LENGTH_BEYOND_BUFFER: return RoceCheck.IPV4_TOTAL_LENGTH_BEYOND_BUFFER;
            case IPV4_BAD_CHECKSUM: return RoceCheck.IPV4_BAD_CHECKSUM;
            case IPV4_FRAGMENT: return RoceCheck.IPV4_FRAGMENT;
            case IPV6_TRUNCATED: return RoceCheck.IPV6_TRUNCATED;
            case IPV6_BAD_VERSION: return RoceCheck.IPV6_BAD_VERSION;
            case IPV6_PAYLOAD_LENGTH_BEYOND_BUFFER: return RoceCheck.IPV6_PAYLOAD_LENGTH_BEYOND_BUFFER;
            case IPV6_EXTENSION_HEADER: return RoceCheck.IPV6_EXTENSION_HEADER;
            case WRONG_TRANSPORT: return RoceCheck.NOT_UDP;
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
