package dev.irdmaemu.model.tcp;

import static dev.irdmaemu.model.tcp.TransmissionControlBlock.seqDiff;

import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.sim.SimTimer;

/**
 * The connection's timers and what happens when they fire, as Linux's tcp_timer.c has them: the retransmission
 * timer with its round-trip estimate and back-off (RFC 6298), the persist timer probing a zero window (RFC 9293
 * §3.8.6.1, RFC 1122 §4.2.2.17), the delayed-ACK timer (RFC 1122 §4.2.3.2, RFC 5681 §4.2) and 2 MSL in TIME_WAIT
 * (RFC 9293 §3.4.2); also the zero-delay transmit event {@link TcpOutput} runs in. Each is one {@link SimTimer}
 * made once, so arming and firing allocate nothing.
 *
 * <p>RTO choices: the floor defaults to 200 ms (Linux TCP_RTO_MIN, {@link TcpConnectionParams#rtoMinNanos}) rather
 * than RFC 6298's 1 s; forward progress clears the back-off at once, as Linux's tcp_ack does; after
 * {@code maxRetransmits} timeouts in a row the connection closes with TOO_MANY_RETRIES and sends nothing (the peer
 * is unreachable); a timeout restarts transmission from SND.UNA (go-back-N with slow start).
 */
final class TcpTimers {
    private final TcpConnectionParams p;
    private final SimScheduler scheduler;
    private final TransmissionControlBlock tcb;
    private final TcpCounters counters;
    private final CongestionControl congestion;
    private final OffloadedTcp connection;
    private final OffloadedTcp.Listener listener;
    /** Set once by {@link #sendThrough}, before any timer can fire: output and timers each arm the other. */
    private TcpOutput output;

    final SimTimer retransmit;
    final SimTimer persist;
    private final SimTimer delayedAck;
    private final SimTimer timeWait;
    private final SimTimer transmitKick;

    // RTT and RTO (RFC 6298), nanoseconds.
    private long srtt;
    private long rttvar;
    private long rto;
    /** The RTO from the estimator, before any back-off. */
    private long baseRto;
    private int backoff;
    private int consecutiveTimeouts;
    /** A segment is being timed for an RTT sample (one at a time, RFC 6298 §3). */
    private boolean rttTiming;
    private long rttSeq;
    private long rttStart;
    private long persistInterval;
    /** Segments received in order and not yet acknowledged. */
    private int unackedSegments;

    TcpTimers(SimScheduler scheduler, TcpConnectionParams params, TransmissionControlBlock tcb,
              TcpCounters counters, CongestionControl congestion, OffloadedTcp connection,
              OffloadedTcp.Listener listener) {
        this.p = params;
        this.scheduler = scheduler;
        this.tcb = tcb;
        this.counters = counters;
        this.congestion = congestion;
        this.connection = connection;
        this.listener = listener;
        this.retransmit = scheduler.newTimer("tcp-rto", this::onRetransmitTimeout);
        this.persist = scheduler.newTimer("tcp-persist", this::onPersist);
        this.delayedAck = scheduler.newTimer("tcp-delack", this::onDelayedAck);
        this.timeWait = scheduler.newTimer("tcp-timewait", this::onTimeWait);
        this.transmitKick = scheduler.newTimer("tcp-tx", this::onTransmitKick);
        this.rto = params.rtoInitialNanos();
        this.baseRto = rto;
    }

    /** Where the timers send from; called once, while the connection is built. */
    void sendThrough(TcpOutput output) {
        this.output = output;
    }

    long rto() {
        return rto;
    }

    long srtt() {
        return srtt;
    }

    int consecutiveTimeouts() {
        return consecutiveTimeouts;
    }

    // ------------------------------------------------------------------ retransmission timer (RFC 6298 §5)

    /** Data went out: the timer runs if it was not running (§5.1). */
    void armRetransmit() {
        if (!retransmit.isPending()) {
            retransmit.scheduleIn(rto);
        }
    }

    /** The timer starts over, one RTO from now (a retransmission, §5.4-5.6). */
    void restartRetransmit() {
        retransmit.scheduleIn(rto);
    }

    /** New data was acknowledged: restart for what is still outstanding (§5.3), stop when nothing is (§5.2). */
    void restartOrStopRetransmit() {
        if (seqDiff(tcb.sndNxt, tcb.sndUna) > 0) {
            retransmit.scheduleIn(rto);
        } else {
            retransmit.cancel();
        }
    }

    void stopRetransmit() {
        retransmit.cancel();
    }

    private void onRetransmitTimeout() {
        if (seqDiff(tcb.sndNxt, tcb.sndUna) <= 0 || tcb.state == TcpState.CLOSED
                || tcb.state == TcpState.TIME_WAIT) {
            return;
        }
        counters.timeouts++;
        consecutiveTimeouts++;
        if (consecutiveTimeouts > p.maxRetransmits()) {
            enterClosed();
            listener.event(connection, TcpEvent.TOO_MANY_RETRIES);
            return;
        }
        // RFC 5681 §3.1 eq. 4 and the go-back-N restart; RFC 6298 §5.5 back-off.
        congestion.onRetransmitTimeout(tcb.flight(tcb.sndUna), tcb.sndMax);
        rttTiming = false;
        backoff++;
        rto = Math.min(p.rtoMaxNanos(), rto * 2);
        output.goBackN();
        retransmit.scheduleIn(rto);
    }

