package dev.irdmaemu.model.iwarp;

import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.iwarp.DdpHeader;
import dev.irdmaemu.fw.iwarp.Fpdu;
import dev.irdmaemu.fw.iwarp.RdmapOpcode;
import dev.irdmaemu.fw.iwarp.Terminate;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.fw.sim.SimTimer;
import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.model.mr.MemoryRegions;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.tcp.OffloadedTcp;
import dev.irdmaemu.model.tcp.TcpConnectionParams;
import dev.irdmaemu.model.tcp.TcpEvent;
import dev.irdmaemu.model.tcp.TcpReceiver;
import dev.irdmaemu.model.tcp.TcpState;
import dev.irdmaemu.model.stats.FunctionCounters;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The data path of one offloaded iWARP QP, from Modify QP to RTS (with the TCP context) to Destroy QP: the QP's
 * {@link OffloadedTcp}, MPA framing (no markers; CRC32c unless the context says the peer sends none), DDP and RDMAP
 * over it. Transmit: the {@link SendQueue} and the {@link ReadResponder} take turns FPDU by FPDU (Read Responses
 * the peer asked for are interleaved with SQ work), each FPDU only when TCP has room for it, in batches costed by
 * the {@link LatencyTable} on simulated time. Receive: TCP's in-order bytes go through the {@link FpduAssembler}
 * to the {@link ReceivePath}. Errors raise one AE, copy the offending frame to {@link Q2Exchange Q2} and stop the data
 * path until the driver terminates the QP (hw.c irdma_process_aeq, ctrl.c irdma_terminate_connection); Modify QP
 * to TERMINATE sends the Terminate irdma wrote in Q2, CLOSING sends a FIN, ERROR stops (with an RST when asked).
 * Nothing on the per-FPDU paths allocates.
 */
public final class IwarpQp implements TcpReceiver, OffloadedTcp.Listener {
    /** FPDUs (or local WQEs) one service event works through before it yields to the rest of the model. */
    static final int BATCH = 32;

    private final IwarpDataPath dp;
    private final QueuePair qp;
    private final OffloadedTcp tcp;
    private final TcpConnectionParams conn;
    private final int pd;
    private final boolean crc;
    private final int mulpdu;
    private final boolean remoteRead;
    private final boolean writeAndResponse;
    private final boolean fastRegister;
    private final Fpdu fpduCodec = new Fpdu();
    private final BytesStore<?, Void> tx;
    private final FpduAssembler assembler;
    private final SendQueue sq;
    private final ReadResponder responder;
    private final ReceivePath rx;
    private final Q2Exchange q2;
    private final Terminate terminateView = new Terminate();
    private final IwarpCounters counters = new IwarpCounters();
    private final SimTimer service;
    /** What the current service event's steps cost: they charge it, the service reads it. */
    private final ServiceCost cost = new ServiceCost();

    private long txSeq;
    private long busyUntil;
    private boolean preferResponder;
    private boolean halted;
    private boolean firstFpdu;
    private boolean terminateSent;
    private int terminateMsn = 1;
    private boolean released;
    /** A step found TCP's send ring too full: TCP's next "space available" wakes the engine. */
    private boolean waitingForSpace;
    /** The IEQ QP named by the context (IRDMAQPC_EXCEPTION_LAN_QUEUE) that gets this QP's exception segments. */
    private final int ieqQp;

    IwarpQp(IwarpDataPath dp, QueuePair qp, TcpConnectionParams conn, Settings s) {
        this.dp = dp;
        this.qp = qp;
        this.conn = conn;
        this.pd = s.pd;
        this.crc = s.crc;
        this.remoteRead = s.remoteRead;
        this.writeAndResponse = s.writeAndResponse;
        this.fastRegister = s.fastRegister;
        this.ieqQp = s.ieqQp;
        this.mulpdu = mulpdu(conn.mss(), conn.timestamps());
        this.tx = BytesStore.nativeStoreWithFixedCapacity(Math.max(mulpdu + 16, SendQueue.LSMM_MAX));
        this.tcp = new OffloadedTcp(dp.scheduler(), conn, dp.wire(), this, this);
        this.txSeq = conn.sndNxt();
        this.rx = new ReceivePath(this, dp.memory(), qp.rqCursor(), qp.rqRing(), s.rqWqeBytes);
        this.assembler = new FpduAssembler(rx, conn.rcvNxt());
        this.sq = new SendQueue(this, dp.memory(), qp.sqCursor(), qp.sqRing(), qp.sqQuanta(), s.ord);
        this.responder = new ReadResponder(this, s.ird);
        this.q2 = new Q2Exchange(dp.memory(), s.q2Address, conn);
        this.service = dp.scheduler().newTimer("iwarp-qp", this::service);
    }

