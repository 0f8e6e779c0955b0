package dev.irdmaemu.model.iwarp;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.cqp.GatherStatsBuffer.Stat;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.iwarp.DdpHeader;
import dev.irdmaemu.fw.iwarp.Fpdu;
import dev.irdmaemu.fw.iwarp.IwarpFrame;
import dev.irdmaemu.fw.iwarp.RdmaReadRequest;
import dev.irdmaemu.fw.iwarp.RdmapOpcode;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.fw.queue.SgeList;
import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.fw.queue.WqeCheck;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.model.eq.RingCursor;
import dev.irdmaemu.model.hmc.RingPages;
import dev.irdmaemu.model.mr.MemoryRegions;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The SQ of one iWARP QP as the E810 works it: WQEs fetched from the ring in host memory at the device's index
 * while their valid bit is the ring's polarity (uk.c: the driver's swqe_polarity starts at 1 after the connection
 * WQEs and flips at every wrap to index 0), in order, each turned into FPDUs (RFC 5040/5041/5044) or executed
 * locally:
 * <ul>
 *   <li>Send / Send with SE / with Invalidate (+SE): untagged, DDP queue 0, MSN per message from 1, MO per
 *       segment, the Invalidate STag in RsvdULP; RDMA Write: tagged to the remote STag and TO; RDMA Read: one RDMA
 *       Read Request (queue 1) per local SGE (each its own sink STag), at most ORD outstanding, the WQE completing
 *       with the last byte of the last Read Response; Read with local invalidate invalidates its first SGE's STag
 *       then. Payload is gathered through {@link MemoryRegions#read} with the SGEs' lkeys and LOCAL_READ, or
 *       taken from the WQE (inline). Each FPDU carries at most the MULPDU of the connection's MSS.</li>
 *   <li>The connection WQEs irdma writes before RTS (ctrl.c irdma_sc_send_lsmm / irdma_sc_send_rtt /
 *       irdma_sc_gen_rts_ae): a streaming-mode Send whose bytes go on the TCP stream raw (the LSMM), after which,
 *       with WAITFORRCVPDU, the SQ waits for the peer's first FPDU; the RTR as an ordinary zero-length Write or
 *       Read; a NOP with local fence; GEN_RTS_AE, which raises IRDMA_AE_LLP_CONNECTION_ESTABLISHED.</li>
 *   <li>NOP, Local Invalidate and Fast Register (through {@link MemoryRegions}); Bind MW and the atomics are not
 *       modelled and raise IRDMA_AE_WQE_UNEXPECTED_OPCODE.</li>
 *   <li>Fences: a WQE with LOCALFENCE starts once every earlier WQE completed; READFENCE once no RDMA Read is
 *       outstanding.</li>
 * </ul>
 * Completions are written in SQ order, for signaled WQEs only (uk.c moves its SQ tail to the completed WQE, so
 * unsignaled ones before it complete with it): a Send or Write once TCP has the acknowledgment of its last byte
 * (the device retransmits from its own buffer, so that is when the message is delivered to the peer's TCP), a
 * Read with its last response, local work at once. A malformed WQE, a failed gather or a failed memory operation
 * raises the AE of the failure (source SQ, the WQE's index) and stops the QP; the WQE and everything after it
 * complete only when the driver flushes them. Allocation-free.
 */
final class SendQueue {
    /** The LSMM (MPA Reply and private data, or any streaming-mode message) at most: model's limit. */
    static final int LSMM_MAX = 16 * 1024;

    private static final int PENDING = 0;
    private static final int WAIT_ACK = 1;
    private static final int WAIT_READ = 2;
    private static final int DONE = 3;

    private static final int KIND_SEND = 1;
    private static final int KIND_WRITE = 2;
    private static final int KIND_READ = 3;
    private static final int KIND_STREAM = 4;

    private final IwarpQp q;
    private final FpduTransmitter out;
    private final HostMemory memory;
    private final RingCursor cursor;
    private final RingPages ring;
    private final int ringQuanta;
    private final SqWqe wqe = new SqWqe();
    private final BytesStore<?, Void> inline = BytesStore.nativeStoreWithFixedCapacity(SqWqe.MAX_QUANTA * 32L);
    private final int ord;

    // The WQE being turned into FPDUs.
    private boolean active;
    private int kind;
    private int curIndex;
    private int curSlot;
    private int curRdmapOpcode;
    private long curLength;
    private long curSent;
    private int curRemoteStag;
    private long curRemoteTo;
    private int curInvalidateStag;
    private boolean curInline;
    private boolean curWaitForPdu;
    /** The WQE's non-empty SGEs (lengths are 31-bit WQE fields, so an int holds them). */
    private final SgeList sges = new SgeList();
    private int sgeIdx;
    private long sgeOff;

    // Work started and not yet completed, in SQ order (one slot per WQE; never more WQEs than quanta).
    private final int[] cIndex;
    private final int[] cOpcode;
    private final int[] cState;
    private final long[] cEndSeq;
    private final int[] cReads;
    private final boolean[] cSignaled;
    private final int[] cLocalInvalidate;
    private int cHead;
    private int cCount;

    // RDMA Read Requests sent and not yet answered (ORD), in order.
    // A ring of the QP's ORD (the context's 8-bit field, at most ORD_CAPACITY): never more are outstanding.
    static final int ORD_CAPACITY = 256;
    private final int oCapacity;
    private final int[] oSlot;
    private final int[] oSinkStag;
    private final long[] oSinkTo;
    private final long[] oSize;
    private final long[] oPlaced;
    private int oHead;
    private int oCount;

    private int sendMsn = 1;
    private int readMsn = 1;
    private boolean waitingForPeer;
    /** The next WQE waits for earlier work to complete (a fence). */
    private boolean fenceBlocked;
    private boolean flushed;
    private boolean started;

    SendQueue(IwarpQp q, HostMemory memory, RingCursor cursor, RingPages ring, int ringQuanta, int ord,
              QpEngineMemory m) {
        this.q = q;
        this.out = q.transmitter();
        this.memory = memory;
        this.cursor = cursor;
        this.ring = ring;
        this.ringQuanta = ringQuanta;
        this.ord = ord;
        cIndex = m.cIndex;
        cOpcode = m.cOpcode;
        cState = m.cState;
        cEndSeq = m.cEndSeq;
        cReads = m.cReads;
        cSignaled = m.cSignaled;
        cLocalInvalidate = m.cLocalInvalidate;
        oCapacity = m.ordSlots;
        oSlot = m.oSlot;
        oSinkStag = m.oSinkStag;
        oSinkTo = m.oSinkTo;
        oSize = m.oSize;
        oPlaced = m.oPlaced;
    }

    void release() {
        inline.releaseLast();
    }

    /** Waiting for the peer's first FPDU after the LSMM (WAITFORRCVPDU). */
    boolean waitingForPeer() {
        return waitingForPeer && !q.runState().firstFpduReceived();
    }

    /** WQEs started and not yet completed. */
    int outstanding() {
        return cCount;
    }

    int readsOutstanding() {
        return oCount;
    }

    /**
     * The next unit of SQ work: a WQE started or an FPDU of the current one sent, its cost charged to
     * {@code cost}; otherwise why the SQ cannot move now.
     */
    StepOutcome step(ServiceCost cost) {
        if (flushed || q.runState().stopped()) {
            return StepOutcome.STOPPED;
        }
        if (active) {
            return continueCurrent(cost);
        }
        if (waitingForPeer()) {
            return StepOutcome.WAITING;
        }
        return startNext(cost);
    }

    /** What the SQ found at the device's index. */
    private enum Fetch {
        /** A posted, well-formed WQE, wrapped in {@link #wqe}. */
        READY,
        /** Nothing posted there (or the ring is not mapped there). */
        NOT_POSTED,
        /** A malformed WQE: the AE was raised and the QP stopped. */
        MALFORMED
    }

    private StepOutcome startNext(ServiceCost cost) {
        int index = cursor.index();
        Fetch fetched = fetch(index);
        if (fetched != Fetch.READY) {
            return fetched == Fetch.NOT_POSTED ? StepOutcome.IDLE : StepOutcome.STOPPED;
        }
        if (wqe.localFence() && cCount > 0 || wqe.readFence() && readsPending()) {
            fenceBlocked = true;
            return StepOutcome.WAITING;
        }
        fenceBlocked = false;
        SqOpcode op = wqe.sqOpcode();
        boolean firstWqe = !started;
        started = true;
        int slot = push(index, op.code(), wqe.signaled());
        traceWqe("start", index, op.code());
        for (int i = 0, quanta = wqe.quanta(); i < quanta; i++) {
            cursor.advance();
        }
        publishTail();
        if (wqe.streamMode() && isSend(op)) {
            return charged(startStream(firstWqe && index == 0, index, slot), cost);
        }
        StepOutcome outcome = switch (op) {
            case NOP, GEN_RTS_AE, LOCAL_INVALIDATE, FAST_REGISTER -> startLocal(op, index, slot);
            case RDMA_SEND, RDMA_SEND_INV, RDMA_SEND_SOL_EVENT, RDMA_SEND_SOL_EVENT_INV -> startSend(op, index, slot);
            case RDMA_WRITE, RDMA_WRITE_SOL -> startWrite(index, slot);
            case RDMA_READ, RDMA_READ_LOC_INV -> startRead(op, index, slot);
            default -> {
                // Bind MW and the atomics: not modelled.
                q.runState().fail(AeCode.WQE_UNEXPECTED_OPCODE.code(), AeSource.SQ, index);
                yield StepOutcome.STOPPED;
            }
        };
        if (outcome == StepOutcome.MOVED) {
            drainCompletions();
        }
        return charged(outcome, cost);
    }

    /** A WQE that started charges its fetch (the FPDUs it becomes are charged as they go). */
    private StepOutcome charged(StepOutcome outcome, ServiceCost cost) {
        if (outcome == StepOutcome.MOVED) {
            cost.charge(q.latency().sqWqeFetchNanos);
        }
        return outcome;
    }

    private static boolean isSend(SqOpcode op) {
        return op == SqOpcode.RDMA_SEND || op == SqOpcode.RDMA_SEND_INV || op == SqOpcode.RDMA_SEND_SOL_EVENT
                || op == SqOpcode.RDMA_SEND_SOL_EVENT_INV;
    }

    /**
     * Wraps the WQE at {@code index} when it is posted (its valid bit is the ring's polarity) and well-formed; a
     * malformed one raises its AE and stops the QP.
     */
    private Fetch fetch(int index) {
        long offset = (long) index * SqWqe.QUANTUM;
        if (!ring.holds(offset)) {
            return Fetch.NOT_POSTED;
        }
        long gpa = ring.address(offset);
        int r = memory.find(gpa, SqWqe.QUANTUM);
        if (r < 0) {
            return Fetch.NOT_POSTED;
        }
        wqe.wrap(memory.store(r), memory.offset(r, gpa), SqWqe.QUANTUM);
        if (wqe.valid() != cursor.polarity()) {
            return Fetch.NOT_POSTED;
        }
        int quanta = wqe.quanta();
        long bytes = (long) quanta * SqWqe.QUANTUM;
        // uk.c never lets a WQE cross the end of the ring (irdma_qp_get_next_send_wqe pads with NOPs). The whole
        // WQE must lie in region r, which holds its first quantum: checked against r's end, not searched again.
        // Nor does it cross a 256-byte chunk (max_hw_sq_chunk), so never a page of a PBL-mapped ring.
        if (index + quanta > ringQuanta || bytes < 0 || bytes > memory.base(r) + memory.length(r) - gpa
                || bytes > ring.span((long) index * SqWqe.QUANTUM)) {
            q.runState().fail(AeCode.WQE_INVALID_PARAMETER.code(), AeSource.SQ, index);
            return Fetch.MALFORMED;
        }
        wqe.wrap(memory.store(r), memory.offset(r, gpa), bytes);
        WqeCheck check = wqe.validate(cursor.polarity());
        if (check == WqeCheck.NOT_POSTED) {
            return Fetch.NOT_POSTED;
        }
        if (!check.accepted()) {
            AeCode ae = check.suggestedAe();
            q.runState().fail((ae != null ? ae : AeCode.WQE_INVALID_PARAMETER).code(), AeSource.SQ, index);
            return Fetch.MALFORMED;
        }
        return Fetch.READY;
    }

    /** NOP, GEN_RTS_AE, Local Invalidate, Fast Register: done at once, or a failure that stops the QP. */
    private StepOutcome startLocal(SqOpcode op, int index, int slot) {
        int rc = switch (op) {
            case GEN_RTS_AE -> {
                // ctrl.c irdma_sc_gen_rts_ae: the device tells the driver the connection is up (hw.c wakes the CM).
                q.runState().ae(AeCode.LLP_CONNECTION_ESTABLISHED.code(), AeSource.SQ, index, 0);
                yield MemoryRegions.OK;
            }
            case LOCAL_INVALIDATE -> q.regions().invalidate(wqe.fragmentStag(0), q.pd(), false);
            case FAST_REGISTER -> q.fastRegisterAllowed() ? q.regions().fastRegister(wqe, q.pd())
                    : AeCode.PRIV_OPERATION_DENIED.code();
            default -> MemoryRegions.OK;
        };
        if (rc != MemoryRegions.OK) {
            q.runState().fail(rc, AeSource.SQ, index);
            return StepOutcome.STOPPED;
        }
        done(slot);
        return StepOutcome.MOVED;
    }

    private StepOutcome startSend(SqOpcode op, int index, int slot) {
        begin(KIND_SEND, index, slot);
        q.functionCounters().increment(Stat.RDMATXSNDS);
        curRdmapOpcode = switch (op) {
            case RDMA_SEND_INV -> RdmapOpcode.CODE_SEND_WITH_INVALIDATE;
            case RDMA_SEND_SOL_EVENT -> RdmapOpcode.CODE_SEND_WITH_SE;
            case RDMA_SEND_SOL_EVENT_INV -> RdmapOpcode.CODE_SEND_WITH_SE_AND_INVALIDATE;
            default -> RdmapOpcode.CODE_SEND;
        };
        curInvalidateStag = op == SqOpcode.RDMA_SEND_INV || op == SqOpcode.RDMA_SEND_SOL_EVENT_INV
                ? wqe.remoteStag() : 0;
        return StepOutcome.MOVED;
    }

    private StepOutcome startWrite(int index, int slot) {
        // RDMAP has no Write-with-SE (RFC 5040 §4.2): both are an RDMA Write on the wire.
        begin(KIND_WRITE, index, slot);
        q.functionCounters().increment(Stat.RDMATXWRS);
        curRdmapOpcode = RdmapOpcode.CODE_RDMA_WRITE;
        curRemoteStag = wqe.remoteStag();
        curRemoteTo = wqe.remoteTaggedOffset();
        return StepOutcome.MOVED;
    }

    private StepOutcome startRead(SqOpcode op, int index, int slot) {
        if (ord == 0) {
            q.runState().fail(AeCode.RDMA_READ_WHILE_ORD_ZERO.code(), AeSource.SQ, index);
            return StepOutcome.STOPPED;
        }
        begin(KIND_READ, index, slot);
        q.functionCounters().increment(Stat.RDMATXRDS);
        curRemoteStag = wqe.remoteStag();
        curRemoteTo = wqe.remoteTaggedOffset();
        if (op == SqOpcode.RDMA_READ_LOC_INV) {
            cLocalInvalidate[slot] = sges.stag(0);
        }
        return StepOutcome.MOVED;
    }

    private StepOutcome startStream(boolean allowed, int index, int slot) {
        // The LSMM is only ever the first WQE at SQ index 0 (irdma_sc_send_lsmm); streaming mode after the QP
        // has gone to RDMA mode is refused.
        begin(KIND_STREAM, index, slot);
        if (!allowed || curInline) {
            q.runState().fail(AeCode.WQE_INVALID_PARAMETER.code(), AeSource.SQ, index);
            return StepOutcome.STOPPED;
        }
        if (curLength > LSMM_MAX) {
            q.runState().fail(AeCode.WQE_LSMM_TOO_LONG.code(), AeSource.SQ, index);
            return StepOutcome.STOPPED;
        }
        curWaitForPdu = wqe.waitForRcvPdu();
        return StepOutcome.MOVED;
    }

    /** Loads the WQE's SGEs (or inline data) as the current message. */
    private void begin(int k, int index, int slot) {
        active = true;
        kind = k;
        curIndex = index;
        curSlot = slot;
        curSent = 0;
        curInvalidateStag = 0;
        curRemoteStag = 0;
        curRemoteTo = 0;
        curWaitForPdu = false;
        curInline = wqe.inline();
        sges.clear();
        sgeIdx = 0;
        sgeOff = 0;
        if (curInline) {
            curLength = wqe.copyInline(inline, 0);
            return;
        }
        int slots = Math.min(wqe.fragmentSlots(), 15);
        long total = 0;
        for (int s = wqe.firstDataSlot(); s < slots && sges.count() < SgeList.CAPACITY; s++) {
            long len = wqe.fragmentLength(s);
            if (len > 0) {
                sges.add(wqe.fragmentAddress(s), (int) len, wqe.fragmentStag(s));
                total += len;
            }
        }
        if (sges.count() == 0 && k == KIND_READ) {
            // A zero-length Read (the RTR, irdma_sc_send_rtt: sink STag 0xabcd): one request of 0 bytes.
            int first = wqe.firstDataSlot();
            sges.add(wqe.fragmentAddress(first), 0, wqe.fragmentStag(first));
        }
        curLength = total;
    }

    private StepOutcome continueCurrent(ServiceCost cost) {
        return switch (kind) {
            case KIND_SEND -> sendSegment(false, cost);
            case KIND_WRITE -> sendSegment(true, cost);
            case KIND_READ -> sendReadRequest(cost);
            default -> sendStream(cost);
        };
    }

    private StepOutcome sendStream(ServiceCost cost) {
        int n = (int) curLength;
        if (!out.roomFor(n)) {
            return StepOutcome.WAITING;
        }
        if (!gather(out.buffer(), 0, n)) {
            return StepOutcome.STOPPED;
        }
        out.sendStream(n);
        finishTransmit(WAIT_ACK);
        waitingForPeer = curWaitForPdu;
        cost.charge(out.cost(n));
        return StepOutcome.MOVED;
    }

    private StepOutcome sendSegment(boolean tagged, ServiceCost cost) {
        int header = tagged ? DdpHeader.TAGGED_LENGTH : DdpHeader.UNTAGGED_LENGTH;
        long remaining = curLength - curSent;
        int n = (int) Math.min(remaining, out.mulpdu() - header);
        if (!out.roomFor(Fpdu.totalLengthFor(header + n))) {
            return StepOutcome.WAITING;
        }
        boolean last = n == remaining;
        long at = out.begin(header + n);
        if (tagged) {
            at += DdpHeader.writeTagged(out.buffer(), at, curRdmapOpcode, last, curRemoteStag, curRemoteTo + curSent);
        } else {
            at += DdpHeader.writeUntagged(out.buffer(), at, curRdmapOpcode, last, curInvalidateStag,
                    RdmapOpcode.QN_SEND, sendMsn, (int) curSent);
        }
        if (!gather(out.buffer(), at, n)) {
            return StepOutcome.STOPPED;
        }
        out.send(n);
        curSent += n;
        if (last) {
            if (!tagged) {
                sendMsn++;
            }
            finishTransmit(WAIT_ACK);
        }
        cost.charge(out.cost(n));
        return StepOutcome.MOVED;
    }

    private StepOutcome sendReadRequest(ServiceCost cost) {
        if (oCount >= ord || oCount >= oCapacity) {
            // ORD reached: this Read (and the SQ behind it) waits for a response to come back.
            return StepOutcome.WAITING;
        }
        int total = IwarpFrame.untaggedFrameLength(RdmaReadRequest.LENGTH);
        if (!out.roomFor(total)) {
            return StepOutcome.WAITING;
        }
        int i = sgeIdx;
        long size = sges.length(i);
        long at = out.begin(DdpHeader.UNTAGGED_LENGTH + RdmaReadRequest.LENGTH);
        at += DdpHeader.writeUntagged(out.buffer(), at, RdmapOpcode.CODE_RDMA_READ_REQUEST, true, 0,
                RdmapOpcode.QN_READ_REQUEST, readMsn, 0);
        RdmaReadRequest.write(out.buffer(), at, sges.stag(i), sges.address(i), (int) size, curRemoteStag,
                curRemoteTo + sgeOff);
        out.send(0);
        readMsn++;
        int o = (oHead + oCount) % oCapacity;
        oSlot[o] = curSlot;
        oSinkStag[o] = sges.stag(i);
        oSinkTo[o] = sges.address(i);
        oSize[o] = size;
        oPlaced[o] = 0;
        oCount++;
        cReads[curSlot]++;
        sgeOff += size;
        sgeIdx++;
        if (sgeIdx == sges.count()) {
            finishTransmit(WAIT_READ);
        }
        cost.charge(out.cost(0));
        return StepOutcome.MOVED;
    }

    /** Copies the next {@code n} message bytes into {@code dst}; false (QP stopped) when memory refuses. */
    private boolean gather(BytesStore<?, ?> dst, long at, int n) {
        if (curInline) {
            dst.write(at, inline, curSent, n);
            return true;
        }
        int left = n;
        long to = at;
        while (left > 0) {
            if (sgeIdx >= sges.count()) {
                q.runState().fail(AeCode.WQE_INVALID_FRAG_DATA.code(), AeSource.SQ, curIndex);
                return false;
            }
            int piece = (int) Math.min(left, sges.length(sgeIdx) - sgeOff);
            int rc = q.regions().read(sges.stag(sgeIdx), sges.address(sgeIdx) + sgeOff, dst, to, piece,
                    MemoryRegions.LOCAL_READ, q.pd());
            if (rc != MemoryRegions.OK) {
                q.runState().fail(rc, AeSource.SQ, curIndex);
                return false;
            }
            to += piece;
            left -= piece;
            sgeOff += piece;
            if (sgeOff == sges.length(sgeIdx)) {
                sgeIdx++;
                sgeOff = 0;
            }
        }
        return true;
    }

    private void finishTransmit(int state) {
        active = false;
        cState[curSlot] = state;
        cEndSeq[curSlot] = out.sequence();
        if (state == WAIT_READ && cReads[curSlot] == 0) {
            cState[curSlot] = DONE;
        }
        drainCompletions();
    }

    private boolean readsPending() {
        if (oCount > 0 || active && kind == KIND_READ) {
            return true;
        }
        for (int i = 0; i < cCount; i++) {
            if (cState[ring(cHead + i)] == WAIT_READ) {
                return true;
            }
        }
        return false;
    }

    private int push(int index, int opcode, boolean signaled) {
        int slot = ring(cHead + cCount);
        cIndex[slot] = index;
        cOpcode[slot] = opcode;
        cState[slot] = PENDING;
        cEndSeq[slot] = 0;
        cReads[slot] = 0;
        cSignaled[slot] = signaled;
        cLocalInvalidate[slot] = 0;
        cCount++;
        return slot;
    }

    /**
     * A completion-ring position from a head and a count, both within the ring (so below twice its size): a
     * subtraction, not the division {@code %} costs, several times per WQE.
     */
    private int ring(int i) {
        return i >= cState.length ? i - cState.length : i;
    }

    private void done(int slot) {
        cState[slot] = DONE;
    }

    /**
     * TCP acknowledged up to {@code sndUna}: Sends and Writes whose last byte is in are complete. Answers whether
     * the SQ should look again (it waits on a fence, and something completed).
     */
    boolean acknowledged(long sndUna) {
        int before = cCount;
        for (int i = 0; i < cCount; i++) {
            int slot = ring(cHead + i);
            if (cState[slot] == WAIT_ACK) {
                if (seqDiff(cEndSeq[slot], sndUna) > 0) {
                    break;
                }
                cState[slot] = DONE;
            }
        }
        drainCompletions();
        return fenceBlocked && cCount < before;
    }

    /** a - b in TCP sequence space (32 bits, wrapping). */
    private static long seqDiff(long a, long b) {
        return TcpHeader.seqDelta(a & 0xffff_ffffL, b & 0xffff_ffffL);
    }

    /** Writes the completions of finished work from the head, in SQ order. */
    void drainCompletions() {
        while (cCount > 0 && cState[cHead] == DONE) {
            int slot = cHead;
            if (cSignaled[slot]) {
                q.completions().sq(q.qp(), cIndex[slot], cOpcode[slot], 0, 0);
            }
            q.stats().sqWqesCompleted++;
            traceWqe("complete", cIndex[slot], cOpcode[slot]);
            cHead = ring(cHead + 1);
            cCount--;
        }
    }

    // ---- the Data Sink side of RDMA Read: responses for the requests in oSlot order

    /** The Read the next Read Response must belong to: false when none is outstanding. */
    boolean readOutstanding() {
        return oCount > 0;
    }

    int expectedSinkStag() {
        return oSinkStag[oHead];
    }

    /** Whether [to, to + len) lies within the outstanding request's sink range. */
    boolean withinSink(long to, long len) {
        long start = oSinkTo[oHead];
        long end = start + oSize[oHead];
        return Long.compareUnsigned(to, start) >= 0 && Long.compareUnsigned(to + len, end) <= 0
                && Long.compareUnsigned(to + len, to) >= 0;
    }

    /** Counts {@code len} placed bytes; answers whether the request now has all its bytes. */
    boolean placed(long len) {
        oPlaced[oHead] += len;
        return oPlaced[oHead] == oSize[oHead];
    }

    /** The last Read Response of the oldest request arrived: its Read WQE completes when all its requests have. */
    void readResponseDone() {
        int slot = oSlot[oHead];
        oHead = (oHead + 1) % oCapacity;
        oCount--;
        cReads[slot]--;
        if (cReads[slot] == 0 && cState[slot] == WAIT_READ) {
            int inv = cLocalInvalidate[slot];
            if (inv != 0) {
                int rc = q.regions().invalidate(inv, q.pd(), false);
                if (rc != MemoryRegions.OK) {
                    q.runState().fail(rc, AeSource.SQ, cIndex[slot]);
                    return;
                }
            }
            cState[slot] = DONE;
            drainCompletions();
        }
    }

    // ---- flush (CQP Flush WQEs)

    /**
     * Ends the SQ: answers whether the device had SQ work outstanding (started and not complete, or posted and
     * not fetched); if so writes one flush completion for the first such WQE that is not a NOP, which is how gen2
     * reports it (uk.c irdma_uk_cq_poll_cmpl parks its CQ head on a flushed SQ completion and completes every
     * remaining WQE of its own ring from it).
     */
    boolean flush(int major, int minor) {
        boolean found = false;
        int index = 0;
        int opcode = 0;
        for (int i = 0; i < cCount && !found; i++) {
            int slot = ring(cHead + i);
            if (cOpcode[slot] != SqOpcode.NOP.code()) {
                found = true;
                index = cIndex[slot];
                opcode = cOpcode[slot];
            }
        }
        if (!found && !flushed) {
            // Posted but not fetched (the QP stopped before reaching them).
            for (int n = 0; n < ringQuanta && !found; n++) {
                int at = cursor.index();
                long offset = (long) at * SqWqe.QUANTUM;
                if (!ring.holds(offset)) {
                    break;
                }
                long gpa = ring.address(offset);
                int r = memory.find(gpa, SqWqe.QUANTUM);
                if (r < 0) {
                    break;
                }
                wqe.wrap(memory.store(r), memory.offset(r, gpa), SqWqe.QUANTUM);
                if (wqe.valid() != cursor.polarity()) {
                    break;
                }
                if (wqe.opcode() != SqOpcode.NOP.code()) {
                    found = true;
                    index = at;
                    opcode = wqe.opcode();
                }
                int quanta = Math.max(1, wqe.quanta());
                for (int i = 0; i < quanta; i++) {
                    cursor.advance();
                }
            }
        }
        flushed = true;
        active = false;
        cCount = 0;
        oCount = 0;
        if (!found) {
            return false;
        }
        q.completions().sq(q.qp(), index, opcode, major, minor);
        return true;
    }

    /**
     * Writes the consumed SQ tail (the index of the next WQE to fetch) into quadword 0 of the QP's shadow area
     * (defs.h IRDMA_QP_DBSA_HW_SQ_TAIL), which the doorbell elision of older uk.c / libirdma reads. A shadow area
     * outside mapped memory is counted, its first failure traced; the SQ goes on.
     */
    private void publishTail() {
        long at = q.qp().shadowArea() + Gen2Registers.QP_SHADOW_SQ_TAIL_OFFSET;
        if (memory.writeLong(at, Gen2Registers.qpShadowSqTail(cursor.index()))) {
            q.stats().shadowTailWrites++;
            return;
        }
        if (q.stats().shadowTailFaults++ == 0) {
            TraceEvent t = q.trace().start(TraceKind.SQ_WQE);
            if (t != null) {
                t.text("action", "shadow_tail_unmapped").num("qp", q.qp().id()).hex("gpa", at)
                        .num("tail", cursor.index()).emit();
            }
        }
    }

    private void traceWqe(String action, int index, int opcode) {
        TraceEvent t = q.trace().start(TraceKind.SQ_WQE);
        if (t != null) {
            t.text("action", action).num("qp", q.qp().id()).num("wqe", index).hex("op", opcode).emit();
        }
    }
}
