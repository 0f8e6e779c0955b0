package dev.irdmaemu.model.tcp;

import static dev.irdmaemu.model.tcp.TransmissionControlBlock.seqDiff;

import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.port.FrameTransmitter;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Everything the connection puts on the wire, as Linux's tcp_output.c does it: data segments cut from the
 * {@link SendBuffer} within the congestion and send windows, with sender SWS avoidance (RFC 9293 §3.8.6.2.1) and
 * MPA's FPDU alignment (RFC 5044 §8: a segment ends at a record end when one lies inside it), retransmissions of
 * the first unacknowledged segment and the go-back-N restart after a timeout, pure ACKs, window probes
 * (RFC 9293 §3.8.6.1, one byte below SND.UNA as Linux's tcp_xmit_probe_skb sends them) and RST. It also owns
 * the window field we advertise (receiver SWS avoidance, RFC 9293 §3.8.6.2.2) and the timestamp option
 * (RFC 7323). Frames are built in one reused buffer: nothing here allocates.
 *
 * <p>Pure ACKs carry SND.MAX, not the go-back-N pointer: an ACK whose sequence number is below the peer's RCV.NXT
 * would be unacceptable to it and dropped unread (RFC 9293 §3.10.7.4), and two sides both retransmitting would
 * never hear each other.
 */
final class TcpOutput {
    private static final int MAX_WINDOW_FIELD = 0xffff;

    private final SimScheduler scheduler;
    private final TcpConnectionParams p;
    private final TransmissionControlBlock tcb;
    private final TcpCounters counters;
    private final CongestionControl congestion;
    private final SendBuffer sendBuffer;
    private final TcpTimers timers;
    private final FrameTransmitter transmitter;
    private final TcpReceiver receiver;
    private final int receiveBufferBytes;
    private final TcpPacketBuilder builder = new TcpPacketBuilder();
    private final BytesStore<?, Void> frame;

    TcpOutput(SimScheduler scheduler, TcpConnectionParams params, TransmissionControlBlock tcb, TcpCounters counters,
              CongestionControl congestion, SendBuffer sendBuffer, TcpTimers timers, FrameTransmitter transmitter,
              TcpReceiver receiver) {
        this.scheduler = scheduler;
        this.p = params;
        this.tcb = tcb;
        this.counters = counters;
        this.congestion = congestion;
        this.sendBuffer = sendBuffer;
        this.timers = timers;
        this.transmitter = transmitter;
        this.receiver = receiver;
        this.receiveBufferBytes = params.receiveBufferBytes();
        // Headers at most: tagged Ethernet 18 + IPv6 40 + TCP 60.
        this.frame = BytesStore.nativeStoreWithFixedCapacity(params.mss() + 128);
        tcb.lastWindowSent = receiveWindow();
        builder.ethernet(params.remoteMac(), params.localMac())
                .addresses(params.localHi(), params.localLo(), params.remoteHi(), params.remoteLo())
                .ttl(params.ttl()).tos(params.tos());
        if (params.ipv6()) {
            builder.flowLabel(params.flowLabel());
        }
        if (params.vlanTci() >= 0) {
            int tci = params.vlanTci();
            builder.vlan(tci >>> 13, (tci & 0x1000) != 0, tci & 0xfff);
        }
        builder.tcp().ports(params.localPort(), params.remotePort());
    }

    // ------------------------------------------------------------------ what the upper layer asks

    /** {@link OffloadedTcp#send}: queues one whole FPDU, all or nothing. */
    boolean send(BytesStore<?, ?> source, long offset, int length) {
        if (length < 0 || tcb.finQueued || !tcb.sends()) {
            return false;
        }
        if (length > sendSpace()) {
            return false;
        }
        sendBuffer.write(tcb.writeSeq, source, offset, length);
        tcb.writeSeq = (tcb.writeSeq + length) & 0xffff_ffffL;
        if (length > 0) {
            sendBuffer.noteRecordEnd(tcb.writeSeq);
        }
        timers.kick();
        return true;
    }

    long sendSpace() {
        if (tcb.finQueued || !tcb.sends()) {
            return 0;
        }
        return sendBuffer.capacity() - seqDiff(tcb.writeSeq, tcb.sndUna);
    }

    long unacknowledged() {
        return seqDiff(tcb.writeSeq, tcb.sndUna);
    }

    /**
     * Receive space was freed: advertise it if the window grew by at least two segments or half the buffer
     * (receiver side of SWS avoidance, RFC 9293 §3.8.6.2.2), which is also what reopens a zero window.
     */
    void receiveSpaceChanged() {
        if (!tcb.receives()) {
            return;
        }
        long window = receiveWindow();
        long grow = window - tcb.lastWindowSent;
        int smss = tcb.segmentPayload;
        if (grow > 0 && (grow >= Math.min(2L * smss, receiveBufferBytes / 2)
                || tcb.lastWindowSent < smss && window >= smss)) {
            sendAck();
        }
    }

    /** Graceful close: a FIN after every queued byte (RFC 9293 §3.10.4; Linux tcp_send_fin). */
    void close() {
        if (tcb.finQueued) {
            return;
        }
        if (tcb.state == TcpState.ESTABLISHED) {
            tcb.state = TcpState.FIN_WAIT_1;
        } else if (tcb.state == TcpState.CLOSE_WAIT) {
            tcb.state = TcpState.LAST_ACK;
        } else {
            return;
        }
        tcb.finQueued = true;
        tcb.finSeq = tcb.writeSeq;
        timers.kick();
    }

    /** Abortive close: RST now, unless in TIME_WAIT, then CLOSED (RFC 9293 §3.10.5; Linux tcp_send_active_reset). */
    void abort() {
        if (tcb.state == TcpState.CLOSED) {
            return;
        }
        if (tcb.state != TcpState.TIME_WAIT) {
            sendControl(tcb.sndMax, tcb.rcvNxt, TcpHeader.RST | TcpHeader.ACK, 0);
        }
        timers.enterClosed();
    }

    // ------------------------------------------------------------------ data segments

    /** Sends what the windows allow, then leaves a stalled zero window to the persist timer. */
    void output() {
        if (!tcb.sends() && !(tcb.finQueued && (tcb.state == TcpState.FIN_WAIT_1 || tcb.state == TcpState.CLOSING
                || tcb.state == TcpState.LAST_ACK))) {
            return;
        }
        while (true) {
            long unsent = seqDiff(tcb.writeSeq, tcb.sndNxt);
            boolean finDue = tcb.finQueued && seqDiff(tcb.sndNxt, tcb.finSeq) == 0 && unsent <= 0;
            if (unsent <= 0 && !finDue) {
                break;
            }
            int len = windowedLength(unsent);
            if (!windowAdmits(len, unsent, finDue)) {
                break;
            }
            if (len > 0 && len < unsent) {
                if (sendBuffer.recordEndsWithin(tcb.sndNxt, len)) {
                    len = sendBuffer.lengthToRecordEnd(tcb.sndNxt);
                } else if (len < tcb.segmentPayload && seqDiff(tcb.sndNxt, tcb.sndUna) > 0) {
                    // The window ends inside an FPDU: wait for the ACK rather than split it.
                    break;
                }
            }
            boolean fin = tcb.finQueued && seqDiff(tcb.sndNxt + len, tcb.finSeq) == 0;
            transmitSegment(tcb.sndNxt, len, fin);
            long next = (tcb.sndNxt + len + (fin ? 1 : 0)) & 0xffff_ffffL;
            if (seqDiff(next, tcb.sndMax) > 0) {
                if (seqDiff(tcb.sndNxt, tcb.sndMax) >= 0) {
                    // Karn: only time data never sent before (RFC 6298 §3).
                    timers.timeSegment(tcb.sndNxt);
                }
                tcb.sndMax = next;
            }
            tcb.sndNxt = next;
            timers.armRetransmit();
            if (fin) {
                break;
            }
        }
        // Zero window with data waiting and nothing in flight: the persist timer takes over.
        boolean finUnsent = tcb.finQueued && seqDiff(tcb.sndMax, tcb.finSeq) <= 0;
        if (tcb.sndWnd == 0 && seqDiff(tcb.sndNxt, tcb.sndUna) == 0
                && (seqDiff(tcb.writeSeq, tcb.sndUna) > 0 || finUnsent) && tcb.state != TcpState.CLOSED) {
            timers.armPersist();
        }
    }

    /**
     * The payload the windows allow for the next segment from SND.NXT, given {@code unsent} bytes queued beyond it
     * (before cutting it at a record end): at most one SMSS, 0 when the window is closed or only a FIN is due.
     */
    private int windowedLength(long unsent) {
        long usable = Math.min(congestion.cwnd(), tcb.sndWnd) - seqDiff(tcb.sndNxt, tcb.sndUna);
        return (int) Math.max(0, Math.min(Math.min(unsent, tcb.segmentPayload), usable));
    }

    /**
     * Whether a segment of {@code len} ({@link #windowedLength}; 0 for a bare FIN) should leave now: not when there
     * is no window, nor for a runt the coming ACK would spare us.
     */
    private boolean windowAdmits(int len, long unsent, boolean finDue) {
        int smss = tcb.segmentPayload;
        long inFlight = seqDiff(tcb.sndNxt, tcb.sndUna);
        long usable = Math.min(congestion.cwnd(), tcb.sndWnd) - inFlight;
        if (len == 0 && !(finDue && usable >= 0 && tcb.sndWnd > 0)) {
            return false;
        }
        // Sender SWS avoidance (RFC 9293 §3.8.6.2.1): no runt just because the window has a sliver left; the ACK
        // that is coming opens it. With nothing in flight no ACK is coming, so send.
        return !(len > 0 && len < smss && len < unsent && 2L * len < tcb.maxSndWnd && inFlight > 0);
    }

    /** Resends the first unacknowledged segment (fast retransmit, NewReno's partial ACK) and restarts the RTO. */
    void retransmitFirst() {
        long outstanding = seqDiff(tcb.sndMax, tcb.sndUna);
        if (outstanding <= 0) {
            return;
        }
        long data = seqDiff(tcb.writeSeq, tcb.sndUna);
        int len = sendBuffer.aligned(tcb.sndUna,
                (int) Math.min(Math.min(Math.max(0, data), tcb.segmentPayload), outstanding));
        boolean fin = tcb.finQueued && seqDiff(tcb.sndUna + len, tcb.finSeq) == 0
                && seqDiff(tcb.sndMax, tcb.finSeq) > 0;
        counters.retransmittedSegments++;
        timers.retransmitted(tcb.sndUna, len);
        transmitSegment(tcb.sndUna, len, fin);
        timers.restartRetransmit();
    }

    /** After a retransmission timeout: SND.NXT back to SND.UNA and the first segment out again. */
    void goBackN() {
        tcb.sndNxt = tcb.sndUna;
        counters.retransmittedSegments++;
        long data = seqDiff(tcb.writeSeq, tcb.sndUna);
        int len = sendBuffer.aligned(tcb.sndUna, (int) Math.min(Math.max(0, data), tcb.segmentPayload));
        boolean fin = tcb.finQueued && seqDiff(tcb.sndUna + len, tcb.finSeq) == 0;
        transmitSegment(tcb.sndUna, len, fin);
        tcb.sndNxt = (tcb.sndUna + len + (fin ? 1 : 0)) & 0xffff_ffffL;
        if (seqDiff(tcb.sndNxt, tcb.sndMax) > 0) {
            tcb.sndMax = tcb.sndNxt;
        }
    }

    private void transmitSegment(long seq, int len, boolean fin) {
        timers.ackSent();
        builder.tcp().sequenceNumber(seq).acknowledgmentNumber(tcb.rcvNxt)
                .flags(TcpHeader.ACK | (len > 0 ? TcpHeader.PSH : 0) | (fin ? TcpHeader.FIN : 0))
                .window(windowField());
        stamp();
        long at = builder.begin(frame, 0, len);
        if (len > 0) {
            sendBuffer.copyOut(seq, frame, at, len);
        }
        int n = builder.finish();
        counters.segmentsSent++;
        counters.bytesSent += len;
        transmitter.transmit(frame, 0, n);
    }

    // ------------------------------------------------------------------ control segments

    /** A pure ACK of RCV.NXT from SND.MAX, unless the connection is closed. */
    void sendAck() {
        if (tcb.state == TcpState.CLOSED) {
            return;
        }
        counters.acksSent++;
        sendControl(tcb.sndMax, tcb.rcvNxt, TcpHeader.ACK, windowField());
    }

    /** A zero-window probe: a segment one below SND.UNA, which the peer must answer with an ACK. */
    void sendWindowProbe() {
        counters.persistProbes++;
        sendControl((tcb.sndUna - 1) & 0xffff_ffffL, tcb.rcvNxt, TcpHeader.ACK, windowField());
    }

    private void sendControl(long seq, long ack, int flags, int window) {
        timers.ackSent();
        builder.tcp().sequenceNumber(seq).acknowledgmentNumber(ack).flags(flags).window(window);
        stamp();
        int n = builder.build(frame, 0);
        counters.segmentsSent++;
        transmitter.transmit(frame, 0, n);
    }

    private void stamp() {
        if (p.timestamps()) {
            // RFC 7323 §5.4: a millisecond clock is enough; ours is simulated time.
            builder.tcp().timestamps((scheduler.now() / 1_000_000L) & 0xffff_ffffL, tcb.tsRecent);
        } else {
            builder.tcp().noTimestamps();
        }
    }

    // ------------------------------------------------------------------ receive window

    /** The window field to send, remembering what it advertises. */
    private int windowField() {
        long field = Math.min(MAX_WINDOW_FIELD, receiveWindow() >> p.rcvWscale());
        tcb.lastWindowSent = field << p.rcvWscale();
        return (int) field;
    }

    /** What the upper layer has free, within the reassembly ring and what the scaled field can say. */
    long receiveWindow() {
        long free = Math.max(0, receiver.freeSpace());
        long w = Math.min(free, receiveBufferBytes);
        return Math.min(w, (long) MAX_WINDOW_FIELD << p.rcvWscale());
    }

    /** Frees the off-heap frame buffer. */
    void release() {
        frame.releaseLast();
    }
}