    /** What the engine takes from the QP context besides the TCP connection. */
    static final class Settings {
        int pd;
        boolean crc;
        int ord;
        int ird;
        boolean remoteRead;
        boolean writeAndResponse;
        boolean fastRegister;
        long q2Address;
        int rqWqeBytes;
        int ieqQp;
    }

    /**
     * RFC 5044 §8: the largest ULPDU that keeps an FPDU inside one TCP segment. EMSS is the MSS less the
     * timestamp option; the FPDU is the 2-byte length, the ULPDU, pad to 4 and the CRC field (there with CRC off
     * too, RFC 5044 §4.1, so CRC does not change MULPDU); taking a multiple of 4 as the FPDU size makes the pad 0.
     */
    static int mulpdu(int mss, boolean timestamps) {
        int emss = mss - (timestamps ? 12 : 0);
        int fpdu = emss & ~3;
        return Math.min(Fpdu.MAX_ULPDU_LENGTH, fpdu - Fpdu.LENGTH_SIZE - Fpdu.CRC_SIZE);
    }

    // ------------------------------------------------------------------ what the parts use

    QueuePair qp() {
        return qp;
    }

    Trace trace() {
        return dp.trace();
    }

    LatencyTable latency() {
        return dp.latency();
    }

    MemoryRegions regions() {
        return dp.regions();
    }

    CompletionWriter completions() {
        return dp.completions();
    }

    SendQueue sendQueue() {
        return sq;
    }

    ReadResponder responder() {
        return responder;
    }

    int pd() {
        return pd;
    }

    boolean crc() {
        return crc;
    }

    int mulpdu() {
        return mulpdu;
    }

    boolean remoteReadAllowed() {
        return remoteRead;
    }

    boolean inboundWriteAllowed() {
        return writeAndResponse;
    }

    boolean fastRegisterAllowed() {
        return fastRegister;
    }

    BytesStore<?, Void> tx() {
        return tx;
    }

    long txSequence() {
        return txSeq;
    }

    /** Whether TCP takes {@code bytes} now; if not, the engine waits for TCP's "send space available". */
    boolean tcpRoomFor(long bytes) {
        if (tcp.sendSpace() >= bytes) {
            return true;
        }
        waitingForSpace = true;
        return false;
    }

    boolean firstFpduReceived() {
        return firstFpdu;
    }

    void peerFpduReceived() {
        if (!firstFpdu) {
            firstFpdu = true;
            kick(0);
        }
    }

    /** The SQ and the responder may not send: an error stopped the QP, or it left RTS. */
    boolean stopped() {
        return halted || released || qp.state() != QpState.RTS;
    }

    /** Nothing received is looked at any more. */
    boolean receiveStopped() {
        return halted || released || qp.state() == QpState.ERROR;
    }

    /** Data FPDUs are placed in RTS and CLOSING (the peer may send until its FIN); in TERMINATE only Terminates. */
    boolean acceptsData() {
        return qp.state() == QpState.RTS || qp.state() == QpState.CLOSING;
    }

    long fpduCost(int payload) {
        return dp.latency().fpduNanos + dp.latency().dmaReadNanos(payload);
    }

    /** Starts an FPDU of {@code ulpdu} bytes in {@link #tx}: answers where the DDP header goes. */
    long beginFpdu(int ulpdu) {
        return fpduCodec.beginBuild(tx, 0, tx.capacity(), ulpdu);
    }

    /** Pads, writes the CRC field (zeros with CRC off) and queues the FPDU built in {@link #tx} ({@code payload} ULP bytes in it) on the TCP stream. */
    void sendFpdu(int payload) {
        int total = fpduCodec.finishBuild(crc);
        traceTx(total, payload);
        if (!tcp.send(tx, 0, total)) {
            // The caller checked the room; a refusal means TCP stopped sending under us.
            halted = true;
            return;
        }
        txSeq = (txSeq + total) & 0xffff_ffffL;
        counters.fpdusSent++;
        counters.payloadBytesSent += payload;
    }

