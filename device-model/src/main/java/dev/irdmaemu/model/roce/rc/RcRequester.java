package dev.irdmaemu.model.roce.rc;

import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.roce.BthOpcode;
import dev.irdmaemu.fw.roce.ExtensionHeader;
import dev.irdmaemu.fw.roce.RoceFrameBuilder;
import dev.irdmaemu.model.mr.MemoryRegions;

/**
 * The RC requester: posted SQ work into packets (IBA Vol. 1 §9.7.7 segmentation, §9.7.2 PSNs; the logic of
 * drivers/infiniband/sw/rxe/rxe_req.c). A message is cut at the path MTU into FIRST/MIDDLE/LAST packets (ONLY when
 * it fits one), each with the next PSN (24 bits, wrapping); a READ sends one request and takes one PSN per response
 * packet; WRITE FIRST/ONLY carry the RETH, the last packet the immediate or the R_Key to invalidate and the
 * solicited bit. AckReq is set on every message's last packet and after {@value #ACK_REQUEST_INTERVAL} packets
 * without one (rxe_req.c, RXE_MAX_PKT_PER_ACK). At most the configured packets are in flight and at most ORD READs
 * outstanding. A go-back-N retry ({@link #restartFrom}) resends from any PSN in flight: the slot holding it, the
 * packet within it, and for a READ a request for the part whose responses are missing (RETH moved on by the bytes
 * placed). The payload is gathered from the local buffers straight into the transmit buffer; a local buffer the QP
 * may not read fails the work request with a local protection error.
 */
final class RcRequester {
    static final int ACK_REQUEST_INTERVAL = 64;

    private final RcPath path;
    private final SendSlots slots;
    private final PsnWindow window;
    private final RetryTimers timers;
    private final RcFrameTransmitter tx;
    private final MemoryRegions regions;
    private final RcCounters counters;
    private final QueuePairState state;
    private final int maxInFlight;
    private RcCompleter completer;
    private long cursor;
    private int packetIndex;
    private int sinceAckRequest;

    RcRequester(RcPath path, SendSlots slots, PsnWindow window, RetryTimers timers, RcFrameTransmitter tx,
                MemoryRegions regions, RcCounters counters, QueuePairState state, int maxInFlight) {
        this.path = path;
        this.slots = slots;
        this.window = window;
        this.timers = timers;
        this.tx = tx;
        this.regions = regions;
        this.counters = counters;
        this.state = state;
        this.maxInFlight = maxInFlight;
    }

    void completer(RcCompleter c) {
        completer = c;
    }

    void reset(long now) {
        window.reset(path.sendPsn);
        timers.reset(now);
        cursor = slots.head;
        slots.numbered = slots.head;
        packetIndex = 0;
        sinceAckRequest = 0;
    }

    /** True when posted work waits for its first transmission. */
    boolean pending() {
        return cursor != slots.tail;
    }

    /** Sends up to {@code budget} packets; answers how many went out. */
    int transmit(long now, int budget) {
        int sent = 0;
        while (sent < budget && cursor != slots.tail && state.requests() && !timers.rnrWaiting()
                && window.inFlight() < maxInFlight) {
            if (cursor == slots.numbered) {
                slots.number(window.next, path.mtu.bytes());
            }
            boolean idle = !window.outstanding();
            int i = slots.index(cursor);
            boolean out = slots.opcode[i].isRead() ? readRequest(i) : packet(i);
            if (!out) {
                break;
            }
            if (idle) {
                timers.restart(now);
            }
            sent++;
        }
        return sent;
    }

    private boolean packet(int i) {
        int mtu = path.mtu.bytes();
        int packets = slots.packets[i];
        int k = packetIndex;
        long offset = (long) k * mtu;
        int n = (int) Math.min(mtu, slots.length[i] - offset);
        boolean last = k == packets - 1;
        BthOpcode op = slots.opcode[i].packet(k, packets);
        boolean ackRequest = last || ++sinceAckRequest >= ACK_REQUEST_INTERVAL;
        if (ackRequest) {
            sinceAckRequest = 0;
        }
        RoceFrameBuilder h = tx.headers();
        if (op.carries(ExtensionHeader.RETH)) {
            h.reth(slots.remoteAddress[i], slots.remoteKey[i], slots.length[i]);
        }
        if (op.carries(ExtensionHeader.IMM_DT)) {
            h.immediate(slots.immediate[i]);
        }
        if (op.carries(ExtensionHeader.IETH)) {
            h.invalidate(slots.invalidateKey[i]);
        }
        int psn = window.next;
        long at = tx.begin(op, psn, last && slots.solicited[i], ackRequest, n);
        int r = slots.buffers[i].gather(regions, path.protectionDomain, offset, tx.buffer(), at, n);
        if (r != MemoryRegions.OK) {
            completer.fail(cursor, RcStatus.LOCAL_PROTECTION_ERROR,
                    QueuePairState.event(r, AeCode.AMP_BOUNDS_VIOLATION));
            return false;
        }
        tx.send();
        countSent(window.sent(psn, psn));
        if (last) {
            cursor++;
            packetIndex = 0;
        } else {
            packetIndex++;
        }
        return true;
    }

    private boolean readRequest(int i) {
        if (slots.readsOutstanding(cursor) >= path.ord) {
            return false;
        }
        int mtu = path.mtu.bytes();
        int k = packetIndex;
        long offset = (long) k * mtu;
        tx.headers().reth(slots.remoteAddress[i] + offset, slots.remoteKey[i], (int) (slots.length[i] - offset));
        int psn = window.next;
        tx.begin(BthOpcode.RC_RDMA_READ_REQUEST, psn, false, true, 0);
        tx.send();
        sinceAckRequest = 0;
        countSent(window.sent(psn, Psn.add(psn, slots.packets[i] - k - 1)));
        cursor++;
        packetIndex = 0;
        return true;
    }

    private void countSent(boolean resend) {
        counters.requestPacketsSent++;
        if (resend) {
            counters.packetsRetransmitted++;
        }
    }

    /**
     * Go-back-N: the next packet sent is {@code psn}'s, which must be in a numbered slot not yet completed.
     * Answers false (nothing changed) when no such slot holds it.
     */
    boolean restartFrom(int psn) {
        long p = slots.find(psn);
        if (p == slots.numbered) {
            return false;
        }
        cursor = p;
        packetIndex = Psn.diff(psn, slots.firstPsn[slots.index(p)]);
        window.next = psn;
        sinceAckRequest = 0;
        return true;
    }

    /** Completion reached {@code head}: a go-back-N cursor left behind it moves up (those packets are done). */
    void completedThrough(long head) {
        if (cursor - head < 0) {
            cursor = head;
            packetIndex = 0;
            if (head == slots.numbered) {
                window.next = window.high;
                return;
            }
            int i = slots.index(head);
            if (slots.opcode[i].isRead()) {
                packetIndex = slots.received[i];
            }
            window.next = Psn.add(slots.firstPsn[i], packetIndex);
        }
    }

    /** After a flush: nothing left to send. */
    void flushed() {
        cursor = slots.tail;
        packetIndex = 0;
    }
}
