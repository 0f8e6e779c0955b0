package dev.irdmaemu.model.tcp;

import static dev.irdmaemu.model.tcp.TransmissionControlBlock.seqDiff;

/**
 * The sender's congestion state: the congestion window and slow-start threshold (RFC 5681 §3.1) grown by bytes
 * acknowledged (RFC 3465), the duplicate-ACK count behind fast retransmit (RFC 5681 §3.2), and NewReno's recovery
 * (RFC 6582 §3.2). Linux splits the same between tcp_cong.c (the Reno window growth) and tcp_input.c (the loss
 * and recovery state). This class decides and keeps the numbers; the segments the decisions call for are sent by
 * {@link TcpInput} and {@link TcpTimers}, at the moments RFC 6582 places them between the window updates.
 */
final class CongestionControl {
    private final int smss;
    private final int dupAckThreshold;

    private long cwnd;
    private long ssthresh;
    /** RFC 3465 §2.1: bytes acknowledged in congestion avoidance since the window last grew. */
    private long bytesAcked;
    /**
     * RFC 3465 §2.3: after a retransmission timeout, slow start grows by at most one SMSS per ACK until the data
     * outstanding at the timeout (up to this sequence number) is acknowledged; 2 SMSS otherwise.
     */
    private long rtoRecover;
    private boolean afterTimeout;
    private int dupAcks;
    private boolean inRecovery;
    /** RFC 6582's "recover": the highest sequence number sent when fast retransmit began. */
    private long recover;

    CongestionControl(int smss, long initialCwnd, long ssThresh, int dupAckThreshold) {
        this.smss = smss;
        this.dupAckThreshold = dupAckThreshold;
        this.cwnd = Math.max(initialCwnd, smss);
        this.ssthresh = ssThresh;
    }

    long cwnd() {
        return cwnd;
    }

    boolean inRecovery() {
        return inRecovery;
    }

    /**
     * The window's growth for an ACK of new data outside recovery, by the bytes it acknowledges (RFC 3465
     * appropriate byte counting, which RFC 5681 §3.1 allows): a receiver that acknowledges several segments at
     * once (delayed ACKs, a guest's coalesced receives) gets the window a receiver acknowledging each one would.
     * Slow start: up to L = 2 SMSS per ACK (§2.2), 1 SMSS while the data outstanding at a timeout is still being
     * acknowledged (§2.3). Congestion avoidance: one SMSS each time a window's worth of bytes is acknowledged
     * (§2.1). The E810's context has a cwnd_inc_limit field (ctrl.c irdma_sc_qp_setctx, IRDMAQPC_LIMIT) that irdma
     * leaves at 0; the kernel does not say what the hardware does per ACK, so the RFCs decide.
     */
    void grow(long ack, long dataAcked) {
        if (afterTimeout && seqDiff(ack, rtoRecover) >= 0) {
            afterTimeout = false;
        }
        if (cwnd < ssthresh) {
            long limit = afterTimeout ? smss : 2L * smss;
            cwnd += Math.min(dataAcked, limit);
            bytesAcked = 0;
        } else {
            bytesAcked += dataAcked;
            if (bytesAcked >= cwnd) {
                bytesAcked -= cwnd;
                cwnd += smss;
            }
        }
    }

    /** In recovery, {@code ack} covers all that was outstanding when it began: RFC 6582 §3.2 step 3's full ACK. */
    boolean fullyAcknowledges(long ack) {
        return seqDiff(ack, recover) >= 0;
    }

    /** Full acknowledgment: recovery ends, the window deflates to ssthresh at most (RFC 6582 §3.2 step 3). */
    void exitRecovery(long flightAfterAck) {
        inRecovery = false;
        cwnd = Math.min(ssthresh, Math.max(flightAfterAck, smss) + smss);
    }

    /**
     * Partial acknowledgment (RFC 6582 §3.2 step 3, second case): the window deflates by the data acknowledged
     * and grows back one SMSS when that was a full segment or more. The caller resends the next hole first.
     */
    void deflate(long dataAcked) {
        cwnd = Math.max(smss, cwnd - dataAcked + (dataAcked >= smss ? smss : 0));
    }

    /** New data was acknowledged: the duplicate count starts again. */
    void newDataAcknowledged() {
        dupAcks = 0;
    }

    /**
     * One more duplicate ACK (RFC 5681 §3.2). In recovery it inflates the window by one SMSS (step 4); answers
     * true when it is the one that calls for fast retransmit, which the caller then starts with
     * {@link #enterRecovery}.
     */
    boolean duplicateAck() {
        dupAcks++;
        if (inRecovery) {
            cwnd += smss;
            return false;
        }
        return dupAcks == dupAckThreshold;
    }

    /**
     * Fast retransmit begins (RFC 6582 §3.2 step 2, RFC 5681 §3.2 step 2): ssthresh to half the flight, recovery
     * until {@code highestSent} is acknowledged. The window is set by {@link #inflateForRecovery} once the lost
     * segment is resent.
     */
    void enterRecovery(long flight, long highestSent) {
        ssthresh = Math.max(flight / 2, 2L * smss);
        bytesAcked = 0;
        recover = highestSent;
        inRecovery = true;
    }

    /** RFC 5681 §3.2 step 3: ssthresh plus the three segments the duplicate ACKs say have left the network. */
    void inflateForRecovery() {
        cwnd = ssthresh + 3L * smss;
    }

    /**
     * A retransmission timeout (RFC 5681 §3.1 equation 4): ssthresh to half the flight, one segment of window,
     * recovery abandoned, and slow start held to one SMSS per ACK until {@code highestSent} is acknowledged
     * (RFC 3465 §2.3).
     */
    void onRetransmitTimeout(long flight, long highestSent) {
        ssthresh = Math.max(flight / 2, 2L * smss);
        cwnd = smss;
        bytesAcked = 0;
        afterTimeout = true;
        rtoRecover = highestSent;
        inRecovery = false;
        dupAcks = 0;
    }
}
