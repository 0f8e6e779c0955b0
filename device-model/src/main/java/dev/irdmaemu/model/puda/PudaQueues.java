package dev.irdmaemu.model.puda;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.CqeExtension;
import dev.irdmaemu.fw.queue.PudaLayout;
import dev.irdmaemu.fw.queue.RqWqe;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.fw.queue.WqeCheck;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.sim.SimTimer;
import dev.irdmaemu.model.eq.AsyncEventQueue;
import dev.irdmaemu.model.eq.RingCursor;
import dev.irdmaemu.model.qp.CompletionQueue;
import dev.irdmaemu.model.qp.CqTable;
import dev.irdmaemu.model.qp.QpTable;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The PUDA data path of the ILQ and IEQ (puda.c): receive places a frame into the next posted RQ buffer the way
 * irdma_puda_get_tcpip_info reads it back ({@link PudaLayout}: Ethernet header stripped, TCP header at 40) and
 * writes an extended CQE (payload length, QP id, WQE index, IPv4 bit; VLAN TCI and source MAC in the extension,
 * irdma_puda_poll_info); transmit takes the driver's send WQEs (irdma_puda_send) from the SQ and puts each buffer on
 * the wire as one Ethernet frame, then writes the SQ completion once the frame is serialised at the link speed. No
 * posted buffer, a full CQ or a frame larger than the buffer: the frame is dropped, counted and traced; the RQ
 * buffer is left for the next frame. A completion whose CQ is missing or whose CQE slot is unmapped also raises the
 * CQ's AE ({@link CqTable#lost}). All
 * flyweights and the transmit buffer are allocated once.
 */
public final class PudaQueues {
    /** What PUDA transmit hands frames to (the Ethernet port). */
    @FunctionalInterface
    public interface Wire {
        /** Sends one frame; answers its serialisation time in nanoseconds. */
        long send(BytesStore<?, ?> store, long offset, int length);
    }

    /** Why a received frame was not delivered. */
    public enum Drop {
        NO_BUFFER("no RQ buffer posted (valid bit not at the expected polarity)"),
        NO_CQ("the QP's receive CQ does not exist"),
        CQ_FULL("the receive CQ has no room"),
        TOO_LONG("the frame does not fit the posted buffer"),
        BUFFER_UNMAPPED("the posted buffer is outside mapped host memory"),
        CQE_UNMAPPED("the receive CQ's CQE slot is outside mapped host memory"),
        BAD_LAYOUT("IPv4 header with options: the TCP header would not be at offset 40");

        private final String text;

        Drop(String text) {
            this.text = text;
        }

        public String describe() {
            return text;
        }
    }

    /** The largest frame PUDA transmit copies (a jumbo frame). */
    public static final int MAX_FRAME = 9728;

    private final HostMemory memory;
    private final CqTable cqs;
    private final Trace trace;
    private final Wire wire;
    private final RqWqe rqWqe = new RqWqe();
    private final SqWqe sqWqe = new SqWqe();
    private final Cqe cqe = new Cqe();
    private final CqeExtension ext = new CqeExtension();
    private final BytesStore<?, Void> txBuffer = BytesStore.nativeStoreWithFixedCapacity(MAX_FRAME);
    private final long[] drops = new long[Drop.values().length];
    private long received;
    private long transmitted;
    private long transmitErrors;
    private long sendCompletionsLost;
    private long txDiscarded;
    private long ieqReceived;
    private long ieqNoQueue;
    private Drop lastDrop;

    private final AsyncEventQueue aeq;
    private final SimScheduler scheduler;
    private final QpTable qps;
    private final SimTimer txCompleteTimer;
    /** Send completions waiting for their frame to leave the port (FIFO in time order). */
    private static final int TX_PENDING = 4096;
    private final int[] txQp = new int[TX_PENDING];
    private final int[] txWqe = new int[TX_PENDING];
    private final boolean[] txOk = new boolean[TX_PENDING];
    private final long[] txDue = new long[TX_PENDING];
    private int txHead;
    private int txCount;
    private long txLastDue;