    /** Queues {@code n} raw streaming-mode bytes (the LSMM) from {@link #tx}. */
    void sendStream(int n) {
        if (!tcp.send(tx, 0, n)) {
            halted = true;
            return;
        }
        txSeq = (txSeq + n) & 0xffff_ffffL;
        counters.streamBytesSent += n;
        TraceEvent t = dp.trace().start(TraceKind.FPDU_TX);
        if (t != null) {
            t.num("qp", qp.id()).text("op", "LSMM").num("len", n).emit();
        }
    }

    /** The function's counters (Gather Stats). */
    FunctionCounters functionCounters() {
        return dp.counters();
    }

    IwarpCounters counters() {
        return counters;
    }

    // ------------------------------------------------------------------ AEs and errors

    private int tcpStateCode() {
        return tcp.state().hardwareCode();
    }

    /** Posts an AE about this QP as irdma_sc_get_next_aeqe reads it: context, id, states, WQE index, Q2 flag. */
    void ae(int aeCode, int source, int wqeIndex, int q2Data) {
        dp.aeq().post(qp.completionContext(), qp.id(), aeCode, source, qp.state().code(), tcpStateCode(), wqeIndex,
                q2Data);
    }

    /** A data-path error without an offending frame (SQ, local work): the AE, and the QP stops. */
    void fail(int aeCode, int source, int wqeIndex) {
        fail(aeCode, source, wqeIndex, null, 0, 0, 0);
    }

    /**
     * A data-path error: the frame that carried the FPDU (if any) goes to Q2, one AE with IRDMA_AEQE_Q2DATA set
     * when it was written, and the QP's data path stops (hw.c then terminates the connection). Only the first
     * error of a QP is reported.
     */
    void fail(int aeCode, int source, int wqeIndex, BytesStore<?, ?> store, long offset, int length, long seq) {
        if (halted) {
            return;
        }
        halted = true;
        counters.errors++;
        service.cancel();
        int q2Data = store == null ? 0 : q2.writeFrame(store, offset, length, seq);
        TraceEvent t = dp.trace().start(TraceKind.TERMINATE);
        if (t != null) {
            AeCode c = AeCode.of(aeCode);
            t.text("action", "error").num("qp", qp.id()).text("ae", c == null ? "?" : c.name()).hex("code", aeCode)
                    .num("source", source).num("wqe", wqeIndex).num("q2", q2Data).emit();
        }
        ae(aeCode, source, wqeIndex, q2Data);
    }

    /**
     * A Terminate arrived (RFC 5040 §4.8, queue 2): copied to Q2 for irdma_terminate_received, which checks its
     * DDP/RDMAP fields itself; IRDMA_AE_LLP_TERMINATE_RECEIVED; nothing more of the stream is placed (the QP goes
     * to TERMINATE: RFC 5040 §6.2, no further RDMAP messages on a terminated stream). In CLOSING or TERMINATE the
     * state stays.
     */
    void terminateReceived(BytesStore<?, ?> store, long offset, int length, long seq) {
        counters.terminatesReceived++;
        int q2Data = q2.writeFrame(store, offset, length, seq);
        if (qp.state() == QpState.RTS) {
            dp.setState(qp, QpState.TERMINATE);
        }
        service.cancel();
        TraceEvent t = dp.trace().start(TraceKind.TERMINATE);
        if (t != null) {
            t.text("action", "received").num("qp", qp.id()).num("q2", q2Data).emit();
        }
        ae(AeCode.LLP_TERMINATE_RECEIVED.code(), AeSource.RSVD, 0, q2Data);
    }

    // ------------------------------------------------------------------ the driver's Modify QP

    /** Modify QP to CLOSING: a FIN after the bytes TCP already has; the SQ stops taking new work. */
    void close() {
        service.cancel();
        tcp.close();
    }

