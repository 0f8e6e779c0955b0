package dev.irdmaemu.model.roce.rc;

import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.roce.BthOpcode;
import dev.irdmaemu.fw.roce.NakCode;
import dev.irdmaemu.fw.roce.Reth;
import dev.irdmaemu.fw.roce.RoceCheck;
import dev.irdmaemu.fw.roce.RoceFrame;
import dev.irdmaemu.model.mr.MemoryRegions;

/**
 * The RC responder: inbound requests checked and executed in PSN order (IBA Vol. 1 §9.7.4 and §9.7.5; the logic of
 * drivers/infiniband/sw/rxe/rxe_resp.c). The PSN against the expected one: ahead draws one NAK PSN sequence error
 * until the expected one arrives (further ones are dropped), behind is a duplicate (a SEND or WRITE is ACKed again,
 * a READ answered again from its {@link ReadResources}). Then the opcode against the message in progress (a MIDDLE
 * or LAST without its FIRST, an opcode this QP does not serve, a length against the path MTU or the RETH: NAK
 * invalid request), the R_Key, VA and length through {@link MemoryRegions} (NAK remote access error), a local
 * buffer that refuses the data (NAK remote operational error); each of those NAKs puts the QP in error. A SEND
 * takes the head RQ WQE at its first packet (none: RNR NAK, the PSN stays expected) and is scattered across its
 * fragments; a WRITE with immediate takes one at its last packet. A READ is checked whole, recorded, and answered
 * with FIRST/MIDDLE/LAST responses at the path MTU, reusing the request's PSNs. The MSN counts completed messages.
 */
final class RcResponder {
    private enum Message {
        NONE, SEND, WRITE
    }

    private final RcPath path;
    private final MemoryRegions regions;
    private final RcReceiveQueue rq;
    private final RcCompletions completions;
    private final RcFrameTransmitter tx;
    private final RcCounters counters;
    private final QueuePairState state;
    private final ResponderAcks acks;
    private final ReadResources resources = new ReadResources();
    private final ReceiveWqe wqe = new ReceiveWqe();
    private final ReceiveCompletion completion = new ReceiveCompletion();
    private int expectedPsn;
    private int msn;
    private Message message = Message.NONE;
    private boolean haveWqe;
    private long offset;
    private long writeAddress;
    private int writeKey;
    private long writeLength;
    private boolean sequenceNakSent;

    RcResponder(RcPath path, MemoryRegions regions, RcReceiveQueue rq, RcCompletions completions,
                RcFrameTransmitter tx, RcCounters counters, QueuePairState state) {
        this.path = path;
        this.regions = regions;
        this.rq = rq;
        this.completions = completions;
        this.tx = tx;
        this.counters = counters;
        this.state = state;
        this.acks = new ResponderAcks(tx, counters);
    }

    void reset() {
        expectedPsn = path.receivePsn;
        msn = 0;
        message = Message.NONE;
        haveWqe = false;
        offset = 0;
        sequenceNakSent = false;
        acks.reset();
        resources.reset(path.ird);
    }

    int expectedPsn() {
        return expectedPsn;
    }

    /** Sends the ACK owed, if any (coalesced: called once per batch of received frames). */
    boolean flushAck() {
        return acks.flush(Psn.add(expectedPsn, -1), msn);
    }

    boolean ackOwed() {
        return acks.owed();
    }