    // ------------------------------------------------------------------ RTT samples (RFC 6298 §2-3)

    /** {@code seq} is being sent for the first time: time it, unless a sample is already being taken. */
    void timeSegment(long seq) {
        if (!rttTiming) {
            rttTiming = true;
            rttSeq = seq;
            rttStart = scheduler.now();
        }
    }

    /** Karn's algorithm (RFC 6298 §3): the {@code len} bytes from {@code seq} are resent, so give no sample. */
    void retransmitted(long seq, int len) {
        if (rttTiming && seqDiff(rttSeq, seq) >= 0 && seqDiff(rttSeq, seq + len) < 0) {
            rttTiming = false;
        }
    }

    /** {@code ack} acknowledged new data: the timed segment's sample if it is covered, and the back-off ends. */
    void forwardProgress(long ack) {
        consecutiveTimeouts = 0;
        if (rttTiming && seqDiff(ack, rttSeq) > 0) {
            rttTiming = false;
            rttSample(scheduler.now() - rttStart);
        }
        if (backoff > 0) {
            // Forward progress ends the back-off at once, without waiting for a fresh sample (Linux does the same
            // in tcp_ack); otherwise after a go-back-N restart, which gives no samples (Karn), every further loss
            // would double an RTO nothing ever brings down.
            backoff = 0;
            rto = baseRto;
        }
    }

    private void rttSample(long r) {
        // RFC 6298 §2.2-2.3, alpha 1/8, beta 1/4; G taken as 1 µs (the model's clock is exact).
        if (srtt == 0) {
            srtt = r;
            rttvar = r / 2;
        } else {
            rttvar = (3 * rttvar + Math.abs(srtt - r)) / 4;
            srtt = (7 * srtt + r) / 8;
        }
        baseRto = Math.min(p.rtoMaxNanos(), Math.max(p.rtoMinNanos(), srtt + Math.max(1_000L, 4 * rttvar)));
        if (backoff == 0) {
            rto = baseRto;
        }
    }

    // ------------------------------------------------------------------ persist timer

    /** A zero window holds back data with nothing in flight: probe it, first after one RTO, backed off after. */
    void armPersist() {
        if (!persist.isPending()) {
            if (persistInterval == 0) {
                persistInterval = rto;
            }
            persist.scheduleIn(persistInterval);
        }
    }

    /** The peer opened its window. */
    void stopPersist() {
        persist.cancel();
        persistInterval = 0;
    }

    private void onPersist() {
        if (tcb.sndWnd != 0 || tcb.state == TcpState.CLOSED || seqDiff(tcb.sndNxt, tcb.sndUna) > 0) {
            persistInterval = 0;
            output.output();
            return;
        }
        output.sendWindowProbe();
        // Backed off like the RTO, never counted as a retransmission.
        persistInterval = Math.min(p.rtoMaxNanos(), persistInterval * 2);
        persist.scheduleIn(persistInterval);
    }

    // ------------------------------------------------------------------ delayed ACK (RFC 5681 §4.2)

    /**
     * A segment arrived in order: answers false when it must be acknowledged now (every second one: RFC 5681
     * §4.2 asks for an ACK at least for every second full-size segment, short ones are counted alike), else makes
     * sure the delayed-ACK timer runs.
     */
    boolean delayAck() {
        if (++unackedSegments >= 2) {
            return false;
        }
        if (!delayedAck.isPending()) {
            delayedAck.scheduleIn(p.delayedAckNanos());
        }
        return true;
    }

    /** A segment carrying our RCV.NXT is going out: nothing is owed any more. */
    void ackSent() {
        unackedSegments = 0;
        delayedAck.cancel();
    }

    private void onDelayedAck() {
        counters.delayedAcks++;
        output.sendAck();
    }

    // ------------------------------------------------------------------ transmission event

    /**
     * Transmission runs as its own event at the current instant, after whatever the upper layer is doing, so that
     * FPDUs posted back to back leave as full segments (the hardware likewise works its SQ after the doorbell).
     */
    void kick() {
        if (!transmitKick.isPending()) {
            transmitKick.scheduleIn(0);
        }
    }

    private void onTransmitKick() {
        output.output();
    }

    // ------------------------------------------------------------------ TIME_WAIT and CLOSED

    /** TIME_WAIT (RFC 9293 §3.10.7.4): nothing more to resend or probe; CLOSED after 2 MSL. */
    void enterTimeWait() {
        tcb.state = TcpState.TIME_WAIT;
        retransmit.cancel();
        persist.cancel();
        timeWait.scheduleIn(p.timeWaitNanos());
    }

    /** A retransmitted FIN in TIME_WAIT: 2 MSL start again (RFC 9293 §3.10.7.4). */
    void restartTimeWait() {
        timeWait.scheduleIn(p.timeWaitNanos());
    }

    private void onTimeWait() {
        tcb.state = TcpState.CLOSED;
    }

    /** CLOSED: every timer stops, nothing more is sent or acknowledged. */
    void enterClosed() {
        tcb.state = TcpState.CLOSED;
        retransmit.cancel();
        persist.cancel();
        delayedAck.cancel();
        timeWait.cancel();
        transmitKick.cancel();
    }
}