    /**
     * Modify QP to TERMINATE with IRDMA_CQPSQ_QP_TERMACT {@code actions} (defs.h IRDMAQP_TERM_*: 0 Terminate and
     * FIN, 1 Terminate only, 2 FIN only, 3 neither): the Terminate message irdma built in Q2 goes out as an
     * untagged FPDU on queue 2 (MSN from 1, MO 0, L), then IRDMA_AE_TERMINATE_SENT (hw.c answers it with the
     * FIN-only Modify QP); the FIN after it when asked.
     */
    void terminate(int actions) {
        service.cancel();
        boolean sendTerminate = actions == 0 || actions == 1;
        boolean fin = actions == 0 || actions == 2;
        if (sendTerminate && !terminateSent) {
            int n = q2.terminateLength();
            int ulpdu = DdpHeader.UNTAGGED_LENGTH + Math.max(0, n);
            if (n >= 0 && tcp.sendSpace() >= Fpdu.totalLengthFor(ulpdu)) {
                long at = beginFpdu(ulpdu);
                at += DdpHeader.writeUntagged(tx, at, RdmapOpcode.CODE_TERMINATE, true, 0, RdmapOpcode.QN_TERMINATE,
                        terminateMsn++, 0);
                q2.copyTerminate(tx, at, n);
                sendFpdu(0);
                terminateSent = true;
                counters.terminatesSent++;
                TraceEvent t = dp.trace().start(TraceKind.TERMINATE);
                if (t != null) {
                    // the FPDU is still in tx: TCP copied it
                    Terminate sent = terminateView.wrap(tx, at, n);
                    t.text("action", "sent").num("qp", qp.id()).num("layer", sent.layer())
                            .num("etype", sent.errorType()).hex("code", sent.errorCode()).num("len", n).emit();
                }
                ae(AeCode.TERMINATE_SENT.code(), AeSource.RSVD, 0, 0);
            }
        }
        if (fin) {
            tcp.close();
        }
    }

    /**
     * Modify QP to ERROR: the data path stops; with IRDMA_CQPSQ_QP_RESETCON an RST goes out and
     * IRDMA_AE_RESET_SENT follows (IRDMA_AE_RESET_NOT_SENT when the connection was already gone), without it the
     * connection is dropped silently. Outstanding WQEs wait for the driver's Flush WQEs.
     */
    void error(boolean reset) {
        halted = true;
        service.cancel();
        assembler.discard();
        boolean open = tcp.state() != TcpState.CLOSED && tcp.state() != TcpState.TIME_WAIT;
        if (reset) {
            if (open) {
                tcp.abort();
            }
            ae((open ? AeCode.RESET_SENT : AeCode.RESET_NOT_SENT).code(), AeSource.RSVD, 0, 0);
        } else {
            // Without the reset flag (irdma asks for none once the connection is closed or in TIME_WAIT) the QP's
            // connection is simply dropped: a QP in ERROR sends nothing more.
            tcp.discard();
        }
    }

    /** Flush WQEs: bit 0 set when SQ WQEs were flushed, bit 1 when RQ WQEs were. */
    int flush(boolean flushSq, boolean flushRq, int sqMajor, int sqMinor, int rqMajor, int rqMinor) {
        halted = true;
        service.cancel();
        int r = 0;
        if (flushSq && sq.flush(sqMajor, sqMinor)) {
            r |= 1;
        }
        if (flushRq && rx.flush(rqMajor, rqMinor)) {
            r |= 2;
        }
        if (flushSq) {
            responder.clear();
        }
        return r;
    }

    /** Destroy QP: timers cancelled, the TCP engine and every off-heap buffer released. */
    void release() {
        if (released) {
            return;
        }
        released = true;
        service.cancel();
        tcp.release();
        assembler.release();
        sq.release();
        q2.release();
        tx.releaseLast();
    }

    // ------------------------------------------------------------------ doorbell and the service loop

    /** PFPE_WQEALLOC for this QP. */
    void doorbell() {
        kick(dp.latency().mmioWriteNanos + dp.latency().sqWqeFetchNanos);
    }

    /** Asks for a service event {@code delay} ns from now, not before the engine finished what it is doing. */
    void kick(long delay) {
        if (stopped()) {
            return;
        }
        long at = Math.max(dp.scheduler().now() + delay, busyUntil);
        if (!service.isPending() || service.deadline() > at) {
            service.scheduleAt(at);
        }
    }

    /** The moment the QP goes to RTS: SQ processing starts at index 0 (the connection WQEs). */
    void start() {
        kick(dp.latency().sqWqeFetchNanos);
    }

    private void service() {
        if (stopped()) {
            return;
        }
        cost.reset();
        int budget = BATCH;
        boolean more = true;
        while (budget > 0) {
            StepOutcome o;
            if (preferResponder) {
                o = responder.step(cost);
                if (o != StepOutcome.MOVED && !stopped()) {
                    o = sq.step(cost);
                }
            } else {
                o = sq.step(cost);
                if (o != StepOutcome.MOVED && !stopped()) {
                    o = responder.step(cost);
                }
            }
            if (o != StepOutcome.MOVED) {
                more = false;
                break;
            }
            preferResponder = !preferResponder;
            budget--;
        }
        busyUntil = dp.scheduler().now() + cost.nanos();
        if (more && !stopped()) {
            service.scheduleAt(busyUntil);
        }
    }

