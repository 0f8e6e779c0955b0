package dev.irdmaemu.model.tcp;

/**
 * What one connection counts, in the manner of RFC 4022's TCP-MIB and Linux's per-socket statistics (tcp_info,
 * the LINUX_MIB_TCP* counters): segments and bytes each way, retransmissions by cause, and every segment the
 * input path turned away and why. Written by {@link TcpInput}, {@link TcpOutput} and {@link TcpTimers}, read
 * through {@link OffloadedTcp}'s accessors. Plain fields: one thread, and nothing here is allocated or boxed.
 */
final class TcpCounters {
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
}
