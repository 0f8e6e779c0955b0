package dev.irdmaemu.model.tcp;

/**
 * What one connection counts, in the manner of RFC 4022's TCP-MIB and Linux's per-socket statistics (tcp_info,
 * the LINUX_MIB_TCP* counters): segments and bytes each way, retransmissions by cause, and every segment the
 * input path turned away and why. Written by {@link TcpInput}, {@link TcpOutput} and {@link TcpTimers}, read
 * through {@link OffloadedTcp#counters()}, read-only outside the package. Plain fields: one thread, and nothing here
 * is allocated or boxed.
 */
public final class TcpCounters {
    long segmentsSent;
    long segmentsReceived;
    long bytesSent;
    long bytesDelivered;
    long retransmittedSegments;
    long fastRetransmits;
    long timeouts;
    long dupAcksReceived;
    long outOfOrderSegments;
    long outOfOrderDropped;
    long outOfWindowSegments;
    long duplicateSegments;
    long badAcks;
    long challengeAcks;
    long challengeAcksSuppressed;
    long outOfWindowAcksSuppressed;
    long resetsReceived;
    long resetsIgnored;
    long synsReceived;
    long badFrames;
    long wrongConnection;
    long persistProbes;
    long delayedAcks;
    long acksSent;

    public long segmentsSent() {
        return segmentsSent;
    }

    public long segmentsReceived() {
        return segmentsReceived;
    }

    public long bytesSent() {
        return bytesSent;
    }

    public long bytesDelivered() {
        return bytesDelivered;
    }

    public long retransmittedSegments() {
        return retransmittedSegments;
    }

    public long fastRetransmits() {
        return fastRetransmits;
    }

    public long timeouts() {
        return timeouts;
    }

    public long dupAcksReceived() {
        return dupAcksReceived;
    }

    public long outOfOrderSegments() {
        return outOfOrderSegments;
    }

    public long outOfOrderDropped() {
        return outOfOrderDropped;
    }

    public long outOfWindowSegments() {
        return outOfWindowSegments;
    }

    public long duplicateSegments() {
        return duplicateSegments;
    }

    public long badAcks() {
        return badAcks;
    }

    public long challengeAcks() {
        return challengeAcks;
    }

    public long challengeAcksSuppressed() {
        return challengeAcksSuppressed;
    }

    public long outOfWindowAcksSuppressed() {
        return outOfWindowAcksSuppressed;
    }

    public long resetsReceived() {
        return resetsReceived;
    }

    public long resetsIgnored() {
        return resetsIgnored;
    }

    public long synsReceived() {
        return synsReceived;
    }

    public long badFrames() {
        return badFrames;
    }

    public long wrongConnection() {
        return wrongConnection;
    }

    public long persistProbes() {
        return persistProbes;
    }

    public long delayedAcks() {
        return delayedAcks;
    }

    public long acksSent() {
        return acksSent;
    }
}
