package dev.irdmaemu.model.puda;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.frame.TcpHeader;
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
import dev.irdmaemu.model.ah.AddressHandle;
import dev.irdmaemu.model.ah.AddressHandleTable;
import dev.irdmaemu.model.ah.AhFrameBuilder;
import dev.irdmaemu.model.eq.AsyncEventQueue;
import dev.irdmaemu.model.eq.RingCursor;
import dev.irdmaemu.model.port.ArpTable;
import dev.irdmaemu.model.port.PudaWire;
import dev.irdmaemu.model.port.SegmentReceiver;
import dev.irdmaemu.model.qp.CompletionQueue;
import dev.irdmaemu.model.qp.CqTable;
import dev.irdmaemu.model.qp.QpTable;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.Arrays;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The PUDA data path of the ILQ and IEQ (puda.c): receive places a frame into the next posted RQ buffer the way
 * irdma_puda_get_tcpip_info reads it back ({@link PudaLayout}: Ethernet header stripped, TCP header at 40) and
 * writes an extended CQE (payload length, QP id, WQE index, IPv4 bit; VLAN TCI and source MAC in the extension,
 * irdma_puda_poll_info). Transmit is gen2's (puda.c irdma_puda_send, hw_rev >= IRDMA_GEN_2): each SQ WQE names an
 * address handle (IRDMAQPSQ_AHID, header bits 24:0) and the TCP header length in words (IRDMA_UDA_QPSQ_L4LEN), and
 * its buffer begins at the TCP header (cm.c irdma_form_ah_cm_frame); the device adds Ethernet, VLAN and IP headers
 * from the AH and the ARP entry it names, and the TCP checksum ({@link AhFrameBuilder}), then puts the frame on the
 * wire, or with the AH's loopback bit (IRDMA_UDA_CQPSQ_MAV_DOLOOPBACKK) into its own receive path; the SQ
 * completion is written once the frame is serialised at the link speed. Gen2 has no whole-frame PUDA send (the
 * gen1 form, with MACLEN/IPLEN in the WQE, is not modelled). A send naming no AH, an L4LEN beyond the buffer or not
 * the header's own length, a buffer that is no valid TCP header, or an AH whose ARP entry is not valid completes
 * with an error CQE ({@link TxError}: error bit, major and minor in quadword 3, which irdma_puda_poll_info reads
 * back as compl_error = major &lt;&lt; 16 | minor) and one trace line. No posted buffer, a full CQ or a frame
 * larger than the buffer on receive: the frame is dropped, counted and traced; the RQ buffer is left for the next
 * frame. A completion whose CQ is missing or whose CQE slot is unmapped also raises the CQ's AE
 * ({@link CqTable#lost}). All flyweights and the transmit buffers are allocated once.
 */
public final class PudaQueues implements SegmentReceiver {
    /** What PUDA transmit hands frames to (the Ethernet port). */
    /**
     * Why a PUDA send completed with an error. The E810's codes for these are not in the kernel sources (irdma only
     * logs compl_error): major {@link #TX_ERROR_MAJOR} is the model's, each minor names one cause.
     */
    public enum TxError {
        NONE(0, "sent"),
        MALFORMED_WQE(0x9001, "the SQ WQE is malformed"),
        INVALID_AH(0x9002, "the WQE names no valid address handle"),
        BAD_L4LEN(0x9003, "L4LEN is below the TCP header or beyond the buffer"),
        DMA_FAULT(0x9004, "the fragment is empty, outside mapped host memory or longer than a frame"),
        BAD_TCP_HEADER(0x9005, "the buffer does not begin with a valid TCP header of L4LEN bytes"),
        NO_ARP_ENTRY(0x9006, "the AH's ARP entry is not valid"),
        BAD_AH_ADDRESSES(0x9007, "the AH's addresses are not of its family");

        private final int minor;
        private final String text;

        TxError(int minor, String text) {
            this.minor = minor;
            this.text = text;
        }

        public int minor() {
            return minor;
        }

        public String describe() {
            return text;
        }
    }

    /** The major code of every PUDA send error (model-defined, see {@link TxError}). */
    public static final int TX_ERROR_MAJOR = 0xffff;

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
    private final PudaWire wire;
    private final RqWqe rqWqe = new RqWqe();
    private final SqWqe sqWqe = new SqWqe();
    private final Cqe cqe = new Cqe();
    private final CqeExtension ext = new CqeExtension();
    private final BytesStore<?, Void> txBuffer = BytesStore.nativeStoreWithFixedCapacity(MAX_FRAME);
    private final BytesStore<?, Void> segment = BytesStore.nativeStoreWithFixedCapacity(MAX_FRAME);
    private final TcpHeader segmentHeader = new TcpHeader();
    private final AddressHandleTable ahs;
    private final AhFrameBuilder frames;
    private final long[] txErrors = new long[TxError.values().length];
    private long loopedBack;
    private final long[] drops = new long[Drop.values().length];
    private long received;
    private long transmitted;
    private long transmitErrors;
    private long sendCompletionsLost;
    private long txDiscarded;
    private Drop lastDrop;

    private final AsyncEventQueue aeq;
    private final SimScheduler scheduler;
    private final QpTable qps;
    private final SimTimer txCompleteTimer;
    /** Send completions waiting for their frame to leave the port (FIFO in time order). */
    private static final int TX_PENDING = 4096;
    private final int[] txQp = new int[TX_PENDING];
    private final int[] txWqe = new int[TX_PENDING];
    private final TxError[] txResult = new TxError[TX_PENDING];
    private final long[] txDue = new long[TX_PENDING];
    private int txHead;
    private int txCount;
    private long txLastDue;

    public PudaQueues(HostMemory memory, CqTable cqs, QpTable qps, SimScheduler scheduler, Trace trace, PudaWire wire,
                      AsyncEventQueue aeq, AddressHandleTable ahs, ArpTable arp) {
        this.ahs = ahs;
        this.frames = new AhFrameBuilder(arp);
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
    @Override
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
        if (placed == PudaLayout.NO_ROOM) {
            return drop(qp, Drop.TOO_LONG);
        }
        if (placed < 0) {
            return drop(qp, Drop.BAD_LAYOUT);
        }
        int wqeIndex = rq.index();
        int cqeSlot = cq.slotIndex(0);
        if (!cqs.wrapReceiveSlots(cq, qp.id(), frame.ethernet(), cqe, ext)) {
            return drop(qp, Drop.CQE_UNMAPPED);
        }
        ext.valid(Cqe.extensionValidBit(cq.polarity(0), cq.slotIndex(1)));
        cqe.clear()
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
     * at most one ring's worth, and writes a signalled SQ completion for each (an error completion for a send that
     * could not go out). Answers the number of WQEs consumed.
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
            int wqeIndex = sq.index();
            long serialisation = 0;
            TxError result;
            if (!check.accepted()) {
                // A malformed send: the AE the codec names for it (uk.c layouts), and an error completion.
                AeCode ae = check.suggestedAe();
                if (ae != null && aeq != null) {
                    aeq.post(qp.completionContext(), qp.id(), ae.code(), AeSource.SQ, qp.state().code(), 0, wqeIndex);
                }
                result = TxError.MALFORMED_WQE;
            } else {
                result = buildFrame();
            }
            if (result == TxError.NONE) {
                AddressHandle ah = ahs.get(sqWqe.ahId());
                TraceEvent t = trace.start(TraceKind.PUDA_TX);
                if (t != null) {
                    t.text("queue", qp.role().name()).num("qp", qp.id()).num("wqe", wqeIndex)
                            .hex("buf", sqWqe.fragmentAddress(0)).num("ah", ah.index()).num("len", frames.length())
                            .flag("loopback", ah.loopback()).emit();
                }
                if (ah.loopback()) {
                    wire.loopback(txBuffer, 0, frames.length());
                    loopedBack++;
                } else {
                    serialisation = wire.send(txBuffer, 0, frames.length());
                }
                transmitted++;
            } else {
                transmitErrors++;
                txErrors[result.ordinal()]++;
                TraceEvent t = trace.start(TraceKind.PUDA_DROP);
                if (t != null) {
                    t.text("queue", "SQ").num("qp", qp.id()).num("wqe", wqeIndex).num("ah", sqWqe.ahId())
                            .text("reason", result.name()).emit();
                }
            }
            sq.advance();
            sent++;
            if (sqWqe.signaled() || result != TxError.NONE) {
                deferSendCompletion(qp, wqeIndex, result, serialisation);
            }
        }
        return sent;
    }

    /**
     * Checks the accepted WQE's AH, L4LEN and buffer, and builds its frame in {@link #txBuffer}: the guest's bytes
     * are copied first and checked in the copy.
     */
    private TxError buildFrame() {
        AddressHandle ah = ahs.get(sqWqe.ahId());
        if (ah == null) {
            return TxError.INVALID_AH;
        }
        long paddr = sqWqe.fragmentAddress(0);
        long len = sqWqe.fragmentLength(0);
        if (len <= 0 || len > MAX_FRAME || !memory.copyOut(paddr, segment, 0, len)) {
            return TxError.DMA_FAULT;
        }
        int l4 = sqWqe.l4LengthWords() * 4;
        if (l4 < TcpHeader.MIN_HEADER_LENGTH || l4 > len) {
            return TxError.BAD_L4LEN;
        }
        if (!segmentHeader.wrap(segment, 0, len).validate().accepted() || segmentHeader.headerLength() != l4) {
            return TxError.BAD_TCP_HEADER;
        }
        return switch (frames.build(ah, segment, 0, (int) len, txBuffer, MAX_FRAME)) {
            case OK -> TxError.NONE;
            case NO_ARP_ENTRY -> TxError.NO_ARP_ENTRY;
            case BAD_ADDRESSES -> TxError.BAD_AH_ADDRESSES;
            case TOO_LONG -> TxError.DMA_FAULT;
        };
    }

    /** The SQ completion is written once the frame has been serialised onto the wire. */
    private void deferSendCompletion(QueuePair qp, int wqeIndex, TxError result, long serialisation) {
        if (txCount == TX_PENDING) {
            completeSend(qp, wqeIndex, result);
            return;
        }
        long due = Math.max(scheduler.now() + serialisation, txLastDue);
        int slot = (txHead + txCount) % TX_PENDING;
        txQp[slot] = qp.id();
        txWqe[slot] = wqeIndex;
        txResult[slot] = result;
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
                completeSend(qp, txWqe[slot], txResult[slot]);
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

    private void completeSend(QueuePair qp, int wqeIndex, TxError result) {
        if (!cqs.wrapNextSlot(qp.txCq(), qp.id(), cqe)) {
            sendCompletionsLost++;
            return;
        }
        CompletionQueue cq = cqs.get(qp.txCq());
        cqe.clear().completionContext(qp.completionContext()).qpId(qp.id()).wqeIndex(wqeIndex).sq(true);
        if (result != TxError.NONE) {
            cqe.error(TX_ERROR_MAJOR, result.minor());
        }
        cqe.valid(cq.polarity(0));
        cq.produced(1, false);
    }

    /** The error a PUDA send with an unreadable buffer completes with (model-defined codes). */
    public static final int TX_DMA_FAULT_MAJOR = TX_ERROR_MAJOR;
    public static final int TX_DMA_FAULT_MINOR = 0x9004;

    public long received() {
        return received;
    }

    public long transmitted() {
        return transmitted;
    }

    public long transmitErrors() {
        return transmitErrors;
    }

    /** Sends that completed with {@code why}. */
    public long transmitErrors(TxError why) {
        return txErrors[why.ordinal()];
    }

    /** Sends through a loopback AH, handed to the own receive path. */
    public long loopedBack() {
        return loopedBack;
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
        return Arrays.stream(drops).sum();
    }

    public Drop lastDrop() {
        return lastDrop;
    }
}
