package dev.irdmaemu.model.roce.rc;

import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.roce.Aeth;
import dev.irdmaemu.fw.roce.BthOpcode;
import dev.irdmaemu.fw.roce.RoceCheck;
import dev.irdmaemu.fw.roce.RoceFrame;
import dev.irdmaemu.model.mr.MemoryRegions;

/**
 * The requester's receive side: ACKs, NAKs, RNR NAKs and READ responses, and the SQ completions, in posting order
 * (IBA Vol. 1 §9.7.5.1 and §9.7.6; the logic of drivers/infiniband/sw/rxe/rxe_comp.c). An ACK for a PSN completes
 * every SEND and WRITE whose last PSN it reaches (coalesced ACKs); a READ response is an implied ACK of everything
 * before it, is placed at its offset when it is the one expected, and completes the READ with its last packet. An
 * ACK or response beyond a READ whose responses are missing, a response past the expected one and a NAK PSN
 * sequence error start one go-back-N retry (a second waits for progress or the timer, as rxe's started_retry).
 * An RNR NAK holds transmission for its timer (IBA Table 45) and takes an RNR retry; NAK invalid request, remote
 * access and remote operational error complete their work request with the matching status and put the QP in
 * error. Frames for PSNs outside those in flight are stale or hostile: counted, nothing else.
 */
final class RcCompleter {
    private final RcPath path;
    private final SendSlots slots;
    private final PsnWindow window;
    private final RetryTimers timers;
    private final RcRequester requester;
    private final MemoryRegions regions;
    private final RcCompletions completions;
    private final RcCounters counters;
    private final QueuePairState state;
    private final SendCompletion completion = new SendCompletion();
    private final RcStatus[] status;
    private boolean retryStarted;
    private int highestAck;

    RcCompleter(RcPath path, SendSlots slots, PsnWindow window, RetryTimers timers, RcRequester requester,
                MemoryRegions regions, RcCompletions completions, RcCounters counters, QueuePairState state) {
        this.path = path;
        this.slots = slots;
        this.window = window;
        this.timers = timers;
        this.requester = requester;
        this.regions = regions;
        this.completions = completions;
        this.counters = counters;
        this.state = state;
        this.status = new RcStatus[slots.capacity()];
        java.util.Arrays.fill(status, RcStatus.SUCCESS);
    }

    void reset() {
        retryStarted = false;
        highestAck = Psn.add(window.unacked, -1);
    }

    /** An ACKNOWLEDGE or READ RESPONSE for this QP, in RTS. */
    RcReceipt receive(RoceFrame f, BthOpcode op, long now) {
        int psn = f.bth().psn();
        if (op == BthOpcode.RC_ACKNOWLEDGE) {
            return acknowledge(f.headers().aeth(), psn, now);
        }
        if (op == BthOpcode.RC_ATOMIC_ACKNOWLEDGE) {
            return RcReceipt.RESPONSE_UNEXPECTED;
        }
        return response(f, op, psn, now);
    }

    private RcReceipt acknowledge(Aeth aeth, int psn, long now) {
        switch (aeth.kind()) {
            case ACK:
                if (!window.acknowledges(psn)) {
                    return RcReceipt.OUT_OF_WINDOW;
                }
                return ackThrough(psn, now) ? RcReceipt.ACK_PROGRESS : RcReceipt.ACK_DUPLICATE;
            case RNR_NAK:
                if (!window.contains(psn)) {
                    return RcReceipt.OUT_OF_WINDOW;
                }
                ackThrough(Psn.add(psn, -1), now);
                if (!timers.takeRnrRetry()) {
                    fail(slots.find(psn), RcStatus.RNR_RETRY_EXCEEDED, AeCode.LLP_TOO_MANY_RNRS);
                    return RcReceipt.NAK_ERROR;
                }
                counters.rnrWaits++;
                timers.rnrWait(now + Aeth.rnrTimerMicros(aeth.syndromeValue()) * 1_000L, psn);
                return RcReceipt.RNR_NAK_WAIT;
            case NAK:
                return nak(aeth, psn, now);
            default:
                return RcReceipt.RESERVED_SYNDROME;
        }
    }

    private RcReceipt nak(Aeth aeth, int psn, long now) {
        RcStatus s;
        switch (aeth.nakCode()) {
            case PSN_SEQUENCE_ERROR:
                if (!window.contains(psn)) {
                    return RcReceipt.OUT_OF_WINDOW;
                }
                ackThrough(Psn.add(psn, -1), now);
                retry(psn);
                return RcReceipt.SEQUENCE_NAK_RETRY;
            case INVALID_REQUEST:
                s = RcStatus.REMOTE_INVALID_REQUEST;
                break;
            case REMOTE_ACCESS_ERROR:
                s = RcStatus.REMOTE_ACCESS_ERROR;
                break;
            case REMOTE_OPERATIONAL_ERROR:
                s = RcStatus.REMOTE_OPERATION_ERROR;
                break;
            default:
                return RcReceipt.RESERVED_SYNDROME;
        }
        if (!window.contains(psn)) {
            return RcReceipt.OUT_OF_WINDOW;
        }
        ackThrough(Psn.add(psn, -1), now);
        fail(slots.find(psn), s, s.event());
        return RcReceipt.NAK_ERROR;
    }

    /** A go-back-N retry from {@code psn}, unless one started and neither progress nor the timer came since. */
    void retry(int psn) {
        if (!retryStarted && requester.restartFrom(psn)) {
            retryStarted = true;
        }
    }

    /** The timer expired: a retry from the oldest unacknowledged PSN. */
    void timeoutRetry() {
        requester.restartFrom(window.unacked);
        retryStarted = true;
    }