    /** A request packet (not an ACK or response) for this QP in RTR or RTS. */
    RcReceipt receive(RoceFrame f, BthOpcode op) {
        int psn = f.bth().psn();
        int d = Psn.diff(psn, expectedPsn);
        if (d > 0) {
            if (sequenceNakSent) {
                return RcReceipt.SEQUENCE_DROPPED;
            }
            sequenceNakSent = true;
            acks.nak(NakCode.PSN_SEQUENCE_ERROR, expectedPsn, msn);
            return RcReceipt.SEQUENCE_NAKED;
        }
        if (d < 0) {
            return duplicate(f, op, psn);
        }
        sequenceNakSent = false;
        if (!inSequence(op)) {
            return fatal(NakCode.INVALID_REQUEST, psn, RcStatus.REMOTE_INVALID_REQUEST, AeCode.IB_INVALID_REQUEST);
        }
        if (f.mtuCheck(path.mtu) != RoceCheck.ACCEPTED) {
            return fatal(NakCode.INVALID_REQUEST, psn, RcStatus.LOCAL_LENGTH_ERROR, AeCode.IB_INVALID_REQUEST);
        }
        switch (op) {
            case RC_RDMA_READ_REQUEST:
                return read(f, psn);
            case RC_RDMA_WRITE_FIRST:
            case RC_RDMA_WRITE_MIDDLE:
            case RC_RDMA_WRITE_LAST:
            case RC_RDMA_WRITE_LAST_WITH_IMMEDIATE:
            case RC_RDMA_WRITE_ONLY:
            case RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE:
                return write(f, op, psn);
            default:
                return send(f, op, psn);
        }
    }

    /** Whether {@code op} may come now: a SEND, WRITE or READ opcode this QP serves, in its message's order. */
    private boolean inSequence(BthOpcode op) {
        boolean continues = op.position() == BthOpcode.Position.MIDDLE || op.position() == BthOpcode.Position.LAST;
        switch (message) {
            case SEND:
                return isSend(op) && continues;
            case WRITE:
                return isWrite(op) && continues;
            default:
                return !continues && (isSend(op) || isWrite(op) || op == BthOpcode.RC_RDMA_READ_REQUEST);
        }
    }

    private static boolean isSend(BthOpcode op) {
        int c = op.code();
        return c >= 0x00 && c <= 0x05 || op == BthOpcode.RC_SEND_LAST_WITH_INVALIDATE
                || op == BthOpcode.RC_SEND_ONLY_WITH_INVALIDATE;
    }

    private static boolean isWrite(BthOpcode op) {
        int c = op.code();
        return c >= 0x06 && c <= 0x0b;
    }

    private static boolean ends(BthOpcode op) {
        return op.position() == BthOpcode.Position.LAST || op.position() == BthOpcode.Position.ONLY;
    }

    private RcReceipt send(RoceFrame f, BthOpcode op, int psn) {
        if (!haveWqe) {
            if (!rq.peek(wqe)) {
                return rnr(psn);
            }
            haveWqe = true;
            offset = 0;
        }
        int n = f.payloadLength();
        if (offset + n > wqe.buffers().totalLength()) {
            return fatal(NakCode.INVALID_REQUEST, psn, RcStatus.LOCAL_LENGTH_ERROR, AeCode.IB_INVALID_REQUEST);
        }
        int r = wqe.buffers().scatter(regions, path.protectionDomain, offset, f.store(),
                f.offset() + f.payloadOffset(), n);
        if (r != MemoryRegions.OK) {
            return fatal(NakCode.REMOTE_OPERATIONAL_ERROR, psn, RcStatus.LOCAL_PROTECTION_ERROR,
                    QueuePairState.event(r, AeCode.AMP_BOUNDS_VIOLATION));
        }
        offset += n;
        if (!ends(op)) {
            message = Message.SEND;
            return executed(f, false);
        }
        completion.reset(wqe.workRequestId(), RcStatus.SUCCESS);
        if (op.carriesImmediate()) {
            completion.hasImmediate = true;
            completion.immediate = f.headers().immDt().immediate();
        }
        if (op == BthOpcode.RC_SEND_LAST_WITH_INVALIDATE || op == BthOpcode.RC_SEND_ONLY_WITH_INVALIDATE) {
            int key = f.headers().ieth().remoteKey();
            int v = regions.invalidate(key, path.protectionDomain, true);
            if (v != MemoryRegions.OK) {
                return fatal(NakCode.INVALID_REQUEST, psn, RcStatus.LOCAL_PROTECTION_ERROR,
                        QueuePairState.event(v, AeCode.AMP_INVALID_STAG));
            }
            completion.hasInvalidated = true;
            completion.invalidatedKey = key;
        }
        completion.byteLength = offset;
        completion.solicited = f.bth().solicitedEvent();
        completeWqe();
        return executed(f, true);
    }