    public PudaQueues(HostMemory memory, CqTable cqs, QpTable qps, SimScheduler scheduler, Trace trace, Wire wire,
                      AsyncEventQueue aeq) {
        this.aeq = aeq;
        this.qps = qps;
        this.scheduler = scheduler;
        this.txCompleteTimer = scheduler.newTimer("puda-tx-complete", this::drainSendCompletions);
        this.memory = memory;
        this.cqs = cqs;
        this.trace = trace;
        this.wire = wire;
    }

    /**
     * Receives a validated segment on PUDA QP {@code qp}. {@code frame} is the {@link TcpPacket} over the whole
     * Ethernet frame. True when a CQE was written.
     */
    public boolean receive(QueuePair qp, TcpPacket frame) {
        CompletionQueue cq = cqs.get(qp.rxCq());
        if (cq == null) {
            cqs.lost(CqTable.Loss.NO_CQ, qp.rxCq(), qp.id());
            return drop(qp, Drop.NO_CQ);
        }
        RingCursor rq = qp.rqCursor();
        long wqeGpa = qp.rqAddress() + (long) rq.index() * QueuePair.QUANTUM;
        int wr = memory.find(wqeGpa, RqWqe.MIN_SIZE);
        if (wr < 0) {
            return drop(qp, Drop.NO_BUFFER);
        }
        rqWqe.wrap(memory.store(wr), memory.offset(wr, wqeGpa), RqWqe.MIN_SIZE);
        if (rqWqe.valid() != rq.polarity()) {
            return drop(qp, Drop.NO_BUFFER);
        }
        long bufGpa = rqWqe.fragmentAddress(0);
        long bufSize = rqWqe.fragmentLength(0);
        int br = memory.find(bufGpa, bufSize);
        if (br < 0 || bufSize <= 0) {
            return drop(qp, Drop.BUFFER_UNMAPPED);
        }
        if (!cq.hasRoom(2)) {
            cq.overflow();
            return drop(qp, Drop.CQ_FULL);
        }
        boolean ipv4 = !frame.isIpv6();
        long ipAt = frame.offset() + frame.ipOffset();
        int ipLength = ipv4 ? frame.ipv4().totalLength() : 40 + frame.ipv6().payloadLength();
        long placed = PudaLayout.place(frame.store(), ipAt, ipLength, ipv4, memory.store(br),
                memory.offset(br, bufGpa), bufSize);
        if (placed == -1) {
            return drop(qp, Drop.TOO_LONG);
        }
        if (placed < 0) {
            return drop(qp, Drop.BAD_LAYOUT);
        }
        int wqeIndex = rq.index();
        int cqeSlot = cq.slotIndex(0);
        EthernetFrame eth = frame.ethernet();
        long baseGpa = cq.slotAddress(0);
        long extGpa = cq.slotAddress(1);
        int cr = memory.find(baseGpa, Cqe.SIZE);
        int er = memory.find(extGpa, CqeExtension.SIZE);
        if (cr < 0 || er < 0) {
            cqs.lost(CqTable.Loss.CQE_UNMAPPED, cq.id(), qp.id());
            return drop(qp, Drop.CQE_UNMAPPED);
        }
        ext.wrap(memory.store(er), memory.offset(er, extGpa), CqeExtension.SIZE).clear();
        if (eth.hasVlanTag()) {
            ext.vlan(eth.pcp() << 13 | (eth.dei() ? 1 << 12 : 0) | eth.vlanId());
        }
        ext.sourceMac(eth.source());
        ext.valid(Cqe.extensionValidBit(cq.polarity(0), cq.slotIndex(1)));
        cqe.wrap(memory.store(cr), memory.offset(cr, baseGpa), Cqe.SIZE).clear()
                .payloadLength(placed).completionContext(qp.completionContext()).qpId(qp.id()).wqeIndex(wqeIndex)
                .ipv4(ipv4).sq(false).opType(Cqe.OP_RECEIVE).extended(true).valid(cq.polarity(0));
        rq.advance();
        cq.produced(2, false);
        received++;
        TraceEvent t = trace.start(TraceKind.PUDA_RX);
        if (t != null) {
            t.text("queue", qp.role().name()).num("qp", qp.id()).num("wqe", wqeIndex).hex("buf", bufGpa)
                    .num("payload_len", placed).flag("ipv4", ipv4).num("vlan", frame.vlanId())
                    .num("cq", cq.id()).num("cqe", cqeSlot).emit();
        }
        return true;
    }

