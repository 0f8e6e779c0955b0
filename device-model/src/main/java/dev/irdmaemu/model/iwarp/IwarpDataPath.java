package dev.irdmaemu.model.iwarp;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.cqp.QpFlushFields;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.model.eq.AsyncEventQueue;
import dev.irdmaemu.model.mr.MemoryRegions;
import dev.irdmaemu.model.port.OffloadedPath;
import dev.irdmaemu.model.port.ArpTable;
import dev.irdmaemu.model.port.FrameTransmitter;
import dev.irdmaemu.model.qp.CqTable;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.qp.QpTable;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.tcp.TcpConnectionParams;
import dev.irdmaemu.model.stats.FunctionCounters;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;

/**
 * The iWARP data path of the function: one {@link IwarpQp} engine per offloaded QP, started when Modify QP moves
 * the QP to RTS with the TCP context valid and released by Destroy QP, and what the engines share (host memory,
 * {@link MemoryRegions}, the CQs, the AEQ, the ARP table, the port's transmitter). The CQP ops
 * ({@code model.cqp.CqpOperations}), PFPE_WQEALLOC and the port's classifier call in here.
 *
 * <p>Conventions the driver side relies on (irdma, gen2):
 * <ul>
 *   <li>RTS: the engine's TCP comes from the context (irdma_sc_qp_setctx) and the MAC of its ARP entry
 *       (IRDMAQPC_ARPIDX; a missing entry raises IRDMA_AE_INVALID_ARP_ENTRY and the QP goes to ERROR instead);
 *       a context asking for MPA markers (IRDMAQPC_RCVMARKERS / SNDMARKERS) is refused with a CQP error
 *       completion ({@link #refuseRts}: the model frames without markers, as irdma negotiates). SQ processing
 *       starts at index 0 with the connection WQEs.</li>
 *   <li>CLOSING: FIN; TERMINATE: the Terminate from Q2 and/or FIN by IRDMA_CQPSQ_QP_TERMACT; ERROR: stop, RST
 *       and IRDMA_AE_RESET_SENT with IRDMA_CQPSQ_QP_RESETCON. Nothing completes by itself on ERROR: irdma flushes
 *       with the Flush WQEs op, answered with major 0 and minor IRDMA_CQP_COMPL_SQ_WQE_FLUSHED (3) when only SQ
 *       WQEs were flushed, IRDMA_CQP_COMPL_RQ_WQE_FLUSHED (2) when only RQ WQEs were, {@link #COMPL_BOTH_FLUSHED}
 *       when both were, and the error pair 0xffff/0x8006 (Flush No WQE Pending) when none was.</li>
 * </ul>
 */
public final class IwarpDataPath implements OffloadedPath {
    /**
     * The Flush WQEs minor when both queues had WQEs flushed. main.h names only the one-queue codes (2 RQ, 3 SQ)
     * and hw.c irdma_hw_flush_wqes reads "the other queue did not flush" from exactly those two and 0; any other
     * value tells it both were: the model uses 1.
     */
    public static final int COMPL_BOTH_FLUSHED = 1;

    private final SimScheduler scheduler;
    private final HostMemory memory;
    private final Trace trace;
    private final LatencyTable latency;
    private final CqTable cqs;
    private final QpTable qps;
    private final AsyncEventQueue aeq;
    private final ArpTable arp;
    private final MemoryRegions regions;
    private final FrameTransmitter wire;
    private final CompletionWriter completions;
    private final IwarpQp[] engines;
    private final IdleQueues idle;
    private final SpareEngineMemory spares = new SpareEngineMemory();
    private long started;
    private long released;
    private long ieqOutOfOrder;
    private long ieqPartial;
    private FunctionCounters counters = new FunctionCounters();
    /** TCP retransmissions of the connections already released (the live ones count in their OffloadedTcp). */
    private long retiredRetransmits;