    private RcReceipt write(RoceFrame f, BthOpcode op, int psn) {
        int n = f.payloadLength();
        if (op.carries(dev.irdmaemu.fw.roce.ExtensionHeader.RETH)) {
            Reth reth = f.headers().reth();
            writeAddress = reth.virtualAddress();
            writeKey = reth.remoteKey();
            writeLength = reth.dmaLength();
            offset = 0;
            boolean only = op.position() == BthOpcode.Position.ONLY;
            if (only ? writeLength != n : writeLength <= n) {
                return fatal(NakCode.INVALID_REQUEST, psn, RcStatus.REMOTE_INVALID_REQUEST, AeCode.IB_INVALID_REQUEST);
            }
            int r = regions.check(writeKey, writeAddress, writeLength, MemoryRegions.REMOTE_WRITE,
                    path.protectionDomain);
            if (r != MemoryRegions.OK) {
                return fatal(NakCode.REMOTE_ACCESS_ERROR, psn, RcStatus.REMOTE_ACCESS_ERROR,
                        QueuePairState.event(r, AeCode.IB_REMOTE_ACCESS_ERROR));
            }
        } else if (op.position() == BthOpcode.Position.MIDDLE ? offset + n >= writeLength
                : offset + n != writeLength) {
            return fatal(NakCode.INVALID_REQUEST, psn, RcStatus.REMOTE_INVALID_REQUEST, AeCode.IB_INVALID_REQUEST);
        }
        if (op.carriesImmediate() && !haveWqe) {
            if (!rq.peek(wqe)) {
                return rnr(psn);
            }
            haveWqe = true;
        }
        int r = regions.write(writeKey, writeAddress + offset, f.store(), f.offset() + f.payloadOffset(), n,
                MemoryRegions.REMOTE_WRITE, path.protectionDomain);
        if (r != MemoryRegions.OK) {
            return fatal(NakCode.REMOTE_ACCESS_ERROR, psn, RcStatus.REMOTE_ACCESS_ERROR,
                    QueuePairState.event(r, AeCode.IB_REMOTE_ACCESS_ERROR));
        }
        offset += n;
        if (!ends(op)) {
            message = Message.WRITE;
            return executed(f, false);
        }
        if (op.carriesImmediate()) {
            completion.reset(wqe.workRequestId(), RcStatus.SUCCESS);
            completion.hasImmediate = true;
            completion.immediate = f.headers().immDt().immediate();
            completion.rdmaWrite = true;
            completion.byteLength = writeLength;
            completion.solicited = f.bth().solicitedEvent();
            completeWqe();
        } else {
            message = Message.NONE;
            msn = Psn.add(msn, 1);
        }
        return executed(f, true);
    }

    private RcReceipt read(RoceFrame f, int psn) {
        Reth reth = f.headers().reth();
        long length = reth.dmaLength();
        if (length > Integer.MAX_VALUE) {
            return fatal(NakCode.INVALID_REQUEST, psn, RcStatus.REMOTE_INVALID_REQUEST, AeCode.IB_INVALID_REQUEST);
        }
        int r = regions.check(reth.remoteKey(), reth.virtualAddress(), length, MemoryRegions.REMOTE_READ,
                path.protectionDomain);
        if (r != MemoryRegions.OK) {
            return fatal(NakCode.REMOTE_ACCESS_ERROR, psn, RcStatus.REMOTE_ACCESS_ERROR,
                    QueuePairState.event(r, AeCode.IB_REMOTE_ACCESS_ERROR));
        }
        int packets = packets(length);
        resources.record(psn, packets);
        expectedPsn = Psn.add(psn, packets);
        msn = Psn.add(msn, 1);
        acks.covered();
        respond(psn, reth.virtualAddress(), reth.remoteKey(), (int) length);
        return RcReceipt.REQUEST_EXECUTED;
    }

    private int packets(long length) {
        int mtu = path.mtu.bytes();
        return (int) Math.max(1, (length + mtu - 1) / mtu);
    }