    private boolean drop(QueuePair qp, Drop why) {
        drops[why.ordinal()]++;
        lastDrop = why;
        qp.dropped();
        TraceEvent t = trace.start(TraceKind.PUDA_DROP);
        if (t != null) {
            t.text("queue", qp.role().name()).num("qp", qp.id()).text("reason", why.name()).emit();
        }
        return false;
    }

    /**
     * WQEALLOC for a PUDA QP: sends every WQE posted at the device's SQ position (valid bit at the ring polarity),
     * at most one ring's worth, and writes a signalled SQ completion for each. Answers the number sent.
     */
    public int transmit(QueuePair qp) {
        RingCursor sq = qp.sqCursor();
        int sent = 0;
        for (int n = 0; n < sq.size(); n++) {
            long wqeGpa = qp.sqAddress() + (long) sq.index() * QueuePair.QUANTUM;
            int wr = memory.find(wqeGpa, SqWqe.QUANTUM);
            if (wr < 0) {
                break;
            }
            sqWqe.wrap(memory.store(wr), memory.offset(wr, wqeGpa), SqWqe.QUANTUM);
            WqeCheck check = sqWqe.validate(sq.polarity());
            if (check == WqeCheck.NOT_POSTED) {
                break;
            }
            long paddr = sqWqe.fragmentAddress(0);
            long len = sqWqe.fragmentLength(0);
            int wqeIndex = sq.index();
            long serialisation = 0;
            if (!check.accepted()) {
                // A malformed send: the AE the codec names for it (uk.c layouts), and an error completion.
                AeCode ae = check.suggestedAe();
                if (ae != null && aeq != null) {
                    aeq.post(qp.completionContext(), qp.id(), ae.code(), AeSource.SQ, qp.state().code(), 0, wqeIndex);
                }
            }
            boolean ok = check.accepted() && len > 0 && len <= MAX_FRAME && memory.copyOut(paddr, txBuffer, 0, len);
            if (ok) {
                TraceEvent t = trace.start(TraceKind.PUDA_TX);
                if (t != null) {
                    t.text("queue", qp.role().name()).num("qp", qp.id()).num("wqe", wqeIndex).hex("buf", paddr)
                            .num("len", len).emit();
                }
                serialisation = wire.send(txBuffer, 0, (int) len);
                transmitted++;
            } else {
                transmitErrors++;
            }
            sq.advance();
            sent++;
            if (sqWqe.signaled() || !ok) {
                deferSendCompletion(qp, wqeIndex, ok, serialisation);
            }
        }
        return sent;
    }

    /** The SQ completion is written once the frame has been serialised onto the wire. */
    private void deferSendCompletion(QueuePair qp, int wqeIndex, boolean ok, long serialisation) {
        if (txCount == TX_PENDING) {
            completeSend(qp, wqeIndex, ok);
            return;
        }
        long due = Math.max(scheduler.now() + serialisation, txLastDue);
        int slot = (txHead + txCount) % TX_PENDING;
        txQp[slot] = qp.id();
        txWqe[slot] = wqeIndex;
        txOk[slot] = ok;
        txDue[slot] = due;
        txLastDue = due;
        txCount++;
        if (!txCompleteTimer.isPending()) {
            txCompleteTimer.scheduleAt(txDue[txHead]);
        }
    }

    private void drainSendCompletions() {
        while (txCount > 0 && txDue[txHead] <= scheduler.now()) {
            int slot = txHead;
            txHead = (txHead + 1) % TX_PENDING;
            txCount--;
            QueuePair qp = qps.get(txQp[slot]);
            if (qp != null) {
                completeSend(qp, txWqe[slot], txOk[slot]);
            } else {
                // Destroy QP discarded the QP's outstanding work: nothing to report, but not silently.
                txDiscarded++;
                TraceEvent t = trace.start(TraceKind.PUDA_DROP);
                if (t != null) {
                    t.text("queue", "SQ").num("qp", txQp[slot]).num("wqe", txWqe[slot])
                            .text("reason", "QP_DESTROYED").emit();
                }
            }
        }
        if (txCount > 0) {
            txCompleteTimer.scheduleAt(txDue[txHead]);
        }
    }