    /**
     * Everything through {@code psn} is acknowledged: SENDs and WRITEs it reaches complete; a READ whose missing
     * responses it passes over starts a retry. Answers whether anything new was acknowledged.
     */
    private boolean ackThrough(int psn, long now) {
        if (Psn.diff(psn, highestAck) > 0) {
            highestAck = psn;
        }
        boolean progress = false;
        while (slots.head != slots.numbered && state.requests()) {
            int i = slots.index(slots.head);
            if (slots.opcode[i].isRead() && slots.received[i] < slots.packets[i]) {
                int expected = Psn.add(slots.firstPsn[i], slots.received[i]);
                if (Psn.diff(psn, expected) >= 0) {
                    retry(expected);
                }
                break;
            }
            int last = slots.lastPsn(i);
            if (Psn.diff(psn, last) >= 0) {
                window.acknowledged(last);
                complete(RcStatus.SUCCESS);
                progress = true;
                continue;
            }
            if (Psn.diff(psn, window.unacked) >= 0) {
                window.acknowledged(psn);
                progress = true;
            }
            break;
        }
        if (progress) {
            timers.progress(now);
            retryStarted = false;
        }
        return progress;
    }

    private RcReceipt response(RoceFrame f, BthOpcode op, int psn, long now) {
        if (!window.contains(psn)) {
            return Psn.diff(psn, window.unacked) < 0 ? RcReceipt.RESPONSE_DUPLICATE : RcReceipt.OUT_OF_WINDOW;
        }
        ackThrough(Psn.add(psn, -1), now);
        if (slots.head == slots.numbered || !state.requests()) {
            return RcReceipt.RESPONSE_UNEXPECTED;
        }
        int i = slots.index(slots.head);
        int k = Psn.diff(psn, slots.firstPsn[i]);
        if (!slots.opcode[i].isRead() || k < 0) {
            return RcReceipt.RESPONSE_UNEXPECTED;
        }
        if (k != slots.received[i]) {
            // a later response (of this READ, or of one after it) while this READ misses one: go back
            retry(Psn.add(slots.firstPsn[i], slots.received[i]));
            return RcReceipt.RESPONSE_OUT_OF_ORDER;
        }
        int mtu = path.mtu.bytes();
        long offset = (long) k * mtu;
        int n = (int) Math.min(mtu, slots.length[i] - offset);
        if (!fits(op, k == slots.packets[i] - 1) || f.payloadLength() != n
                || f.mtuCheck(path.mtu) != RoceCheck.ACCEPTED) {
            return RcReceipt.RESPONSE_MALFORMED;
        }
        int r = slots.buffers[i].scatter(regions, path.protectionDomain, offset, f.store(),
                f.offset() + f.payloadOffset(), n);
        if (r != MemoryRegions.OK) {
            fail(slots.head, RcStatus.LOCAL_PROTECTION_ERROR, QueuePairState.event(r, AeCode.AMP_BOUNDS_VIOLATION));
            return RcReceipt.RESPONSE_PLACEMENT_FAILED;
        }
        slots.received[i]++;
        window.acknowledged(psn);
        timers.progress(now);
        retryStarted = false;
        if (slots.received[i] == slots.packets[i]) {
            complete(RcStatus.SUCCESS);
            if (Psn.diff(highestAck, window.unacked) >= 0) {
                ackThrough(highestAck, now);
            }
        }
        return RcReceipt.RESPONSE_PLACED;
    }

    /**
     * Whether a response opcode may carry packet {@code k} of a READ: the last one ends a response (LAST or ONLY),
     * any other continues one (FIRST or MIDDLE). A READ retried from its middle is a new request to the responder,
     * whose responses start again with FIRST (or ONLY): rxe_comp.c check_ack accepts that restart too.
     */
    private static boolean fits(BthOpcode op, boolean last) {
        BthOpcode.Position p = op.position();
        return last ? p == BthOpcode.Position.LAST || p == BthOpcode.Position.ONLY
                : p == BthOpcode.Position.FIRST || p == BthOpcode.Position.MIDDLE;
    }

    /**
     * The work request at {@code position} ends with {@code s} and the QP goes to error: reported now when it is
     * the oldest, else by {@link #flush()} after the ones before it.
     */
    void fail(long position, RcStatus s, AeCode event) {
        if (position - slots.head >= 0 && position - slots.numbered < 0) {
            status[slots.index(position)] = s;
            if (position == slots.head) {
                complete(s);
            }
        }
        state.fail(event);
    }

    /** The QP is in error: every work request left completes, flushed unless it failed itself. */
    int flush() {
        int n = 0;
        while (slots.head != slots.tail) {
            RcStatus s = status[slots.index(slots.head)];
            complete(s == RcStatus.SUCCESS ? RcStatus.FLUSHED : s);
            n++;
        }
        slots.numbered = slots.tail;
        requester.flushed();
        return n;
    }

    /** RESET: the work requests are dropped without completions. */
    void discard() {
        while (slots.head != slots.tail) {
            status[slots.index(slots.head)] = RcStatus.SUCCESS;
            slots.head++;
        }
        slots.numbered = slots.tail;
        requester.flushed();
    }

    private void complete(RcStatus s) {
        int i = slots.index(slots.head);
        completion.workRequestId = slots.workRequestId[i];
        completion.opcode = slots.opcode[i];
        completion.status = s;
        completion.byteLength = slots.length[i];
        completion.signaled = slots.signaled[i];
        status[i] = RcStatus.SUCCESS;
        slots.head++;
        if (slots.numbered - slots.head < 0) {
            slots.numbered = slots.head;
        }
        requester.completedThrough(slots.head);
        counters.sendsCompleted++;
        completions.sendCompleted(completion);
    }
}