    /** READ responses for {@code length} bytes at {@code address}, numbered from {@code psn}. */
    private void respond(int psn, long address, int key, int length) {
        int mtu = path.mtu.bytes();
        int packets = packets(length);
        for (int k = 0; k < packets; k++) {
            long at = (long) k * mtu;
            int n = (int) Math.min(mtu, length - at);
            BthOpcode op = SendOpcode.readResponse(k, packets);
            tx.headers().aeth(RcFrameTransmitter.ackSyndrome(), msn);
            long payload = tx.begin(op, Psn.add(psn, k), false, false, n);
            int r = regions.read(key, address + at, tx.buffer(), payload, n, MemoryRegions.REMOTE_READ,
                    path.protectionDomain);
            if (r != MemoryRegions.OK) {
                // the region changed since the request was checked (invalidated or deregistered meanwhile)
                fatal(NakCode.REMOTE_ACCESS_ERROR, Psn.add(psn, k), RcStatus.REMOTE_ACCESS_ERROR,
                        QueuePairState.event(r, AeCode.IB_REMOTE_ACCESS_ERROR));
                return;
            }
            tx.send();
            counters.readResponsesSent++;
        }
    }

    private RcReceipt duplicate(RoceFrame f, BthOpcode op, int psn) {
        if (op != BthOpcode.RC_RDMA_READ_REQUEST) {
            acks.owe();
            return RcReceipt.DUPLICATE_ACKED;
        }
        if (!resources.find(psn)) {
            return RcReceipt.DUPLICATE_READ_DROPPED;
        }
        Reth reth = f.headers().reth();
        long length = reth.dmaLength();
        // the retried request asks for the rest of the READ: its responses must end where the original's did
        if (length > Integer.MAX_VALUE
                || Psn.add(psn, packets(length) - 1) != resources.lastPsn(resources.found())
                || regions.check(reth.remoteKey(), reth.virtualAddress(), length, MemoryRegions.REMOTE_READ,
                        path.protectionDomain) != MemoryRegions.OK) {
            return RcReceipt.DUPLICATE_READ_DROPPED;
        }
        respond(psn, reth.virtualAddress(), reth.remoteKey(), (int) length);
        return RcReceipt.DUPLICATE_READ_REPLAYED;
    }

    private RcReceipt rnr(int psn) {
        acks.rnrNak(path.rnrTimerCode, psn, msn);
        return RcReceipt.RNR_NAKED;
    }

    private RcReceipt executed(RoceFrame f, boolean last) {
        expectedPsn = Psn.add(expectedPsn, 1);
        acks.executed(f.bth().ackRequest(), last);
        return RcReceipt.REQUEST_EXECUTED;
    }

    /** The RQ WQE in use completes as {@link #completion} says; the message is done. */
    private void completeWqe() {
        haveWqe = false;
        message = Message.NONE;
        msn = Psn.add(msn, 1);
        rq.consume();
        counters.receivesCompleted++;
        completions.receiveCompleted(completion);
    }

    /**
     * A responder error of IBA's class C / D (§9.9.3.1): the NAK for {@code psn}, the RQ WQE in use (if any)
     * completes with {@code local}, and the QP goes to error raising {@code event}.
     */
    private RcReceipt fatal(NakCode code, int psn, RcStatus local, AeCode event) {
        acks.nak(code, psn, msn);
        if (haveWqe) {
            completion.reset(wqe.workRequestId(), local);
            completion.byteLength = offset;
            completeWqe();
        }
        state.fail(event);
        switch (code) {
            case REMOTE_ACCESS_ERROR:
                return RcReceipt.REMOTE_ACCESS_NAKED;
            case REMOTE_OPERATIONAL_ERROR:
                return RcReceipt.REMOTE_OPERATION_NAKED;
            default:
                return RcReceipt.INVALID_REQUEST_NAKED;
        }
    }

    /** The MSN: messages completed (the AETH's 24 bits). */
    int messageSequenceNumber() {
        return msn;
    }
}