    private void completeSend(QueuePair qp, int wqeIndex, boolean ok) {
        CompletionQueue cq = cqs.get(qp.txCq());
        if (cq == null) {
            sendCompletionsLost++;
            cqs.lost(CqTable.Loss.NO_CQ, qp.txCq(), qp.id());
            return;
        }
        if (!cq.hasRoom(1)) {
            sendCompletionsLost++;
            cq.overflow();
            return;
        }
        long gpa = cq.slotAddress(0);
        int r = memory.find(gpa, Cqe.SIZE);
        if (r < 0) {
            sendCompletionsLost++;
            cqs.lost(CqTable.Loss.CQE_UNMAPPED, cq.id(), qp.id());
            return;
        }
        cqe.wrap(memory.store(r), memory.offset(r, gpa), Cqe.SIZE).clear().completionContext(qp.completionContext())
                .qpId(qp.id()).wqeIndex(wqeIndex).sq(true);
        if (!ok) {
            // Model-defined codes: the WQE was malformed, or its fragment outside mapped host memory or longer
            // than a frame.
            cqe.error(TX_DMA_FAULT_MAJOR, TX_DMA_FAULT_MINOR);
        }
        cqe.valid(cq.polarity(0));
        cq.produced(1, false);
    }

    /** The error a PUDA send with an unreadable buffer completes with (model-defined codes). */
    public static final int TX_DMA_FAULT_MAJOR = 0xffff;
    public static final int TX_DMA_FAULT_MINOR = 0x9004;

    public long received() {
        return received;
    }

    /**
     * An offloaded QP's exception segment (out of order, or ending inside an FPDU) that the hardware hands to the
     * IEQ (puda.c irdma_ieq_handle_exception): {@code frame}, the whole Ethernet frame, is received into the next
     * buffer of IEQ QP {@code ieqQp} (the context's IRDMAQPC_EXCEPTION_LAN_QUEUE) with the CQE the ILQ's frames
     * get. The model's offloaded TCP also reassembles the segment itself, so the driver's IEQ only has to account
     * for it. A context naming no live IEQ: the copy is dropped, counted and traced. True when a CQE was written.
     */
    public boolean ieqReceive(int ieqQp, TcpPacket frame) {
        QueuePair ieq = qps.get(ieqQp);
        if (ieq == null || ieq.role() != QueuePair.Role.IEQ) {
            ieqNoQueue++;
            TraceEvent t = trace.start(TraceKind.PUDA_DROP);
            if (t != null) {
                t.text("queue", "IEQ").num("qp", ieqQp).text("reason", "NO_IEQ_QP").emit();
            }
            return false;
        }
        if (receive(ieq, frame)) {
            ieqReceived++;
            return true;
        }
        return false;
    }

    /** Exception segments written to an IEQ's receive buffers. */
    public long ieqReceived() {
        return ieqReceived;
    }

    /** Exception segments whose QP context named no live IEQ QP. */
    public long ieqNoQueue() {
        return ieqNoQueue;
    }

    public long transmitted() {
        return transmitted;
    }

    public long transmitErrors() {
        return transmitErrors;
    }

    /** Send completions not written: the SQ's CQ missing, full or its CQE slot unmapped (each raised an AE). */
    public long sendCompletionsLost() {
        return sendCompletionsLost;
    }

    /** Send completions discarded because their QP was destroyed while the frame was on the wire. */
    public long txDiscarded() {
        return txDiscarded;
    }

    public long drops(Drop why) {
        return drops[why.ordinal()];
    }

    public long totalDrops() {
        long s = 0;
        for (long d : drops) {
            s += d;
        }
        return s;
    }

    public Drop lastDrop() {
        return lastDrop;
    }
}
