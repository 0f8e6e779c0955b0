package dev.irdmaemu.model.tcp;

import static dev.irdmaemu.model.tcp.TransmissionControlBlock.seqDiff;

import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.sim.SimTimer;
import dev.irdmaemu.model.port.FrameTransmitter;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The E810's offloaded TCP for one iWARP QP connection, from the moment the driver moves the QP to RTS with the
 * connection the CM set up ({@link TcpConnectionParams}). Runs on simulated time, single-threaded.
 *
 * <p>What it does (RFC 9293 for the state machine and segment checks, RFC 5681 + RFC 6582 for congestion
 * control and NewReno recovery, with RFC 3465's appropriate byte counting for the window's growth, RFC 6298 for
 * the retransmission timer, RFC 5961 for blind RST/SYN/data defences):
 * <ul>
 *   <li>The upper layer hands whole FPDUs to {@link #send}; they are copied into an off-heap ring that is also the
 *       retransmission queue: bytes stay there, addressed by sequence number, until acknowledged. Segments are cut
 *       from it at MSS boundaries when sent or resent, so no per-segment record exists (Linux coalesces the same
 *       way on retransmission).</li>
 *   <li>Out-of-order segments are counted, shown to {@link TcpReceiver#outOfOrder} (the E810's IEQ hook) and,
 *       unless {@code dropOutOfOrder}, kept in a bounded off-heap reassembly ring (at most
 *       {@value #MAX_HOLES} disjoint ranges); either way they are answered at once with a duplicate ACK (RFC 5681
 *       §4.2) so the sender's fast retransmit fires.</li>
 *   <li>ACKs are delayed: one ACK for every second full-size segment, else after {@code delayedAckNanos}
 *       (RFC 5681 §4.2, RFC 1122 §4.2.3.2).</li>
 *   <li>A zero window is probed with the persist timer, using a segment one below SND.UNA that the peer must
 *       answer with an ACK (RFC 9293 §3.8.6.1, RFC 1122 §4.2.2.17; the probe form Linux uses), backed off like
 *       the RTO, never counted as a retransmission.</li>
 * </ul>
 * Events go to the {@link Listener}. Nothing on the send, receive or timer paths allocates.
 *
 * <p>Choices: the RTO floor defaults to 200 ms (Linux TCP_RTO_MIN) rather than RFC 6298's 1 s, and forward
 * progress clears the back-off at once as Linux does. After {@code maxRetransmits} back-offs the connection
 * closes with TOO_MANY_RETRIES and sends nothing (the peer is unreachable). An RTO restarts transmission from
 * SND.UNA (go-back-N with slow start). Pure ACKs carry SND.MAX. Challenge ACKs are limited to
 * {@value #CHALLENGE_ACK_LIMIT} a second, and the ACK answering an unacceptable segment without data to one per
 * 500 ms (two ends that disagree on the sequence space would otherwise trade ACKs for ever). Not modelled: SACK, Nagle, keep-alive, PAWS (timestamps are sent and
 * echoed, not used to reject), ECN, urgent data, and data between snd_una and snd_nxt at hand-over (irdma
 * hands over with the two equal).
 */
public final class OffloadedTcp {
    /** Where the engine reports to its QP. */
    public interface Listener {
        void event(OffloadedTcp connection, TcpEvent event);

        /** Acknowledged data freed room in the send ring ({@link #sendSpace()} grew). */
        default void sendSpaceAvailable(OffloadedTcp connection) {
        }

        /**
         * The peer acknowledged new data: {@link #sndUna()} moved forward. Raised in every state (also once a FIN
         * is queued, when {@link #sendSpaceAvailable} no longer is), so the upper layer can complete the work whose
         * bytes are now acknowledged.
         */
        default void acknowledged(OffloadedTcp connection) {
        }
    }

    /** Record boundaries remembered for FPDU alignment (4096 FPDUs: a send ring of small ones). */
    public static final int RECORDS = 4096;
    /** Most disjoint out-of-order ranges kept; a segment that would make one more is dropped. */
    public static final int MAX_HOLES = 16;
    /** Challenge ACKs sent per second at most (RFC 5961 §7; Linux's tcp_challenge_ack_limit defaults to 1000). */
    public static final int CHALLENGE_ACK_LIMIT = 1000;
    private static final long SECOND = 1_000_000_000L;
    /** Linux's tcp_invalid_ratelimit default (HZ / 2). */
    public static final long OUT_OF_WINDOW_ACK_INTERVAL = 500_000_000L;
    private static final int MAX_WINDOW_FIELD = 0xffff;

    private final SimScheduler scheduler;
    private final TcpConnectionParams p;
    private final TransmissionControlBlock tcb;
    private final TcpCounters counters = new TcpCounters();
    private final FrameTransmitter transmitter;
    private final TcpReceiver receiver;
    private final Listener listener;
    private final TcpPacketBuilder builder = new TcpPacketBuilder();
    private final TcpPacket packet = new TcpPacket();
    private final BytesStore<?, Void> frame;
    private final SendBuffer sendBuffer;
    private final ReassemblyQueue reassembly;
    private final CongestionControl congestion;

    private final SimTimer retransmitTimer;
    private final SimTimer persistTimer;
    private final SimTimer delayedAckTimer;
    private final SimTimer timeWaitTimer;
    private final SimTimer transmitKick;

    // RTT and RTO (RFC 6298), nanoseconds.
    private long srtt;
    private long rttvar;
    private long rto;
    /** The RTO from the estimator, before any back-off. */
    private long baseRto;
    private int backoff;
    private int consecutiveTimeouts;
    private boolean rttTiming;
    private long rttSeq;
    private long rttStart;
    private long persistInterval;

    // Receive side.
    private int unackedSegments;
    /** Whether a challenge-ACK second has begun, and when. */
    private boolean challengeWindowStarted;
    private long challengeWindowStart;
    private int challengeAcksInWindow;
    /** Whether an ACK to an unacceptable segment was ever sent, and when the last one was. */
    private boolean outOfWindowAckSent;
    private long lastOutOfWindowAck;

    public OffloadedTcp(SimScheduler scheduler, TcpConnectionParams params, FrameTransmitter transmitter,
                        TcpReceiver receiver, Listener listener) {
        this.scheduler = scheduler;
        this.p = params;
        this.transmitter = transmitter;
        this.receiver = receiver;
        this.listener = listener;
        // Headers at most: tagged Ethernet 18 + IPv6 40 + TCP 60.
        this.frame = BytesStore.nativeStoreWithFixedCapacity(params.mss() + 128);
        this.sendBuffer = new SendBuffer(params.sendBufferBytes());
        this.reassembly = new ReassemblyQueue(params.receiveBufferBytes());
        this.tcb = new TransmissionControlBlock(params);
        this.retransmitTimer = scheduler.newTimer("tcp-rto", this::onRetransmitTimeout);
        this.persistTimer = scheduler.newTimer("tcp-persist", this::onPersist);
        this.delayedAckTimer = scheduler.newTimer("tcp-delack", this::onDelayedAck);
        this.timeWaitTimer = scheduler.newTimer("tcp-timewait", this::onTimeWait);
        this.transmitKick = scheduler.newTimer("tcp-tx", this::output);

        this.congestion = new CongestionControl(tcb.segmentPayload, params.initialCwnd(), params.ssThresh(),
                params.dupAckThreshold());
        rto = params.rtoInitialNanos();
        baseRto = rto;
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

    // ------------------------------------------------------------------ upper-layer API

    /**
     * Queues {@code length} bytes (a whole FPDU) for transmission. All or nothing: answers false, copying nothing,
     * when the send ring has less than {@code length} free or the connection no longer sends.
     */
    public boolean send(BytesStore<?, ?> source, long offset, int length) {
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
        kick();
        return true;
    }

    /** Bytes {@link #send} accepts now. */
    public long sendSpace() {
        if (tcb.finQueued || !tcb.sends()) {
            return 0;
        }
        return sendBuffer.capacity() - seqDiff(tcb.writeSeq, tcb.sndUna);
    }

    /** Bytes queued and not yet acknowledged. */
    public long unacknowledged() {
        return seqDiff(tcb.writeSeq, tcb.sndUna);
    }

    /**
     * The upper layer freed receive space: advertise it if the window grew by at least two segments or half the
     * buffer (receiver side of SWS avoidance, RFC 9293 §3.8.6.2.2), which is also what reopens a zero window.
     */
    public void receiveSpaceChanged() {
        if (!tcb.receives()) {
            return;
        }
        long window = receiveWindow();
        long grow = window - tcb.lastWindowSent;
        if (grow > 0 && (grow >= Math.min(2L * tcb.segmentPayload, reassembly.capacity() / 2)
                || tcb.lastWindowSent < tcb.segmentPayload && window >= tcb.segmentPayload)) {
            sendAck();
        }
    }

    /** Graceful close: a FIN after every queued byte (RFC 9293 §3.10.4). */
    public void close() {
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
        kick();
    }

    /** Abortive close: RST now, everything queued is discarded (RFC 9293 §3.10.5). No event is raised. */
    public void abort() {
        if (tcb.state == TcpState.CLOSED) {
            return;
        }
        if (tcb.state != TcpState.TIME_WAIT) {
            sendControl(tcb.sndMax, tcb.rcvNxt, TcpHeader.RST | TcpHeader.ACK, 0);
        }
        enterClosed();
    }

    /**
     * Drops the connection without a word on the wire: nothing more is sent, retransmitted or acknowledged, no
     * event is raised (the QP went to ERROR without asking for a reset). Frames that still arrive are ignored.
     */
    public void discard() {
        enterClosed();
    }

    /** Frees the off-heap rings; the engine must not be used after. */
    public void release() {
        enterClosed();
        sendBuffer.release();
        reassembly.release();
        frame.releaseLast();
    }

    // ------------------------------------------------------------------ receive path

    /** One Ethernet frame addressed to this connection (the port's classifier demultiplexes). Never throws. */
    public void receive(BytesStore<?, ?> store, long offset, int length) {
        TcpPacket.Status status = packet.wrap(store, offset, length).validate();
        if (!status.accepted()) {
            counters.badFrames++;
            return;
        }
        receiveValidated(packet);
    }

    /**
     * One frame addressed to this connection that the caller already wrapped and validated
     * ({@link TcpPacket#validate()} accepted it: the port's receive path does so before classifying). Never throws.
     */
    public void receiveValidated(TcpPacket packet) {
        TcpHeader h = packet.tcp();
        if (h.destinationPort() != p.localPort() || h.sourcePort() != p.remotePort()
                || packet.sourceHi() != p.remoteHi() || packet.sourceLo() != p.remoteLo()
                || packet.destinationHi() != p.localHi() || packet.destinationLo() != p.localLo()) {
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

        // RFC 9293 §3.10.7.4 first: sequence number acceptability.
        // The window checked against is what the upper layer has free now; with a well-behaved upper layer the
        // right edge never moves left, since every delivered byte both advances RCV.NXT and uses a byte of space.
        long window = receiveWindow();
        if (!acceptable(seq, segLen, window)) {
            if (segLen > 0 && seqDiff(seq + segLen, tcb.rcvNxt) <= 0) {
                counters.duplicateSegments++;
            } else {
                counters.outOfWindowSegments++;
            }
            if (!h.rst()) {
                if (segLen > 0) {
                    sendAck();
                } else {
                    outOfWindowAck();
                }
                if (fin && tcb.state == TcpState.TIME_WAIT) {
                    // A retransmitted FIN in TIME_WAIT: acknowledged above, 2 MSL restarts (RFC 9293 §3.10.7.4).
                    timeWaitTimer.scheduleIn(p.timeWaitNanos());
                }
            }
            return;
        }
        // Second: RST, RFC 5961 §3.2: reset only on an exact match, else a challenge ACK.
        if (h.rst()) {
            if (seq == tcb.rcvNxt) {
                counters.resetsReceived++;
                enterClosed();
                listener.event(this, TcpEvent.CONNECTION_RESET);
            } else {
                counters.resetsIgnored++;
                challengeAck();
            }
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
            sendAck();
        }
    }

    private boolean acceptable(long seq, int segLen, long window) {
        // RFC 9293 §3.10.7.4 table of the four acceptability tests.
        if (segLen == 0) {
            if (window == 0) {
                return seq == tcb.rcvNxt;
            }
            return seqDiff(seq, tcb.rcvNxt) >= 0 && seqDiff(seq, tcb.rcvNxt) < window;
        }
        if (window == 0) {
            return false;
        }
        long last = seq + segLen - 1;
        return (seqDiff(seq, tcb.rcvNxt) >= 0 && seqDiff(seq, tcb.rcvNxt) < window)
                || (seqDiff(last, tcb.rcvNxt) >= 0 && seqDiff(last, tcb.rcvNxt) < window);
    }

    /** Answers false when the segment must be dropped. */
    private boolean processAck(long ack, long seq, long peerWindow, boolean pureAck, boolean occupiesSequence) {
        // RFC 5961 §5.2: ACK acceptable when SND.UNA - MAX.SND.WND <= SEG.ACK <= SND.NXT (SND.MAX here: after a
        // go-back-N retransmission the peer may acknowledge what was sent before).
        if (seqDiff(ack, tcb.sndMax) > 0 || seqDiff(ack, tcb.sndUna - Math.max(tcb.maxSndWnd, 1)) < 0) {
            counters.badAcks++;
            if (occupiesSequence) {
                sendAck();
            } else {
                outOfWindowAck();
            }
            return false;
        }
        long acked = seqDiff(ack, tcb.sndUna);
        boolean windowChanged = peerWindow != tcb.sndWnd;
        // Send-window update, RFC 9293 §3.10.7.4 fifth step.
        if (acked >= 0 && (seqDiff(tcb.sndWl1, seq) < 0 || (tcb.sndWl1 == seq && seqDiff(tcb.sndWl2, ack) <= 0))) {
            boolean wasZero = tcb.sndWnd == 0;
            tcb.sndWnd = peerWindow;
            tcb.sndWl1 = seq;
            tcb.sndWl2 = ack;
            tcb.maxSndWnd = Math.max(tcb.maxSndWnd, tcb.sndWnd);
            if (wasZero && tcb.sndWnd > 0) {
                persistTimer.cancel();
                persistInterval = 0;
            } else if (tcb.sndWnd == 0 && seqDiff(tcb.sndNxt, ack) > 0 && acked >= 0) {
                // The peer closed its window on data already sent (it shrank it, RFC 9293 §3.8.6 says to cope):
                // take that data back as unsent and probe instead of timing it out.
                tcb.sndNxt = ack;
                retransmitTimer.cancel();
            }
        }
        if (acked > 0) {
            onNewAck(ack, acked);
        } else if (acked == 0 && pureAck && !windowChanged && seqDiff(tcb.sndMax, tcb.sndUna) > 0) {
            onDupAck();
        }
        output();
        return true;
    }

    private void onNewAck(long ack, long acked) {
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
        long dataAcked = Math.min(acked, seqDiff(tcb.writeSeq, tcb.sndUna));
        if (congestion.inRecovery()) {
            if (congestion.fullyAcknowledges(ack)) {
                congestion.exitRecovery(tcb.flight(ack));
            } else {
                // Partial acknowledgment: resend the next hole, deflate (RFC 6582 §3.2 step 3).
                tcb.sndUna = ack;
                retransmitFirst();
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
        if (seqDiff(tcb.sndNxt, tcb.sndUna) > 0) {
            retransmitTimer.scheduleIn(rto); // RFC 6298 §5.3
        } else {
            retransmitTimer.cancel(); // §5.2
        }
        if (dataAcked > 0) {
            listener.acknowledged(this);
        }
        if (dataAcked > 0 && tcb.sends() && !tcb.finQueued) {
            listener.sendSpaceAvailable(this);
        }
    }

    private void onDupAck() {
        counters.dupAcksReceived++;
        if (congestion.duplicateAck()) {
            // RFC 6582 §3.2 step 2 / RFC 5681 §3.2 steps 2-3.
            counters.fastRetransmits++;
            congestion.enterRecovery(tcb.flight(tcb.sndUna), tcb.sndMax);
            retransmitFirst();
            congestion.inflateForRecovery();
        }
    }

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
            sendAck();
            return;
        }
        if (seq != tcb.rcvNxt) {
            counters.outOfOrderSegments++;
            receiver.outOfOrder(seq, store, offset, length);
            if (p.dropOutOfOrder() || !reassembly.insert(seq, store, offset, length)) {
                counters.outOfOrderDropped++;
            }
            sendAck(); // RFC 5681 §4.2: an out-of-order segment is acknowledged at once
            return;
        }
        receiver.deliver(store, offset, length);
        counters.bytesDelivered += length;
        tcb.rcvNxt = (tcb.rcvNxt + length) & 0xffff_ffffL;
        if (drainReassembly()) {
            sendAck();
            return;
        }
        if (++unackedSegments >= 2) {
            // RFC 5681 §4.2: an ACK at least for every second full-size segment (short ones counted alike).
            sendAck();
        } else if (!delayedAckTimer.isPending()) {
            delayedAckTimer.scheduleIn(p.delayedAckNanos());
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

    private void onFinReceived() {
        reassembly.clear();
        switch (tcb.state) {
            case ESTABLISHED:
                tcb.state = TcpState.CLOSE_WAIT;
                listener.event(this, TcpEvent.FIN_RECEIVED);
                break;
            case FIN_WAIT_1:
                tcb.state = TcpState.CLOSING;
                listener.event(this, TcpEvent.FIN_RECEIVED);
                break;
            case FIN_WAIT_2:
                listener.event(this, TcpEvent.FIN_RECEIVED);
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
                enterClosed();
                reportClose();
                break;
            default:
                break;
        }
    }

    private void enterTimeWait() {
        tcb.state = TcpState.TIME_WAIT;
        retransmitTimer.cancel();
        persistTimer.cancel();
        timeWaitTimer.scheduleIn(p.timeWaitNanos());
        reportClose();
    }

    private void reportClose() {
        if (!tcb.closeReported) {
            tcb.closeReported = true;
            listener.event(this, TcpEvent.CLOSE_COMPLETE);
        }
    }

    private void enterClosed() {
        tcb.state = TcpState.CLOSED;
        retransmitTimer.cancel();
        persistTimer.cancel();
        delayedAckTimer.cancel();
        timeWaitTimer.cancel();
        transmitKick.cancel();
    }

    // ------------------------------------------------------------------ send path

    private void output() {
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
            long inFlight = seqDiff(tcb.sndNxt, tcb.sndUna);
            long window = Math.min(congestion.cwnd(), tcb.sndWnd);
            long usable = window - inFlight;
            int len = (int) Math.max(0, Math.min(Math.min(unsent, tcb.segmentPayload), usable));
            if (len == 0 && !(finDue && usable >= 0 && tcb.sndWnd > 0)) {
                break;
            }
            if (len > 0 && len < tcb.segmentPayload && len < unsent && 2L * len < tcb.maxSndWnd && inFlight > 0) {
                // Sender SWS avoidance (RFC 9293 §3.8.6.2.1): no runt just because the window has a sliver
                // left; the ACK that is coming opens it. With nothing in flight no ACK is coming, so send.
                break;
            }
            if (len > 0 && len < unsent) {
                int aligned = sendBuffer.recordBoundary(tcb.sndNxt, len);
                if (aligned > 0) {
                    len = aligned;
                } else if (len < tcb.segmentPayload && inFlight > 0) {
                    // The window ends inside an FPDU: wait for the ACK rather than split it.
                    break;
                }
            }
            boolean fin = tcb.finQueued && seqDiff(tcb.sndNxt + len, tcb.finSeq) == 0;
            transmitSegment(tcb.sndNxt, len, fin);
            long next = (tcb.sndNxt + len + (fin ? 1 : 0)) & 0xffff_ffffL;
            if (seqDiff(next, tcb.sndMax) > 0) {
                if (!rttTiming && seqDiff(tcb.sndNxt, tcb.sndMax) >= 0) {
                    // Karn: only time data never sent before (RFC 6298 §3).
                    rttTiming = true;
                    rttSeq = tcb.sndNxt;
                    rttStart = scheduler.now();
                }
                tcb.sndMax = next;
            }
            tcb.sndNxt = next;
            if (!retransmitTimer.isPending()) {
                retransmitTimer.scheduleIn(rto); // RFC 6298 §5.1
            }
            if (fin) {
                break;
            }
        }
        // Zero window with data waiting and nothing in flight: the persist timer takes over.
        boolean finUnsent = tcb.finQueued && seqDiff(tcb.sndMax, tcb.finSeq) <= 0;
        if (tcb.sndWnd == 0 && seqDiff(tcb.sndNxt, tcb.sndUna) == 0
                && (seqDiff(tcb.writeSeq, tcb.sndUna) > 0 || finUnsent) && !persistTimer.isPending()
                && tcb.state != TcpState.CLOSED) {
            if (persistInterval == 0) {
                persistInterval = rto;
            }
            persistTimer.scheduleIn(persistInterval);
        }
    }

    /**
     * Transmission runs as its own event at the current instant, after whatever the upper layer is doing, so that
     * FPDUs posted back to back leave as full segments (the hardware likewise works its SQ after the doorbell).
     */
    private void kick() {
        if (!transmitKick.isPending()) {
            transmitKick.scheduleIn(0);
        }
    }

    private void retransmitFirst() {
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
        if (rttTiming && seqDiff(rttSeq, tcb.sndUna) >= 0 && seqDiff(rttSeq, tcb.sndUna + len) < 0) {
            rttTiming = false; // Karn's algorithm: a retransmitted segment gives no sample
        }
        transmitSegment(tcb.sndUna, len, fin);
        retransmitTimer.scheduleIn(rto);
    }

    private void transmitSegment(long seq, int len, boolean fin) {
        cancelDelayedAck();
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

    private void sendAck() {
        if (tcb.state == TcpState.CLOSED) {
            return;
        }
        counters.acksSent++;
        // SND.MAX, not the go-back-N pointer: an ACK carrying a sequence number below the peer's RCV.NXT would be
        // unacceptable to it and dropped unread (RFC 9293 §3.10.7.4), and two sides both retransmitting would
        // never hear each other.
        sendControl(tcb.sndMax, tcb.rcvNxt, TcpHeader.ACK, windowField());
    }

    /**
     * The ACK owed to an unacceptable segment that carries no data (RFC 9293 §3.10.7.4 says to answer it), at most
     * one per {@link #OUT_OF_WINDOW_ACK_INTERVAL}: two ends that disagree about the sequence space would otherwise
     * answer each other's pure ACKs for ever (Linux rate-limits these the same way, tcp_oow_rate_limited with
     * tcp_invalid_ratelimit 500 ms). Segments carrying data are always answered, so lost ACKs still recover.
     */
    private void outOfWindowAck() {
        long now = scheduler.now();
        if (outOfWindowAckSent && now - lastOutOfWindowAck < OUT_OF_WINDOW_ACK_INTERVAL) {
            counters.outOfWindowAcksSuppressed++;
            return;
        }
        outOfWindowAckSent = true;
        lastOutOfWindowAck = now;
        sendAck();
    }

    private void challengeAck() {
        long now = scheduler.now();
        if (!challengeWindowStarted || now - challengeWindowStart >= SECOND) {
            challengeWindowStarted = true;
            challengeWindowStart = now;
            challengeAcksInWindow = 0;
        }
        if (challengeAcksInWindow >= CHALLENGE_ACK_LIMIT) {
            counters.challengeAcksSuppressed++;
            return;
        }
        challengeAcksInWindow++;
        counters.challengeAcks++;
        sendAck();
    }

    private void sendControl(long seq, long ack, int flags, int window) {
        cancelDelayedAck();
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

    private void cancelDelayedAck() {
        unackedSegments = 0;
        delayedAckTimer.cancel();
    }

    /** The window field to send, remembering what it advertises. */
    private int windowField() {
        long field = Math.min(MAX_WINDOW_FIELD, receiveWindow() >> p.rcvWscale());
        tcb.lastWindowSent = field << p.rcvWscale();
        return (int) field;
    }

    private long receiveWindow() {
        long free = Math.max(0, receiver.freeSpace());
        long w = Math.min(free, reassembly.capacity());
        return Math.min(w, (long) MAX_WINDOW_FIELD << p.rcvWscale());
    }

    // ------------------------------------------------------------------ timers

    private void onRetransmitTimeout() {
        if (seqDiff(tcb.sndNxt, tcb.sndUna) <= 0 || tcb.state == TcpState.CLOSED
                || tcb.state == TcpState.TIME_WAIT) {
            return;
        }
        counters.timeouts++;
        consecutiveTimeouts++;
        if (consecutiveTimeouts > p.maxRetransmits()) {
            enterClosed();
            listener.event(this, TcpEvent.TOO_MANY_RETRIES);
            return;
        }
        // RFC 5681 §3.1 eq. 4 and the go-back-N restart; RFC 6298 §5.5 back-off.
        congestion.onRetransmitTimeout(tcb.flight(tcb.sndUna), tcb.sndMax);
        rttTiming = false;
        backoff++;
        rto = Math.min(p.rtoMaxNanos(), rto * 2);
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
        retransmitTimer.scheduleIn(rto);
    }

    private void onPersist() {
        if (tcb.sndWnd != 0 || tcb.state == TcpState.CLOSED || seqDiff(tcb.sndNxt, tcb.sndUna) > 0) {
            persistInterval = 0;
            output();
            return;
        }
        counters.persistProbes++;
        sendControl((tcb.sndUna - 1) & 0xffff_ffffL, tcb.rcvNxt, TcpHeader.ACK, windowField());
        persistInterval = Math.min(p.rtoMaxNanos(), persistInterval * 2);
        persistTimer.scheduleIn(persistInterval);
    }

    private void onDelayedAck() {
        counters.delayedAcks++;
        sendAck();
    }

    private void onTimeWait() {
        tcb.state = TcpState.CLOSED;
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

    // ------------------------------------------------------------------ state

    public TcpState state() {
        return tcb.state;
    }

    public TcpConnectionParams params() {
        return p;
    }

    public long sndUna() {
        return tcb.sndUna;
    }

    public long sndNxt() {
        return tcb.sndNxt;
    }

    public long rcvNxt() {
        return tcb.rcvNxt;
    }

    /** The peer's window, scaled, in bytes. */
    public long sendWindow() {
        return tcb.sndWnd;
    }

    public long congestionWindow() {
        return congestion.cwnd();
    }

    /** Current retransmission timeout in nanoseconds (backed off). */
    public long retransmissionTimeout() {
        return rto;
    }

    public long smoothedRtt() {
        return srtt;
    }

    public SimTimer retransmitTimer() {
        return retransmitTimer;
    }

    public SimTimer persistTimer() {
        return persistTimer;
    }

    public int consecutiveTimeouts() {
        return consecutiveTimeouts;
    }

    public boolean inRecovery() {
        return congestion.inRecovery();
    }

    public int reassemblyRanges() {
        return reassembly.ranges();
    }

    public long segmentsSent() { return counters.segmentsSent; }
    public long segmentsReceived() { return counters.segmentsReceived; }
    public long bytesSent() { return counters.bytesSent; }
    public long bytesDelivered() { return counters.bytesDelivered; }
    public long retransmittedSegments() { return counters.retransmittedSegments; }
    public long fastRetransmits() { return counters.fastRetransmits; }
    public long timeouts() { return counters.timeouts; }
    public long dupAcksReceived() { return counters.dupAcksReceived; }
    public long outOfOrderSegments() { return counters.outOfOrderSegments; }
    public long outOfOrderDropped() { return counters.outOfOrderDropped; }
    public long outOfWindowSegments() { return counters.outOfWindowSegments; }
    public long duplicateSegments() { return counters.duplicateSegments; }
    public long badAcks() { return counters.badAcks; }
    public long challengeAcks() { return counters.challengeAcks; }
    public long challengeAcksSuppressed() { return counters.challengeAcksSuppressed; }
    public long outOfWindowAcksSuppressed() { return counters.outOfWindowAcksSuppressed; }
    public long resetsReceived() { return counters.resetsReceived; }
    public long resetsIgnored() { return counters.resetsIgnored; }
    public long synsReceived() { return counters.synsReceived; }
    public long badFrames() { return counters.badFrames; }
    public long wrongConnection() { return counters.wrongConnection; }
    public long persistProbes() { return counters.persistProbes; }
    public long delayedAcks() { return counters.delayedAcks; }
    public long acksSent() { return counters.acksSent; }
}