    // ------------------------------------------------------------------ the port and TCP

    /** A frame the port's classifier steered to this QP (already validated by the port). */
    void receive(TcpPacket frame) {
        if (released) {
            return;
        }
        tcp.receiveValidated(frame);
    }

    /**
     * An exception segment (out of order, or ending inside an FPDU): the E810 would hand it to the IEQ named by the
     * context (puda.c irdma_ieq_handle_exception); the model's TCP reassembles it itself and only counts it (the IEQ
     * contract, {@link dev.irdmaemu.model.puda}).
     */
    private void toIeq(boolean partial) {
        dp.ieqSegment(partial, ieqQp);
    }

    @Override
    public void deliver(BytesStore<?, ?> store, long offset, int length) {
        if (released) {
            return;
        }
        if (!assembler.deliver(store, offset, length)) {
            toIeq(true);
        }
    }

    @Override
    public long freeSpace() {
        // Placement is immediate (no RQ WQE is an error, not back-pressure), so what TCP may accept is its own
        // reassembly ring; the staging buffer holds at most one FPDU.
        return conn.receiveBufferBytes();
    }

    @Override
    public void outOfOrder(long sequence, BytesStore<?, ?> store, long offset, int length) {
        // The E810 hands segments it cannot place in order to the IEQ (puda.c); here TCP reassembles them and
        // the IEQ gets nothing (one truth, see the model.puda package documentation).
        toIeq(false);
    }

    @Override
    public void event(OffloadedTcp connection, TcpEvent event) {
        if (event == TcpEvent.CONNECTION_RESET || event == TcpEvent.TOO_MANY_RETRIES) {
            halted = true;
            service.cancel();
        }
        if (qp.state() == QpState.ERROR) {
            // The driver already moved the QP to ERROR: the LLP's later news is not reported.
            return;
        }
        ae(event.aeCode().code(), AeSource.RSVD, 0, 0);
    }

    @Override
    public void sendSpaceAvailable(OffloadedTcp connection) {
        if (waitingForSpace) {
            waitingForSpace = false;
            kick(0);
        }
    }

    @Override
    public void acknowledged(OffloadedTcp connection) {
        if (sq.acknowledged(connection.sndUna())) {
            // The SQ waits on a fence (or the LSMM) and work just completed.
            kick(0);
        }
    }

    // ------------------------------------------------------------------ observation

    public OffloadedTcp tcp() {
        return tcp;
    }

    public IwarpCounters stats() {
        return counters;
    }

    public boolean halted() {
        return halted;
    }

    public int mulpduBytes() {
        return mulpdu;
    }

    public int sqOutstanding() {
        return sq.outstanding();
    }

    public int readsOutstanding() {
        return sq.readsOutstanding();
    }

    public int readRequestsQueued() {
        return responder.queued();
    }

    public long q2Address() {
        return q2.address();
    }

    static long seqDiff(long a, long b) {
        return TcpHeader.seqDelta(a & 0xffff_ffffL, b & 0xffff_ffffL);
    }

    private void traceTx(int total, int payload) {
        TraceEvent t = dp.trace().start(TraceKind.FPDU_TX);
        if (t == null) {
            return;
        }
        int ctl = tx.readUnsignedByte(Fpdu.LENGTH_SIZE);
        int rctl = tx.readUnsignedByte(Fpdu.LENGTH_SIZE + 1);
        RdmapOpcode op = RdmapOpcode.of(rctl & DdpHeader.OPCODE_MASK);
        boolean tagged = (ctl & DdpHeader.FLAG_TAGGED) != 0;
        t.num("qp", qp.id()).hex("seq", txSeq).num("fpdu_len", total).text("op", op == null ? "?" : op.name())
                .flag("last", (ctl & DdpHeader.FLAG_LAST) != 0).num("payload", payload);
        long h = Fpdu.LENGTH_SIZE;
        if (tagged) {
            t.hex("stag", NetworkOrder.i32(tx, h + DdpHeader.OFF_STAG))
                    .hex("to", NetworkOrder.i64(tx, h + DdpHeader.OFF_TO));
        } else {
            t.num("qn", NetworkOrder.u32(tx, h + DdpHeader.OFF_QN)).num("msn", NetworkOrder.u32(tx, h + DdpHeader.OFF_MSN))
                    .num("mo", NetworkOrder.u32(tx, h + DdpHeader.OFF_MO));
        }
        t.emit();
    }
}
