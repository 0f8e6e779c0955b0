package dev.irdmaemu.model.iwarp;

import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.iwarp.DdpHeader;
import dev.irdmaemu.fw.iwarp.Fpdu;
import dev.irdmaemu.fw.iwarp.RdmapOpcode;
import dev.irdmaemu.fw.iwarp.Terminate;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.tcp.OffloadedTcp;
import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The sending end of one QP's MPA stream (RFC 5044 §4, no markers), as siw_qp_tx.c builds an FPDU and hands it to
 * the socket (siw_prepare_fpdu, siw_tx_hdt): one buffer in which the caller's DDP header and payload get the 2-byte
 * ULPDU length, the pad and the CRC field (zeros with CRC off), each FPDU queued on the QP's {@link OffloadedTcp}
 * only once it has room (a lack of room is remembered, so TCP's "send space available" wakes the engine); the
 * LSMM's raw streaming-mode bytes; the Terminate irdma wrote in Q2 (untagged, queue 2). Keeps the TCP sequence
 * after the last byte queued and traces what goes out. Allocation-free.
 */
final class FpduTransmitter {
    private final Trace trace;
    private final LatencyTable latency;
    private final QueuePair qp;
    private final OffloadedTcp tcp;
    private final QpRunState runState;
    private final IwarpCounters counters;
    private final boolean crc;
    private final int mulpdu;
    private final Fpdu fpduCodec;
    private final BytesStore<?, Void> tx;
    private final Terminate terminateView = new Terminate();

    private long txSeq;
    /** A step found TCP's send ring too full: TCP's next "space available" wakes the engine. */
    private boolean waitingForSpace;
    private boolean terminateSent;
    private int terminateMsn = 1;

    FpduTransmitter(Trace trace, LatencyTable latency, QueuePair qp, OffloadedTcp tcp, QpRunState runState,
                    IwarpCounters counters, boolean crc, int mulpdu, long firstSequence, Fpdu fpduCodec) {
        this.trace = trace;
        this.latency = latency;
        this.qp = qp;
        this.tcp = tcp;
        this.runState = runState;
        this.counters = counters;
        this.crc = crc;
        this.mulpdu = mulpdu;
        this.txSeq = firstSequence;
        this.tx = BytesStore.nativeStoreWithFixedCapacity(Math.max(mulpdu + 16, SendQueue.LSMM_MAX));
        this.fpduCodec = fpduCodec;
    }

    /** Where the FPDU (or the LSMM) is built. */
    BytesStore<?, Void> buffer() {
        return tx;
    }

    /** The TCP sequence number after the last byte queued. */
    long sequence() {
        return txSeq;
    }

    /** The largest ULPDU of the connection (RFC 5044 §8). */
    int mulpdu() {
        return mulpdu;
    }

    /** Whether TCP takes {@code bytes} now; if not, the engine waits for TCP's "send space available". */
    boolean roomFor(long bytes) {
        if (tcp.sendSpace() >= bytes) {
            return true;
        }
        waitingForSpace = true;
        return false;
    }

    /** TCP has room again: answers whether a step was waiting for it (and forgets that it was). */
    boolean spaceWaitEnded() {
        if (!waitingForSpace) {
            return false;
        }
        waitingForSpace = false;
        return true;
    }

    /** What an FPDU carrying {@code payload} ULP bytes costs the engine, in simulated nanoseconds. */
    long cost(int payload) {
        return latency.fpduNanos + latency.dmaReadNanos(payload);
    }

    /** Starts an FPDU of {@code ulpdu} bytes in {@link #buffer()}: answers where the DDP header goes. */
    long begin(int ulpdu) {
        return fpduCodec.beginBuild(tx, 0, tx.capacity(), ulpdu);
    }

    /**
     * Pads, writes the CRC field (zeros with CRC off) and queues the FPDU built in {@link #buffer()}
     * ({@code payload} ULP bytes in it) on the TCP stream.
     */
    void send(int payload) {
        int total = fpduCodec.finishBuild(crc);
        traceTx(total, payload);
        if (!tcp.send(tx, 0, total)) {
            // The caller checked the room; a refusal means TCP stopped sending under us.
            runState.halt();
            return;
        }
        txSeq = (txSeq + total) & 0xffff_ffffL;
        counters.fpdusSent++;
        counters.payloadBytesSent += payload;
    }

    /** Queues {@code n} raw streaming-mode bytes (the LSMM) from {@link #buffer()}. */
    void sendStream(int n) {
        if (!tcp.send(tx, 0, n)) {
            runState.halt();
            return;
        }
        txSeq = (txSeq + n) & 0xffff_ffffL;
        counters.streamBytesSent += n;
        TraceEvent t = trace.start(TraceKind.FPDU_TX);
        if (t != null) {
            t.num("qp", qp.id()).text("op", "LSMM").num("len", n).emit();
        }
    }

    /**
     * The Terminate message irdma built in Q2 as an untagged FPDU on queue 2 (MSN from 1, MO 0, L), once per QP
     * and only when Q2 holds one and TCP has room for it. Answers whether it went.
     */
    boolean sendTerminate(Q2Exchange q2) {
        if (terminateSent || !q2.mapped()) {
            return false;
        }
        int n = q2.terminateLength();
        int ulpdu = DdpHeader.UNTAGGED_LENGTH + n;
        if (tcp.sendSpace() < Fpdu.totalLengthFor(ulpdu)) {
            return false;
        }
        long at = begin(ulpdu);
        at += DdpHeader.writeUntagged(tx, at, RdmapOpcode.CODE_TERMINATE, true, 0, RdmapOpcode.QN_TERMINATE,
                terminateMsn++, 0);
        q2.copyTerminate(tx, at, n);
        send(0);
        terminateSent = true;
        counters.terminatesSent++;
        TraceEvent t = trace.start(TraceKind.TERMINATE);
        if (t != null) {
            // the FPDU is still in tx: TCP copied it
            Terminate sent = terminateView.wrap(tx, at, n);
            t.text("action", "sent").num("qp", qp.id()).num("layer", sent.layer())
                    .num("etype", sent.errorType()).hex("code", sent.errorCode()).num("len", n).emit();
        }
        return true;
    }

    void release() {
        tx.releaseLast();
    }

    private void traceTx(int total, int payload) {
        TraceEvent t = trace.start(TraceKind.FPDU_TX);
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
            t.num("qn", NetworkOrder.u32(tx, h + DdpHeader.OFF_QN))
                    .num("msn", NetworkOrder.u32(tx, h + DdpHeader.OFF_MSN))
                    .num("mo", NetworkOrder.u32(tx, h + DdpHeader.OFF_MO));
        }
        t.emit();
    }
}