    public IwarpDataPath(SimScheduler scheduler, HostMemory memory, Trace trace, LatencyTable latency, CqTable cqs,
                         QpTable qps, AsyncEventQueue aeq, ArpTable arp, MemoryRegions regions,
                         FrameTransmitter wire) {
        this.scheduler = scheduler;
        this.memory = memory;
        this.trace = trace;
        this.latency = latency;
        this.cqs = cqs;
        this.qps = qps;
        this.aeq = aeq;
        this.arp = arp;
        this.regions = regions;
        this.wire = wire;
        this.completions = new CompletionWriter(memory, cqs, trace);
        this.engines = new IwarpQp[qps.capacity()];
        this.idle = new IdleQueues(memory, completions);
    }

    /** The function's statistics counters the QPs count their RDMA messages into (Gather Stats). */
    public void attachCounters(FunctionCounters functionCounters) {
        this.counters = functionCounters;
    }

    public FunctionCounters counters() {
        return counters;
    }

    /** TCP segments the offloaded connections retransmitted, released ones included (TCPRTXSEG). */
    public long retransmittedSegments() {
        long n = retiredRetransmits;
        for (IwarpQp e : engines) {
            if (e != null) {
                n += e.tcp().counters().retransmittedSegments();
            }
        }
        return n;
    }

    SimScheduler scheduler() {
        return scheduler;
    }

    HostMemory memory() {
        return memory;
    }

    Trace trace() {
        return trace;
    }

    LatencyTable latency() {
        return latency;
    }

    AsyncEventQueue aeq() {
        return aeq;
    }

    MemoryRegions regions() {
        return regions;
    }

    FrameTransmitter wire() {
        return wire;
    }

    CompletionWriter completions() {
        return completions;
    }

    void setState(QueuePair qp, QpState s) {
        QpState was = qp.state();
        qps.setState(qp, s);
        TraceEvent t = trace.start(TraceKind.QP_STATE);
        if (t != null) {
            t.num("qp", qp.id()).text("role", qp.role().name()).text("from", was.name()).text("to", s.name())
                    .text("by", "device").emit();
        }
    }

    /**
     * An offloaded QP's exception segment (out of order, or ending inside an FPDU), which the E810 would copy to
     * IEQ QP {@code ieqQp} (the context's IRDMAQPC_EXCEPTION_LAN_QUEUE): counted only, the QP's TCP reassembles it
     * (the IEQ contract of {@link dev.irdmaemu.model.puda}).
     */
    void ieqSegment(boolean partial, int ieqQp) {
        if (partial) {
            ieqPartial++;
        } else {
            ieqOutOfOrder++;
        }
    }

    // ------------------------------------------------------------------ the CQP ops

    /** Why Modify QP to RTS must fail for this context, or null: the model does not frame with MPA markers. */
    public static String refuseRts(QpContext ctx) {
        if (ctx.rcvMarkers() || ctx.sndMarkers()) {
            return "MPA markers (RFC 5044 §5) are not supported";
        }
        return null;
    }

    /**
     * The QP just moved from {@code from} to {@code to} by Create or Modify QP; {@code ctx} is its context when the
     * WQE carried one (TCP context valid), else null. Starts, closes, terminates or stops the QP's engine.
     */
    public void stateChanged(QueuePair qp, QpState from, QpState to, QpContext ctx, int termActions,
                             boolean resetConnection) {
        if (qp.role() != QueuePair.Role.IWARP) {
            return;
        }
        IwarpQp e = engines[qp.id()];
        switch (to) {
            case RTS -> {
                if (e == null && ctx != null && from != QpState.RTS) {
                    start(qp, ctx);
                }
            }
            case CLOSING -> {
                if (e != null) {
                    e.close();
                }
            }
            case TERMINATE -> {
                if (e != null) {
                    e.terminate(termActions);
                }
            }
            case ERROR -> {
                if (e != null) {
                    e.error(resetConnection);
                }
            }
            case IDLE -> {
                // ERROR -> IDLE for reuse: the old connection's engine goes.
                if (e != null && from != QpState.IDLE) {
                    release(qp.id());
                }
            }
            default -> {
            }
        }
    }

