package dev.irdmaemu.model.iwarp;

import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.iwarp.Fpdu;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.model.mr.MemoryRegions;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.tcp.OffloadedTcp;
import dev.irdmaemu.model.tcp.TcpConnectionParams;
import dev.irdmaemu.model.tcp.TcpState;
import dev.irdmaemu.model.stats.FunctionCounters;
import dev.irdmaemu.model.trace.Trace;

/**
 * The data path of one offloaded iWARP QP, from Modify QP to RTS (with the TCP context) to Destroy QP: the QP's
 * {@link OffloadedTcp}, MPA framing (no markers; CRC32c unless the context says the peer sends none), DDP and RDMAP
 * over it. This class is the QP's face (what {@link IwarpDataPath}, tests and benches see, and the Modify QP, Flush
 * and Destroy QP actions) and the place its parts find each other, split like siw's files: transmit is the
 * {@link SendQueue} and the {@link ReadResponder} (siw_qp_tx.c), taking turns in the {@link TransmitService}'s
 * batches costed by the {@link LatencyTable} on simulated time, their FPDUs built and queued on TCP by the
 * {@link FpduTransmitter}; receive is TCP's in-order bytes through the {@link LlpUpcalls} and the
 * {@link FpduAssembler} to the {@link ReceivePath} (siw_qp_rx.c); whether the data path runs, and its errors, are
 * the {@link QpRunState}'s (siw_qp.c). Errors raise one AE, copy the offending frame to {@link Q2Exchange Q2} and
 * stop the data path until the driver terminates the QP (hw.c irdma_process_aeq, ctrl.c
 * irdma_terminate_connection); Modify QP to TERMINATE sends the Terminate irdma wrote in Q2, CLOSING sends a FIN,
 * ERROR stops (with an RST when asked). Nothing on the per-FPDU paths allocates.
 */
public final class IwarpQp {
    private final IwarpDataPath dp;
    private final QueuePair qp;
    private final OffloadedTcp tcp;
    private final int pd;
    private final boolean crc;
    private final boolean remoteRead;
    private final boolean writeAndResponse;
    private final boolean fastRegister;
    private final IwarpCounters counters = new IwarpCounters();
    private final Q2Exchange q2;
    private final QpRunState runState;
    private final TransmitService service;
    private final FpduTransmitter transmitter;
    private final ReceivePath rx;
    private final FpduAssembler assembler;
    private final SendQueue sq;
    private final ReadResponder responder;
    /** Where the parts above keep their tables and codecs; given back to the data path at {@link #release}. */
    private final QpEngineMemory memory;

    IwarpQp(IwarpDataPath dp, QueuePair qp, TcpConnectionParams conn, Settings s, QpEngineMemory m) {
        this.dp = dp;
        this.qp = qp;
        this.pd = s.pd;
        this.crc = s.crc;
        this.remoteRead = s.remoteRead;
        this.writeAndResponse = s.writeAndResponse;
        this.fastRegister = s.fastRegister;
        LlpUpcalls llp = new LlpUpcalls(this, dp, s.ieqQp, conn.receiveBufferBytes());
        this.memory = m;
        this.tcp = new OffloadedTcp(dp.scheduler(), conn, dp.wire(), llp, llp, m.records);
        this.q2 = new Q2Exchange(dp.memory(), s.q2Address, conn);
        this.runState = new QpRunState(this, dp, qp, q2, counters);
        this.service = new TransmitService(this, dp.scheduler());
        this.transmitter = new FpduTransmitter(dp.trace(), dp.latency(), qp, tcp, runState, counters, s.crc,
                mulpdu(conn.mss(), conn.timestamps()), conn.sndNxt(), m.txFpdu);
        this.rx = new ReceivePath(this, dp.memory(), qp.rqCursor(), qp.rqRing(), s.rqWqeBytes, m.rxFpdu);
        this.assembler = new FpduAssembler(rx, conn.rcvNxt());
        this.sq = new SendQueue(this, dp.memory(), qp.sqCursor(), qp.sqRing(), qp.sqQuanta(), s.ord, m);
        this.responder = new ReadResponder(this, m);
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

    /** The function's counters (Gather Stats). */
    FunctionCounters functionCounters() {
        return dp.counters();
    }

    QpRunState runState() {
        return runState;
    }

    TransmitService service() {
        return service;
    }

    FpduTransmitter transmitter() {
        return transmitter;
    }

    FpduAssembler assembler() {
        return assembler;
    }

    SendQueue sendQueue() {
        return sq;
    }

    /** The tables this engine works in (kept for the next engine after {@link #release}). */
    QpEngineMemory tables() {
        return memory;
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

    boolean remoteReadAllowed() {
        return remoteRead;
    }

    boolean inboundWriteAllowed() {
        return writeAndResponse;
    }

    boolean fastRegisterAllowed() {
        return fastRegister;
    }

    // ------------------------------------------------------------------ the driver's Modify QP, Flush and Destroy

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
        if (sendTerminate && transmitter.sendTerminate(q2)) {
            runState.ae(AeCode.TERMINATE_SENT.code(), AeSource.RSVD, 0, 0);
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
        runState.halt();
        service.cancel();
        assembler.discard();
        boolean open = tcp.state() != TcpState.CLOSED && tcp.state() != TcpState.TIME_WAIT;
        if (reset) {
            if (open) {
                tcp.abort();
            }
            runState.ae((open ? AeCode.RESET_SENT : AeCode.RESET_NOT_SENT).code(), AeSource.RSVD, 0, 0);
        } else {
            // Without the reset flag (irdma asks for none once the connection is closed or in TIME_WAIT) the QP's
            // connection is simply dropped: a QP in ERROR sends nothing more.
            tcp.discard();
        }
    }

    /** Flush WQEs: bit 0 set when SQ WQEs were flushed, bit 1 when RQ WQEs were. */
    int flush(boolean flushSq, boolean flushRq, int sqMajor, int sqMinor, int rqMajor, int rqMinor) {
        runState.halt();
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

    /**
     * Destroy QP: timers cancelled, the TCP engine and every off-heap buffer released; answers the engine's tables
     * for the data path to keep for the next engine, or null when the QP was already released.
     */
    QpEngineMemory release() {
        if (!runState.release()) {
            return null;
        }
        service.cancel();
        tcp.release();
        assembler.release();
        sq.release();
        q2.release();
        transmitter.release();
        return memory;
    }

    // ------------------------------------------------------------------ doorbell, start and frames

    /** PFPE_WQEALLOC for this QP. */
    void doorbell() {
        service.kick(dp.latency().mmioWriteNanos + dp.latency().sqWqeFetchNanos);
    }

    /** The moment the QP goes to RTS: SQ processing starts at index 0 (the connection WQEs). */
    void start() {
        service.kick(dp.latency().sqWqeFetchNanos);
    }

    /** A frame the port's classifier steered to this QP (already validated by the port). */
    void receive(TcpPacket frame) {
        if (runState.released()) {
            return;
        }
        tcp.receiveValidated(frame);
    }

    // ------------------------------------------------------------------ observation

    public OffloadedTcp tcp() {
        return tcp;
    }

    public IwarpCounters stats() {
        return counters;
    }

    public boolean halted() {
        return runState.halted();
    }

    public int mulpduBytes() {
        return transmitter.mulpdu();
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
}
