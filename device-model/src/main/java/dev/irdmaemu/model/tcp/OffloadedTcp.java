package dev.irdmaemu.model.tcp;

import dev.irdmaemu.fw.frame.TcpPacket;
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
 * 500 ms (two ends that disagree on the sequence space would otherwise trade ACKs for ever). Not modelled: SACK,
 * Nagle, keep-alive, PAWS (timestamps are sent and echoed, not used to reject), ECN, urgent data, and data
 * between snd_una and snd_nxt at hand-over (irdma hands over with the two equal).
 *
 * <p>This class is the connection's face; the work is done along the lines Linux draws between its files:
 * {@link TcpInput} takes each arriving segment through RFC 9293 §3.10.7.4 (tcp_input.c), {@link TcpOutput} puts
 * data, ACKs and control segments on the wire (tcp_output.c), {@link TcpTimers} runs the retransmission,
 * persist, delayed-ACK and TIME_WAIT timers and the RTT estimate (tcp_timer.c), {@link CongestionControl} keeps
 * the congestion window and NewReno's recovery (tcp_cong.c). They share the connection's variables in a
 * {@link TransmissionControlBlock}, keep its data in a {@link SendBuffer} and a {@link ReassemblyQueue}, and count
 * into {@link TcpCounters}.
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
    /** Linux's tcp_invalid_ratelimit default (HZ / 2). */
    public static final long OUT_OF_WINDOW_ACK_INTERVAL = 500_000_000L;

    private final TcpConnectionParams p;
    private final TransmissionControlBlock tcb;
    private final TcpCounters counters = new TcpCounters();
    private final SendBuffer sendBuffer;
    private final ReassemblyQueue reassembly;
    private final CongestionControl congestion;
    private final TcpTimers timers;
    private final TcpOutput output;
    private final TcpInput input;

    public OffloadedTcp(SimScheduler scheduler, TcpConnectionParams params, FrameTransmitter transmitter,
                        TcpReceiver receiver, Listener listener) {
        this(scheduler, params, transmitter, receiver, listener, new RecordEnds());
    }

    /**
     * As above, the send ring's record ends kept in {@code records}, which the caller lends for the connection's
     * life and may lend to another connection after {@link #release}.
     */
    public OffloadedTcp(SimScheduler scheduler, TcpConnectionParams params, FrameTransmitter transmitter,
                        TcpReceiver receiver, Listener listener, RecordEnds records) {
        this.p = params;
        this.tcb = new TransmissionControlBlock(params);
        this.sendBuffer = new SendBuffer(params.sendBufferBytes(), records);
        this.reassembly = new ReassemblyQueue(params.receiveBufferBytes());
        this.congestion = new CongestionControl(tcb.segmentPayload, params.initialCwnd(), params.ssThresh(),
                params.dupAckThreshold());
        this.timers = new TcpTimers(scheduler, params, tcb, counters, congestion, this, listener);
        this.output = new TcpOutput(scheduler, params, tcb, counters, congestion, sendBuffer, timers, transmitter,
                receiver);
        timers.sendThrough(output);
        this.input = new TcpInput(scheduler, params, tcb, counters, congestion, sendBuffer, reassembly, timers,
                output, receiver, this, listener);
    }

    // ------------------------------------------------------------------ upper-layer API

    /**
     * Queues {@code length} bytes (a whole FPDU) for transmission. All or nothing: answers false, copying nothing,
     * when the send ring has less than {@code length} free or the connection no longer sends.
     */
    public boolean send(BytesStore<?, ?> source, long offset, int length) {
        return output.send(source, offset, length);
    }

    /** Bytes {@link #send} accepts now. */
    public long sendSpace() {
        return output.sendSpace();
    }

    /** Bytes queued and not yet acknowledged. */
    public long unacknowledged() {
        return output.unacknowledged();
    }

    /**
     * The upper layer freed receive space: advertise it if the window grew by at least two segments or half the
     * buffer (receiver side of SWS avoidance, RFC 9293 §3.8.6.2.2), which is also what reopens a zero window.
     */
    public void receiveSpaceChanged() {
        output.receiveSpaceChanged();
    }

    /** Graceful close: a FIN after every queued byte (RFC 9293 §3.10.4). */
    public void close() {
        output.close();
    }

    /** Abortive close: RST now, everything queued is discarded (RFC 9293 §3.10.5). No event is raised. */
    public void abort() {
        output.abort();
    }

    /**
     * Drops the connection without a word on the wire: nothing more is sent, retransmitted or acknowledged, no
     * event is raised (the QP went to ERROR without asking for a reset). Frames that still arrive are ignored.
     */
    public void discard() {
        timers.enterClosed();
    }

    /** Frees the off-heap rings; the engine must not be used after. */
    public void release() {
        timers.enterClosed();
        sendBuffer.release();
        reassembly.release();
        output.release();
    }

    // ------------------------------------------------------------------ receive path

    /** One Ethernet frame addressed to this connection (the port's classifier demultiplexes). Never throws. */
    public void receive(BytesStore<?, ?> store, long offset, int length) {
        input.receive(store, offset, length);
    }

    /**
     * One frame addressed to this connection that the caller already wrapped and validated
     * ({@link TcpPacket#validate()} accepted it: the port's receive path does so before classifying). Never throws.
     */
    public void receiveValidated(TcpPacket packet) {
        input.receiveValidated(packet);
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
        return timers.rto();
    }

    public long smoothedRtt() {
        return timers.srtt();
    }

    public SimTimer retransmitTimer() {
        return timers.retransmit;
    }

    public SimTimer persistTimer() {
        return timers.persist;
    }

    public int consecutiveTimeouts() {
        return timers.consecutiveTimeouts();
    }

    public boolean inRecovery() {
        return congestion.inRecovery();
    }

    public int reassemblyRanges() {
        return reassembly.ranges();
    }

    // ------------------------------------------------------------------ counters

    /** What this connection counted (segments, bytes, retransmissions, every segment turned away and why). */
    public TcpCounters counters() {
        return counters;
    }
}
