package dev.irdmaemu.model.tcp;

import static dev.irdmaemu.model.tcp.TransmissionControlBlock.seqDiff;

import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.sim.SimScheduler;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * What the connection does with each segment that arrives, in the order of RFC 9293 §3.10.7.4 for the
 * synchronized states, as Linux's tcp_input.c does it: the sequence-number acceptability test, RST and SYN
 * (answered with challenge ACKs unless the RST matches exactly, RFC 5961 §3.2 and §4.2), the ACK (its
 * acceptability, RFC 5961 §5.2, the send-window update, new data acknowledged and duplicate ACKs for
 * {@link CongestionControl}), the segment text (in order to the {@link TcpReceiver}, beyond RCV.NXT to the
 * {@link ReassemblyQueue} and acknowledged at once, RFC 5681 §4.2) and the FIN with the state changes it brings.
 *
 * <p>Blind-attack defences: challenge ACKs are limited to {@value OffloadedTcp#CHALLENGE_ACK_LIMIT} a second
 * (RFC 5961 §7), and the ACK answering an unacceptable segment without data to one per
 * {@link OffloadedTcp#OUT_OF_WINDOW_ACK_INTERVAL} (two ends that disagree on the sequence space would otherwise
 * trade ACKs for ever). PAWS is not applied: timestamps are echoed, not used to reject.
 */
final class TcpInput {
    private static final long SECOND = 1_000_000_000L;

    private final SimScheduler scheduler;
    private final TcpConnectionParams p;
    private final TransmissionControlBlock tcb;
    private final TcpCounters counters;
    private final CongestionControl congestion;
    private final SendBuffer sendBuffer;
    private final ReassemblyQueue reassembly;
    private final TcpTimers timers;
    private final TcpOutput output;
    private final TcpReceiver receiver;
    private final OffloadedTcp connection;
    private final OffloadedTcp.Listener listener;
    private final TcpPacket packet = new TcpPacket();

    /** Whether a challenge-ACK second has begun, and when. */
    private boolean challengeWindowStarted;
    private long challengeWindowStart;
    private int challengeAcksInWindow;
    /** Whether an ACK to an unacceptable segment was ever sent, and when the last one was. */
    private boolean outOfWindowAckSent;
    private long lastOutOfWindowAck;

    TcpInput(SimScheduler scheduler, TcpConnectionParams params, TransmissionControlBlock tcb, TcpCounters counters,
             CongestionControl congestion, SendBuffer sendBuffer, ReassemblyQueue reassembly, TcpTimers timers,
             TcpOutput output, TcpReceiver receiver, OffloadedTcp connection, OffloadedTcp.Listener listener) {
        this.scheduler = scheduler;
        this.p = params;
        this.tcb = tcb;
        this.counters = counters;
        this.congestion = congestion;
        this.sendBuffer = sendBuffer;
        this.reassembly = reassembly;
        this.timers = timers;
        this.output = output;
        this.receiver = receiver;
        this.connection = connection;
        this.listener = listener;
    }

    /** {@link OffloadedTcp#receive}: validates the frame first. */
    void receive(BytesStore<?, ?> store, long offset, int length) {
        TcpPacket.Status status = packet.wrap(store, offset, length).validate();
        if (!status.accepted()) {
            counters.badFrames++;
            return;
        }
        receiveValidated(packet);
    }

    /** {@link OffloadedTcp#receiveValidated}: one segment, through the steps of RFC 9293 §3.10.7.4. */
    void receiveValidated(TcpPacket packet) {
        TcpHeader h = packet.tcp();
        if (!ofThisConnection(packet, h)) {
            counters.wrongConnection++;
            return;
        }
        counters.segmentsReceived++;
        if (tcb.state == TcpState.CLOSED) {
            return;
        }
        long seq = h.sequenceNumber();
        long ack = h.acknowledgmentNumber();
        int dataLength = (int) packet.tcpPayloadLength();
        long dataOffset = packet.offset() + packet.tcpPayloadOffset();
        boolean fin = h.fin();
        int segLen = dataLength + (fin ? 1 : 0) + (h.syn() ? 1 : 0);

        // First: sequence number acceptability.
        // The window checked against is what the upper layer has free now; with a well-behaved upper layer the
        // right edge never moves left, since every delivered byte both advances RCV.NXT and uses a byte of space.
        long window = output.receiveWindow();
        if (!acceptable(seq, segLen, window)) {
            unacceptable(h, seq, segLen, fin);
            return;
        }
        // Second: RST.
        if (h.rst()) {
            onReset(seq);
            return;
        }
        // Fourth: SYN in a synchronized state, RFC 5961 §4.2: challenge ACK, drop.
        if (h.syn()) {
            counters.synsReceived++;
            challengeAck();
            return;
        }
        // Fifth: no ACK bit, drop.
        if (!h.ack()) {
            return;
        }
        if (!processAck(ack, seq, h.window() << p.sndWscale(), dataLength == 0 && !fin, segLen > 0)) {
            return;
        }
        if (p.timestamps() && h.hasTimestamps() && seqDiff(seq, tcb.rcvNxt) <= 0) {
            tcb.tsRecent = h.tsVal();
        }
        if (tcb.state == TcpState.CLOSED || tcb.state == TcpState.TIME_WAIT) {
            return;
        }
        // Seventh: segment text.
        if (dataLength > 0 && tcb.receivesData()) {
            processData(seq, packet.store(), dataOffset, dataLength, window);
        }
        // Eighth: FIN, only when in order (an early FIN is dropped with its segment's tail; the peer resends).
        if (fin && seqDiff(seq + dataLength, tcb.rcvNxt) == 0 && tcb.receivesData()) {
            tcb.rcvNxt = (tcb.rcvNxt + 1) & 0xffff_ffffL;
            onFinReceived();
            output.sendAck();
        }
    }

    /** The segment's ports and addresses are this connection's (the port's classifier should have seen to it). */
    private boolean ofThisConnection(TcpPacket packet, TcpHeader h) {
        return h.destinationPort() == p.localPort() && h.sourcePort() == p.remotePort()
                && packet.sourceHi() == p.remoteHi() && packet.sourceLo() == p.remoteLo()
                && packet.destinationHi() == p.localHi() && packet.destinationLo() == p.localLo();
    }

    private boolean acceptable(long seq, int segLen, long window) {
        // RFC 9293 §3.10.7.4 table of the four acceptability tests.
        long rcvNxt = tcb.rcvNxt;
        if (segLen == 0) {
            if (window == 0) {
                return seq == rcvNxt;
            }
            return seqDiff(seq, rcvNxt) >= 0 && seqDiff(seq, rcvNxt) < window;
        }
        if (window == 0) {
            return false;
        }
        long last = seq + segLen - 1;
        return (seqDiff(seq, rcvNxt) >= 0 && seqDiff(seq, rcvNxt) < window)
                || (seqDiff(last, rcvNxt) >= 0 && seqDiff(last, rcvNxt) < window);
    }

    /** A segment failing the acceptability test: counted, and answered with an ACK unless it is a RST. */
    private void unacceptable(TcpHeader h, long seq, int segLen, boolean fin) {
        if (segLen > 0 && seqDiff(seq + segLen, tcb.rcvNxt) <= 0) {
            counters.duplicateSegments++;
        } else {
            counters.outOfWindowSegments++;
        }
        if (!h.rst()) {
            if (segLen > 0) {
                output.sendAck();
            } else {
                outOfWindowAck();
            }
            if (fin && tcb.state == TcpState.TIME_WAIT) {
                // A retransmitted FIN in TIME_WAIT: acknowledged above, 2 MSL restarts (RFC 9293 §3.10.7.4).
                timers.restartTimeWait();
            }
        }
    }

    /** RFC 5961 §3.2: reset only on an exact match, else a challenge ACK. */
    private void onReset(long seq) {
        if (seq == tcb.rcvNxt) {
            counters.resetsReceived++;
            timers.enterClosed();
            listener.event(connection, TcpEvent.CONNECTION_RESET);
        } else {
            counters.resetsIgnored++;
            challengeAck();
        }
    }

    // ------------------------------------------------------------------ ACK

    /** Answers false when the segment must be dropped. */
    private boolean processAck(long ack, long seq, long peerWindow, boolean pureAck, boolean occupiesSequence) {
        // RFC 5961 §5.2: ACK acceptable when SND.UNA - MAX.SND.WND <= SEG.ACK <= SND.NXT (SND.MAX here: after a
        // go-back-N retransmission the peer may acknowledge what was sent before).
        if (seqDiff(ack, tcb.sndMax) > 0 || seqDiff(ack, tcb.sndUna - Math.max(tcb.maxSndWnd, 1)) < 0) {
            counters.badAcks++;
            if (occupiesSequence) {
                output.sendAck();
            } else {
                outOfWindowAck();
            }
            return false;
        }
        long acked = seqDiff(ack, tcb.sndUna);
        boolean windowChanged = peerWindow != tcb.sndWnd;
        // Send-window update, RFC 9293 §3.10.7.4 fifth step.
        if (acked >= 0 && (seqDiff(tcb.sndWl1, seq) < 0 || (tcb.sndWl1 == seq && seqDiff(tcb.sndWl2, ack) <= 0))) {
            updateSendWindow(ack, seq, peerWindow);
        }
        if (acked > 0) {
            onNewAck(ack, acked);
        } else if (acked == 0 && pureAck && !windowChanged && seqDiff(tcb.sndMax, tcb.sndUna) > 0) {
            onDupAck();
        }
        output.output();
        return true;
    }

    /** The segment is newer than the last window update: take its window (an acceptable ACK, at or past SND.UNA). */
    private void updateSendWindow(long ack, long seq, long peerWindow) {
        boolean wasZero = tcb.sndWnd == 0;
        tcb.sndWnd = peerWindow;
        tcb.sndWl1 = seq;
        tcb.sndWl2 = ack;
        tcb.maxSndWnd = Math.max(tcb.maxSndWnd, tcb.sndWnd);
        if (wasZero && tcb.sndWnd > 0) {
            timers.stopPersist();
        } else if (tcb.sndWnd == 0 && seqDiff(tcb.sndNxt, ack) > 0) {
            // The peer closed its window on data already sent (it shrank it, RFC 9293 §3.8.6 says to cope):
            // take that data back as unsent and probe instead of timing it out.
            tcb.sndNxt = ack;
            timers.stopRetransmit();
        }
    }

    private void onNewAck(long ack, long acked) {
        timers.forwardProgress(ack);
        long dataAcked = Math.min(acked, seqDiff(tcb.writeSeq, tcb.sndUna));
        if (congestion.inRecovery()) {
            if (congestion.fullyAcknowledges(ack)) {
                congestion.exitRecovery(tcb.flight(ack));
            } else {
                // Partial acknowledgment: resend the next hole, deflate (RFC 6582 §3.2 step 3).
                tcb.sndUna = ack;
                output.retransmitFirst();
                congestion.deflate(dataAcked);
            }
        } else {
            congestion.grow(ack, dataAcked);
        }
        congestion.newDataAcknowledged();
        tcb.sndUna = ack;
        if (seqDiff(tcb.sndNxt, tcb.sndUna) < 0) {
            tcb.sndNxt = tcb.sndUna;
        }
        sendBuffer.acknowledged(tcb.sndUna);
        if (tcb.finQueued && seqDiff(ack, tcb.finSeq) > 0) {
            onFinAcked();
        }
        timers.restartOrStopRetransmit();
        if (dataAcked > 0) {
            listener.acknowledged(connection);
        }
        if (dataAcked > 0 && tcb.sends() && !tcb.finQueued) {
            listener.sendSpaceAvailable(connection);
        }
    }

    private void onDupAck() {
        counters.dupAcksReceived++;
        if (congestion.duplicateAck()) {
            counters.fastRetransmits++;
            congestion.enterRecovery(tcb.flight(tcb.sndUna), tcb.sndMax);
            output.retransmitFirst();
            congestion.inflateForRecovery();
        }
    }

    // ------------------------------------------------------------------ segment text

    private void processData(long seq, BytesStore<?, ?> store, long offset, int length, long window) {
        // Trim what is already received and what is beyond the window (RFC 9293 §3.10.7.4).
        long skip = seqDiff(tcb.rcvNxt, seq);
        if (skip > 0) {
            seq = tcb.rcvNxt;
            offset += skip;
            length -= (int) skip;
        }
        long beyond = seqDiff(seq + length, tcb.rcvNxt + window);
        if (beyond > 0) {
            length -= (int) beyond;
        }
        if (length <= 0) {
            output.sendAck();
            return;
        }
        if (seq != tcb.rcvNxt) {
            counters.outOfOrderSegments++;
            receiver.outOfOrder(seq, store, offset, length);
            if (p.dropOutOfOrder() || !reassembly.insert(seq, store, offset, length)) {
                counters.outOfOrderDropped++;
            }
            output.sendAck(); // RFC 5681 §4.2: an out-of-order segment is acknowledged at once
            return;
        }
        receiver.deliver(store, offset, length);
        counters.bytesDelivered += length;
        tcb.rcvNxt = (tcb.rcvNxt + length) & 0xffff_ffffL;
        if (drainReassembly()) {
            output.sendAck(); // a hole filled: the peer hears of it at once
            return;
        }
        if (!timers.delayAck()) {
            output.sendAck();
        }
    }

    /** Delivers buffered bytes now in order; answers whether any were. */
    private boolean drainReassembly() {
        boolean any = false;
        while (reassembly.firstRangeReaches(tcb.rcvNxt)) {
            long from = tcb.rcvNxt;
            long end = reassembly.removeFirstRange();
            int n = (int) seqDiff(end, from);
            if (n <= 0) {
                continue;
            }
            reassembly.deliver(from, n, receiver);
            counters.bytesDelivered += n;
            tcb.rcvNxt = end & 0xffff_ffffL;
            any = true;
        }
        return any;
    }

    // ------------------------------------------------------------------ FIN and the closing states

    private void onFinReceived() {
        reassembly.clear();
        switch (tcb.state) {
            case ESTABLISHED:
                tcb.state = TcpState.CLOSE_WAIT;
                listener.event(connection, TcpEvent.FIN_RECEIVED);
                break;
            case FIN_WAIT_1:
                tcb.state = TcpState.CLOSING;
                listener.event(connection, TcpEvent.FIN_RECEIVED);
                break;
            case FIN_WAIT_2:
                listener.event(connection, TcpEvent.FIN_RECEIVED);
                enterTimeWait();
                break;
            default:
                break;
        }
    }

    private void onFinAcked() {
        switch (tcb.state) {
            case FIN_WAIT_1:
                tcb.state = TcpState.FIN_WAIT_2;
                break;
            case CLOSING:
                enterTimeWait();
                break;
            case LAST_ACK:
                timers.enterClosed();
                reportClose();
                break;
            default:
                break;
        }
    }

    private void enterTimeWait() {
        timers.enterTimeWait();
        reportClose();
    }

    private void reportClose() {
        if (!tcb.closeReported) {
            tcb.closeReported = true;
            listener.event(connection, TcpEvent.CLOSE_COMPLETE);
        }
    }

    // ------------------------------------------------------------------ rate-limited answers

    /**
     * The ACK owed to an unacceptable segment that carries no data (RFC 9293 §3.10.7.4 says to answer it), at most
     * one per {@link OffloadedTcp#OUT_OF_WINDOW_ACK_INTERVAL}: two ends that disagree about the sequence space
     * would otherwise answer each other's pure ACKs for ever (Linux rate-limits these the same way, with a 500 ms
     * default). Segments carrying data are always answered, so lost ACKs still recover.
     */
    private void outOfWindowAck() {
        long now = scheduler.now();
        if (outOfWindowAckSent && now - lastOutOfWindowAck < OffloadedTcp.OUT_OF_WINDOW_ACK_INTERVAL) {
            counters.outOfWindowAcksSuppressed++;
            return;
        }
        outOfWindowAckSent = true;
        lastOutOfWindowAck = now;
        output.sendAck();
    }

    /** A challenge ACK (RFC 5961 §3.2, §4.2), at most {@link OffloadedTcp#CHALLENGE_ACK_LIMIT} a second (§7). */
    private void challengeAck() {
        long now = scheduler.now();
        if (!challengeWindowStarted || now - challengeWindowStart >= SECOND) {
            challengeWindowStarted = true;
            challengeWindowStart = now;
            challengeAcksInWindow = 0;
        }
        if (challengeAcksInWindow >= OffloadedTcp.CHALLENGE_ACK_LIMIT) {
            counters.challengeAcksSuppressed++;
            return;
        }
        challengeAcksInWindow++;
        counters.challengeAcks++;
        output.sendAck();
    }
}
