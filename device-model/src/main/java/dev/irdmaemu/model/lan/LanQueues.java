package dev.irdmaemu.model.lan;

import static dev.irdmaemu.fw.lan.LanRegister.*;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.InterruptSink;
import dev.irdmaemu.model.ice.LanRegisters;
import dev.irdmaemu.model.eq.VectorCauses;
import dev.irdmaemu.model.port.FrameTransmitter;
import dev.irdmaemu.model.port.LanSink;
import dev.irdmaemu.model.reg.RegisterFile;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The LAN queue registers of one E810 PF (ice_hw_autogen.h): QRX_CONTEXT, QRX_CTRL, QRX_TAIL, QRXFLXP_CNTXT,
 * QINT_RQCTL, QINT_TQCTL, QTX_COMM_DBELL, QTX_COMM_HEAD, the MDD registers and GLV_RDPC, each a named handler in
 * one {@link RegisterFile}; the receive side ({@link RxPath}) and the transmit side ({@link TxPath}) behind them.
 * Queue numbers are the device's absolute ones (ice writes pf_q). The ice block forwards the offsets this table
 * {@link #owns} and calls {@link #reset} on a PF reset.
 *
 * <p>Interrupts go out through the {@link VectorCauses} the PCI function gives (the RDMA block's interrupt
 * controller), each with the ITR index its QINT_RQCTL / QINT_TQCTL names, so GLINT_ITR and GLINT_RATE throttle it
 * before the shared GLINT_DYN_CTL gating; index 3 (no ITR) raises at once. An MDD event
 * sets GL_MDET_* / PF_MDET_* (ice_handle_mdd_event reads, then clears by writing ones) and calls the MDD hook (the
 * ice block's PFINT_OICR MAL_DETECT cause).
 */
public final class LanQueues implements LanRegisters, LanSink {
    /** Queue registers the model backs: the device's 2048 Rx and Tx queues (QRX_CTRL_MAX_INDEX + 1). */
    public static final int QUEUES = 2048;

    private final int pfId;
    private final RegisterFile regs;
    private final Trace trace;
    private final LanCounters counters = new LanCounters();
    private final RxPath rx;
    private final TxPath tx;
    private final int rqctl;
    private final int tqctl;
    private final int mdetRx;
    private final int mdetTx;
    private final int pfMdetRx;
    private final int pfMdetTx;
    private final int rdpc;
    private VectorCauses irq = VectorCauses.NONE;
    private int msixVectors = 2048;
    private long droppedVectors;
    private Runnable mddHook = () -> { };

    public LanQueues(int pfId, HostMemory memory, Trace trace) {
        this.pfId = pfId;
        this.trace = trace;
        this.regs = new RegisterFile(trace);
        this.rx = new RxPath(QUEUES, memory, trace, this, counters);
        this.tx = new TxPath(QUEUES, memory, trace, this, counters);
        for (int i = 0; i < QRX_CONTEXT_DWORDS; i++) {
            int dword = i;
            regs.define("QRX_CONTEXT" + i, QRX_CONTEXT + (long) i * QRX_CONTEXT_DWORD_STRIDE, QUEUES, QUEUE_STRIDE,
                    "rx_context", (q, s) -> rx.contextDword(q, dword), "rx_context",
                    (q, v) -> rx.contextDword(q, dword, v));
        }
        regs.define("QRX_CTRL", QRX_CTRL, QUEUES, QUEUE_STRIDE, "qena_stat", rx::control, "qena_req",
                this::rxControlWrite);
        regs.define("QRX_TAIL", QRX_TAIL, QUEUES, QUEUE_STRIDE, "rx_tail", (q, s) -> rx.tail(q), "rx_doorbell",
                rx::tailWrite);
        regs.define("QRXFLXP_CNTXT", QRXFLXP_CNTXT, QUEUES, QUEUE_STRIDE, null, null, null, null);
        rqctl = regs.define("QINT_RQCTL", QINT_RQCTL, QUEUES, QUEUE_STRIDE, null, null, null, null);
        tqctl = regs.define("QINT_TQCTL", QINT_TQCTL, QUEUES, QUEUE_STRIDE, null, null, null, null);
        regs.define("QTX_COMM_DBELL", QTX_COMM_DBELL, QUEUES, QUEUE_STRIDE, "tx_tail", (q, s) -> tx.tail(q),
                "tx_doorbell", tx::doorbell);
        regs.defineReadOnly("QTX_COMM_HEAD", QTX_COMM_HEAD, QUEUES, QUEUE_STRIDE, "tx_head", (q, s) -> tx.head(q));
        mdetRx = regs.define("GL_MDET_RX", GL_MDET_RX, 1, 0, null, null, "write_one_to_clear",
                (e, v) -> clearOnes(this.mdetRxBlock(), v));
        mdetTx = regs.define("GL_MDET_TX_TCLAN", GL_MDET_TX_TCLAN, 1, 0, null, null, "write_one_to_clear",
                (e, v) -> clearOnes(this.mdetTxBlock(), v));
        pfMdetRx = regs.define("PF_MDET_RX", PF_MDET_RX, 1, 0, null, null, "write_one_to_clear",
                (e, v) -> clearOnes(this.pfMdetRxBlock(), v));
        pfMdetTx = regs.define("PF_MDET_TX_TCLAN", PF_MDET_TX_TCLAN, 1, 0, null, null, "write_one_to_clear",
                (e, v) -> clearOnes(this.pfMdetTxBlock(), v));
        rdpc = regs.defineReadOnly("GLV_RDPC", GLV_RDPC, 1, 0, null, null);
    }

    private int mdetRxBlock() {
        return mdetRx;
    }

    private int mdetTxBlock() {
        return mdetTx;
    }

    private int pfMdetRxBlock() {
        return pfMdetRx;
    }

    private int pfMdetTxBlock() {
        return pfMdetTx;
    }

    private void clearOnes(int block, int v) {
        regs.store(block, 0, regs.stored(block, 0) & ~v);
    }

    private void rxControlWrite(int q, int v) {
        regs.store(regs.block("QRX_CTRL").orElseThrow(), q, v & QRX_CTRL_QENA_REQ_M);
        rx.controlWrite(q, v);
    }

    // ---- wiring

    /**
     * The PF's vector causes with their ITR index (the RDMA block's interrupt controller: GLINT_ITR / GLINT_RATE
     * throttling, then the shared GLINT_DYN_CTL gating).
     */
    public void interrupts(VectorCauses causes) {
        this.irq = causes == null ? VectorCauses.NONE : causes;
    }

    /** A plain sink: every cause raises its vector at once (no ITR). */
    public void interrupts(InterruptSink sink) {
        InterruptSink s = sink == null ? InterruptSink.NONE : sink;
        this.irq = (vector, itrIndex) -> {
            s.raise(vector);
            return true;
        };
    }

    /**
     * The PCI function's MSI-X table size: a QINT_*QCTL naming a vector beyond it raises nothing (counted and traced,
     * as the ice block does for its causes).
     */
    public void msixVectors(int n) {
        this.msixVectors = Math.max(1, n);
    }

    public long droppedVectors() {
        return droppedVectors;
    }

    /** Where Tx frames leave (the Ethernet port's transmit). */
    public void wire(FrameTransmitter t) {
        tx.wire(t);
    }

    /** Where the Rx engine finds each VSI's RSS key, LUT and queue map (the firmware's VSI table). */
    public void rxSteering(RxSteering steering) {
        rx.steering(steering);
    }

    /** Where the Tx contexts come from (the add_txqs queues of the ice block). */
    public void txContexts(TxContextSource source) {
        tx.contexts(source);
    }

    @Override
    public void macLoopback(boolean on) {
        tx.loopback(on);
    }

    /** Called on an MDD event (the ice block raises PFINT_OICR MAL_DETECT). */
    public void onMdd(Runnable hook) {
        this.mddHook = hook == null ? () -> { } : hook;
    }

    /** PF reset / power-on: every queue disabled, every register 0. */
    public void reset() {
        rx.reset();
        tx.reset();
        for (int b = 0; b < 64 && regs.name(b) != null; b++) {
            for (int e = 0; e < regs.elements(b); e++) {
                regs.store(b, e, 0);
            }
        }
    }

    // ---- Mmio

    /** True for the offsets this table backs. */
    @Override
    public boolean owns(long offset) {
        return regs.lookup(offset) >= 0;
    }

    @Override
    public int read32(long offset) {
        return regs.read32(offset);
    }

    @Override
    public void write32(long offset, int value) {
        regs.write32(offset, value);
    }

    // ---- LanSink: frames from the port

    @Override
    public void frame(BytesStore<?, ?> store, long offset, int length) {
        rx.frame(store, offset, length);
    }

    // ---- causes

    void raiseRx(int q) {
        if (raise(regs.stored(rqctl, q), "rxq", q)) {
            counters.rxInterrupts++;
        }
    }

    void raiseTx(int q) {
        if (raise(regs.stored(tqctl, q), "txq", q)) {
            counters.txInterrupts++;
        }
    }

    private boolean raise(int ctl, String cause, int q) {
        if ((ctl & QINT_CAUSE_ENA_M) == 0) {
            return false;
        }
        int vector = ctl & QINT_MSIX_INDX_M;
        TraceEvent t = trace.start(TraceKind.INTERRUPT);
        if (vector >= msixVectors) {
            droppedVectors++;
            if (t != null) {
                t.text("cause", cause).num("q", q).num("vector", vector).text("dropped", "beyond_msix_table").emit();
            }
            return false;
        }
        if (t != null) {
            t.text("cause", cause).num("q", q).num("vector", vector).emit();
        }
        irq.cause(vector, ctl >>> QINT_ITR_INDX_S & QINT_ITR_INDX_M);
        return true;
    }

    void rxDiscard() {
        regs.store(rdpc, 0, regs.stored(rdpc, 0) + 1);
    }

    void mddRx(int q, int type) {
        mdd(mdetRx, pfMdetRx, q, type, "rx");
    }

    void mddTx(int q, int type) {
        mdd(mdetTx, pfMdetTx, q, type, "tx");
    }

    private void mdd(int global, int pf, int q, int type, String dir) {
        counters.mddEvents++;
        if ((regs.stored(global, 0) & GL_MDET_VALID_M) == 0) {
            regs.store(global, 0, GL_MDET_VALID_M | (type << GL_MDET_MAL_TYPE_S & GL_MDET_MAL_TYPE_M)
                    | pfId << GL_MDET_PF_NUM_S | q & GL_MDET_QNUM_M);
        }
        regs.store(pf, 0, PF_MDET_VALID_M);
        TraceEvent t = trace.start(TraceKind.LAN);
        if (t != null) {
            t.text("dir", dir).text("op", "mdd").num("q", q).num("type", type).emit();
        }
        mddHook.run();
    }

    // ---- views

    public LanCounters counters() {
        return counters;
    }

    public RxPath rx() {
        return rx;
    }

    public TxPath tx() {
        return tx;
    }

    public RegisterFile registers() {
        return regs;
    }
}
