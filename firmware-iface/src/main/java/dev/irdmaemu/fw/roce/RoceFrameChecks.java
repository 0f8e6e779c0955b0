package dev.irdmaemu.fw.roce;

import dev.irdmaemu.fw.frame.UdpHeader;

/**
 * The layer codecs' verdicts as {@link RoceCheck}s: {@link RoceFrame} answers one enum for the whole frame, as
 * {@code TcpPacket} does for TCP frames.
 */
final class RoceFrameChecks {
    private RoceFrameChecks() {
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
