package dev.irdmaemu.model.roce.rc;

import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.roce.BthOpcode;
import dev.irdmaemu.fw.roce.RoceCheck;
import dev.irdmaemu.fw.roce.RoceFrame;
import dev.irdmaemu.model.mr.MemoryRegions;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * One RC queue pair's transport on the E810's RoCEv2 block: a requester ({@link RcRequester}, {@link RcCompleter},
 * {@link RetryTimers}) and a responder ({@link RcResponder}) over one path, joined by the frame check every
 * received frame passes first (rxe_recv.c rxe_rcv and check_keys/check_addr, as IBA Vol. 1 §9.6 orders them): its
 * structure, the ICRC (a bad one is dropped and counted), the IPv4 header checksum, the opcode's transport (RC only;
 * CNPs counted and ignored), the destination QP, the P_Key, the source address (the QP's peer) and the QP's
 * state; then requests go to the responder and ACKs and READ responses to the completer. Every received frame
 * ends in one {@link RcReceipt}, counted. {@link #service} runs the timers, sends the responder's coalesced ACK and
 * lets the requester transmit. Single-threaded; nothing allocates per frame
 * or per work request.
 */
public final class RcEngine {
    /** Packets the requester keeps in flight at most (IBA leaves it to the implementation below 2^23). */
    public static final int MAX_IN_FLIGHT = 1024;
    /** The longest frame the engine sends (4096 bytes of payload and every header), for a wire's buffers. */
    public static final int MAX_FRAME = RcFrameTransmitter.CAPACITY;

    private final RcPath path;
    private final RcCounters counters = new RcCounters();
    private final QueuePairState state;
    private final RcFrameTransmitter tx;
    private final SendSlots slots;
    private final PsnWindow window = new PsnWindow();
    private final RetryTimers timers;
    private final RcRequester requester;
    private final RcCompleter completer;
    private final RcResponder responder;
    private final RoceFrame frame = new RoceFrame();

    /**
     * An engine for the QP {@code path} describes, placing and fetching through {@code regions}, taking RQ WQEs
     * from {@code rq}, reporting to {@code completions} and {@code events}, sending to {@code wire}, with room for
     * {@code sendSlots} outstanding work requests.
     */
    public RcEngine(RcPath path, MemoryRegions regions, RcReceiveQueue rq, RcCompletions completions,
                    RcEvents events, RcWire wire, int sendSlots) {
        this.path = path;
        this.state = new QueuePairState(events);
        this.tx = new RcFrameTransmitter(path, wire, counters);
        this.slots = new SendSlots(sendSlots);
        this.timers = new RetryTimers(path);
        this.requester = new RcRequester(path, slots, window, timers, tx, regions, counters, state, MAX_IN_FLIGHT);
        this.completer = new RcCompleter(path, slots, window, timers, requester, regions, completions, counters,
                state);
        requester.completer(completer);
        this.responder = new RcResponder(path, regions, rq, completions, tx, counters, state);
    }

    public RcCounters counters() {
        return counters;
    }

    public RcState state() {
        return state.current();
    }

    /**
     * Moves the QP to {@code next} (irdma's MODIFY_QP): RTR loads the responder's expected PSN, RTS the
     * requester's PSN and counts, RESET discards the work requests without completions (IBA §10.3.1: the
     * transition to Reset), ERROR stops both sides (the work requests wait for {@link #flushSendQueue()}). The path
     * is read again each time, as irdma rewrites the context.
     */
    public void modify(RcState next, long now) {
        RcState was = state.current();
        tx.pathChanged();
        if (next == RcState.READY_TO_RECEIVE || next == RcState.READY_TO_SEND && !was.responds()) {
            responder.reset();
        }
        if (next == RcState.READY_TO_SEND && was != RcState.READY_TO_SEND) {
            requester.reset(now);
            completer.reset();
        }
        if (next == RcState.RESET) {
            completer.discard();
        }
        // the driver's own MODIFY_QP to ERROR raises no AE: only the transport's errors do (QueuePairState.fail)
        state.set(next);
    }

    /** The path was changed without a state change. */
    public void pathChanged() {
        tx.pathChanged();
    }

    /** Takes a work request (copied); in ERROR it completes at once, flushed. */
    public PostOutcome post(SendRequest r) {
        if (r.buffers().totalLength() > Integer.MAX_VALUE) {
            return PostOutcome.TOO_LONG;
        }
        if (state.current() == RcState.ERROR) {
            if (slots.full()) {
                return PostOutcome.QUEUE_FULL;
            }
            slots.append(r);
            completer.flush();
            return PostOutcome.FLUSHED;
        }
        if (!state.requests()) {
            return PostOutcome.NOT_READY;
        }
        if (slots.full()) {
            return PostOutcome.QUEUE_FULL;
        }
        slots.append(r);
        return PostOutcome.ACCEPTED;
    }

    /** One received frame (Ethernet to ICRC) at {@code offset}; {@code now} in the caller's nanoseconds. */
    public RcReceipt receive(BytesStore<?, ?> store, long offset, int length, long now) {
        return counters.count(classify(store, offset, length, now));
    }

    private RcReceipt classify(BytesStore<?, ?> store, long offset, int length, long now) {
        if (length <= 0 || offset < store.start() || offset + length > store.capacity()) {
            return RcReceipt.MALFORMED;
        }
        frame.wrap(store, offset, length);
        if (frame.validateStructure() != RoceCheck.ACCEPTED) {
            return RcReceipt.MALFORMED;
        }
        if (!frame.icrcVerifies()) {
            return RcReceipt.BAD_ICRC;
        }
        if (!frame.ipv4ChecksumVerifies()) {
            return RcReceipt.MALFORMED;
        }
        BthOpcode op = frame.opcode().orElseThrow();
        if (op.service() == BthOpcode.Service.CNP) {
            return RcReceipt.CNP_IGNORED;
        }
        if (op.service() != BthOpcode.Service.RC) {
            return RcReceipt.NOT_RELIABLE_CONNECTION;
        }
        if (frame.bth().destinationQp() != path.localQpn) {
            return RcReceipt.WRONG_QUEUE_PAIR;
        }
        if (frame.bth().partitionKey() != path.partitionKey) {
            return RcReceipt.BAD_PARTITION_KEY;
        }
        if (!fromPeer()) {
            return RcReceipt.WRONG_SOURCE_ADDRESS;
        }
        if (isResponse(op)) {
            return state.requests() ? completer.receive(frame, op, now) : RcReceipt.STATE_DROPPED;
        }
        return state.responds() ? responder.receive(frame, op) : RcReceipt.STATE_DROPPED;
    }

    /** The source IP is the QP's destination (rxe_recv.c check_addr: an RC QP talks to one peer). */
    private boolean fromPeer() {
        if (frame.isIpv6()) {
            return frame.ipv6().sourceHi() == path.destinationHi && frame.ipv6().sourceLo() == path.destinationLo;
        }
        return path.destinationHi == IpAddress.IPV4_MAPPED_HI
                && IpAddress.mappedLo(frame.ipv4().source()) == path.destinationLo;
    }

    private static boolean isResponse(BthOpcode op) {
        int c = op.code();
        return c >= BthOpcode.RC_RDMA_READ_RESPONSE_FIRST.code() && c <= BthOpcode.RC_ATOMIC_ACKNOWLEDGE.code();
    }

    /**
     * The timers at {@code now}, the responder's owed ACK, then up to {@code budget} request packets; answers the
     * frames sent.
     */
    public int service(long now, int budget) {
        if (!state.responds()) {
            return 0;
        }
        int sent = responder.flushAck() ? 1 : 0;
        if (!state.requests()) {
            return sent;
        }
        if (timers.rnrWaiting()) {
            if (timers.rnrDue(now)) {
                requester.restartFrom(timers.rnrDone());
                timers.restart(now);
            }
        } else if (window.outstanding() && timers.timeoutDue(now)) {
            counters.timeouts++;
            if (timers.takeRetry()) {
                completer.timeoutRetry();
                timers.restart(now);
            } else {
                completer.fail(slots.head, RcStatus.RETRY_EXCEEDED, RcStatus.RETRY_EXCEEDED.event());
                return sent;
            }
        }
        return sent + requester.transmit(now, budget);
    }

    /** True when a timer runs: {@link #deadline()} is when {@link #service} has work for it. */
    public boolean hasDeadline() {
        return state.requests() && (timers.rnrWaiting() || window.outstanding());
    }

    /** The next timer's expiry in the caller's nanoseconds (meaningful when {@link #hasDeadline()}). */
    public long deadline() {
        return timers.rnrWaiting() ? timers.rnrUntil() : timers.timeoutAt();
    }

    /** True when {@link #service} has frames to send now (owed ACK, posted work, a retry). */
    public boolean wantsService() {
        return state.responds() && (responder.ackOwed() || state.requests() && requester.pending());
    }

    /** Work requests posted and not yet completed. */
    public int outstanding() {
        return (int) (slots.tail - slots.head);
    }

    /** In ERROR: completes every work request left with a flush status (irdma's FLUSH_WQES for the SQ). */
    public int flushSendQueue() {
        return state.current() == RcState.ERROR ? completer.flush() : 0;
    }

    /** The responder's expected PSN (EPSN). */
    public int expectedPsn() {
        return responder.expectedPsn();
    }

    /** A one-line summary for logs and test failures (allocates; not for the per-frame paths). */
    public String describe() {
        StringBuilder b = new StringBuilder().append(state.current()).append(" slots ").append(slots.head).append('/')
                .append(slots.numbered).append('/').append(slots.tail).append(" psn next ").append(window.next)
                .append(" high ").append(window.high).append(" unacked ").append(window.unacked).append(" epsn ")
                .append(responder.expectedPsn()).append(" rnr ").append(timers.rnrWaiting()).append(" recv");
        for (RcReceipt r : RcReceipt.values()) {
            if (counters.received(r) > 0) {
                b.append(' ').append(r).append('=').append(counters.received(r));
            }
        }
        return b.toString();
    }

    /** For tests: true when the requester's window and its slots disagree (all completed, PSNs outstanding). */
    boolean windowInconsistent() {
        return state.requests() && slots.head == slots.numbered && window.outstanding();
    }

    /** The requester's next PSN (PSNNXT). */
    public int nextPsn() {
        return window.next;
    }

    /** Frees the engine's off-heap transmit buffer at Destroy QP; the engine is not used again. */
    public void release() {
        tx.release();
    }
}