    private void start(QueuePair qp, QpContext ctx) {
        int arpIndex = ctx.arpIdx();
        if (!arp.valid(arpIndex)) {
            // No next-hop MAC: the QP cannot transmit. The AE carries ERROR so that hw.c moves the QP to ERROR and
            // disconnects instead of trying to send a Terminate over it.
            setState(qp, QpState.ERROR);
            aeq.post(qp.completionContext(), qp.id(), AeCode.INVALID_ARP_ENTRY.code(), AeSource.RSVD,
                    QpState.ERROR.code(), ctx.tcpState(), 0, 0);
            return;
        }
        TcpConnectionParams conn = TcpConnectionParams.fromOffload(ctx.readTcp(), ctx.macAddress(), arp.mac(arpIndex),
                ctx.rtoMin()).withRtoFloor(latency.tcpRtoFloorNanos);
        IwarpQp.Settings s = new IwarpQp.Settings();
        s.pd = ctx.pdId();
        // RFC 5044 §7.1: CRC is used in both directions when either side asked for it; the context says whether
        // the peer's FPDUs carry one.
        s.crc = !ctx.rcvNoMpaCrc();
        s.ord = ctx.ordSize();
        s.ird = Math.max(1, ctx.irdHwSize().orElse(1));
        s.remoteRead = ctx.rdOk();
        s.writeAndResponse = ctx.wrRdRespOk();
        s.fastRegister = ctx.fastRegEnabled();
        s.q2Address = ctx.q2Address();
        s.rqWqeBytes = 32 << ctx.rqWqeSize();
        s.ieqQp = ctx.exceptionLanQueue();
        QpEngineMemory m = spares.take(qp.sqQuanta(), s.ord, s.ird);
        IwarpQp e = new IwarpQp(this, qp, conn, s, m);
        engines[qp.id()] = e;
        started++;
        TraceEvent t = trace.start(TraceKind.QP_STATE);
        if (t != null) {
            t.num("qp", qp.id()).text("action", "engine_start").num("mss", conn.mss()).num("mulpdu", e.mulpduBytes())
                    .flag("crc", s.crc).num("ord", s.ord).num("ird", s.ird).num("pd", s.pd).emit();
        }
        e.start();
    }

    /**
     * Destroy QP (and ERROR -> IDLE): the engine's timers and buffers go, its tables are kept for the next engine.
     */
    public void release(int qpId) {
        IwarpQp e = qpId >= 0 && qpId < engines.length ? engines[qpId] : null;
        if (e == null) {
            return;
        }
        retiredRetransmits += e.tcp().counters().retransmittedSegments();
        QpEngineMemory m = e.release();
        if (m != null) {
            spares.give(m);
        }
        engines[qpId] = null;
        released++;
    }

    /**
     * Every engine released, as at a function reset: their timers cancelled, their TCP connections dropped without
     * a segment (the function is gone from the wire), their off-heap buffers freed, and the spare engine tables
     * kept for later QPs dropped with them.
     */
    public void releaseAll() {
        for (int i = 0; i < engines.length; i++) {
            if (engines[i] != null) {
                release(i);
            }
        }
        spares.clear();
    }

    /**
     * Flush WQEs / Generate AE (CQP opcode 0x22, ctrl.c irdma_sc_qp_flush_wqes / irdma_sc_gen_ae). Answers what
     * the op found: the success completion's minor code (see the class comment), or Flush No WQE Pending.
     */
    public FlushOutcome flush(QueuePair qp, QpFlushFields f) {
        if (f.generateAe) {
            aeq.post(qp.completionContext(), qp.id(), f.aeCode, f.aeSource, qp.state().code(),
                    engines[qp.id()] == null ? 0 : engines[qp.id()].tcp().state().hardwareCode(), 0, 0);
        }
        boolean flushSq = f.flushSq;
        boolean flushRq = f.flushRq;
        if (!flushSq && !flushRq) {
            return FlushOutcome.NOTHING_ASKED;
        }
        int sqMaj = f.userFlushCode ? f.sqMajor : Cqe.MAJOR_FLUSH;
        int sqMin = f.userFlushCode ? f.sqMinor : Cqe.MINOR_FLUSH_GENERAL;
        int rqMaj = f.userFlushCode ? f.rqMajor : Cqe.MAJOR_FLUSH;
        int rqMin = f.userFlushCode ? f.rqMinor : Cqe.MINOR_FLUSH_GENERAL;
        // A queue already flushed has nothing left (the driver's qp->flush_sq / flush_rq say the same).
        boolean sq = flushSq && !qp.flushed().sq();
        boolean rq = flushRq && !qp.flushed().rq();
        IwarpQp e = engines[qp.id()];
        int flushed;
        if (e != null) {
            flushed = e.flush(sq, rq, sqMaj, sqMin, rqMaj, rqMin);
        } else {
            flushed = flushIdle(qp, sq, rq, sqMaj, sqMin, rqMaj, rqMin);
        }
        qp.flushed().mark(flushSq, flushRq);
        TraceEvent t = trace.start(TraceKind.CQE);
        if (t != null) {
            t.text("action", "flush").num("qp", qp.id()).flag("sq", flushSq).flag("rq", flushRq)
                    .flag("sq_flushed", (flushed & 1) != 0).flag("rq_flushed", (flushed & 2) != 0).emit();
        }
        return FlushOutcome.of((flushed & 1) != 0, (flushed & 2) != 0);
    }


    /** A QP that never ran (no engine): its posted WQEs are flushed from the rings as they stand. */
    private int flushIdle(QueuePair qp, boolean flushSq, boolean flushRq, int sqMaj, int sqMin, int rqMaj, int rqMin) {
        int r = 0;
        if (flushSq && idle.flushSq(qp, sqMaj, sqMin)) {
            r |= 1;
        }
        if (flushRq && idle.flushRq(qp, rqMaj, rqMin)) {
            r |= 2;
        }
        return r;
    }

    // ------------------------------------------------------------------ doorbells and frames

    /** PFPE_WQEALLOC for an iWARP QP: answers false when the QP has no running engine. */
    public boolean doorbell(QueuePair qp) {
        IwarpQp e = engines[qp.id()];
        if (e == null) {
            return false;
        }
        e.doorbell();
        return true;
    }

    /** The engine of QP {@code qpId}, or null. */
    public IwarpQp engine(int qpId) {
        return qpId >= 0 && qpId < engines.length ? engines[qpId] : null;
    }

    /** A validated frame the classifier steered to {@code qp}: false when it has no engine to take it. */
    @Override
    public boolean receive(QueuePair qp, TcpPacket frame) {
        IwarpQp e = engines[qp.id()];
        if (e == null) {
            return false;
        }
        e.receive(frame);
        return true;
    }

    // ------------------------------------------------------------------ counters

    /** Engines started and not yet released. */
    public int liveEngines() {
        return (int) (started - released);
    }

    public long enginesStarted() {
        return started;
    }

    public long enginesReleased() {
        return released;
    }

    public long completionsDropped() {
        return completions.dropped();
    }

    @Override
    public long exceptionSegments() {
        return ieqOutOfOrder() + ieqPartial();
    }

    public long ieqOutOfOrder() {
        return ieqOutOfOrder;
    }

    public long ieqPartial() {
        return ieqPartial;
    }

    /** A line for the function summary: engines and the totals of their counters. */
    public String summary() {
        long sent = 0;
        long received = 0;
        long crc = 0;
        long terms = 0;
        for (IwarpQp e : engines) {
            if (e != null) {
                sent += e.stats().fpdusSent();
                received += e.stats().fpdusReceived();
                crc += e.stats().crcErrors();
                terms += e.stats().terminatesSent() + e.stats().terminatesReceived();
            }
        }
        return String.format("iWARP: %d engines (%d started, %d released), FPDUs %d sent / %d received, "
                + "%d CRC errors, %d terminates, IEQ %d out of order / %d partial%n", liveEngines(), started, released,
                sent, received, crc, terms, ieqOutOfOrder, ieqPartial);
    }
}
