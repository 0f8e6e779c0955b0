package dev.irdmaemu.model.iwarp;

import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Whether one QP's data path runs, and how it stops, as siw_qp.c keeps it beside the QP state (siw_qp_modify's
 * states, the errors siw_qp_event and siw_init_terminate report): the first error raises one AE, copies the
 * offending frame to Q2 and halts the SQ and the responder until the driver terminates the QP (hw.c
 * irdma_process_aeq); a received Terminate moves RTS to TERMINATE; Destroy QP releases it. The driver's QP state
 * ({@code model.qp}) says the rest: only RTS sends, RTS and CLOSING place data, ERROR looks at nothing. Also
 * whether the peer's first FPDU arrived (the SQ waits for it after the LSMM). Allocation-free.
 */
final class QpRunState {
    private final IwarpQp q;
    private final IwarpDataPath dp;
    private final QueuePair qp;
    private final Q2Exchange q2;
    private final IwarpCounters counters;

    private boolean halted;
    private boolean released;
    private boolean firstFpdu;

    QpRunState(IwarpQp q, IwarpDataPath dp, QueuePair qp, Q2Exchange q2, IwarpCounters counters) {
        this.q = q;
        this.dp = dp;
        this.qp = qp;
        this.q2 = q2;
        this.counters = counters;
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

    boolean halted() {
        return halted;
    }

    /** The data path stops (Modify QP to ERROR, Flush WQEs, TCP gone or refusing bytes): nothing is reported. */
    void halt() {
        halted = true;
    }

    boolean released() {
        return released;
    }

    /** Destroy QP: answers false when the QP was already released. */
    boolean release() {
        if (released) {
            return false;
        }
        released = true;
        return true;
    }

    boolean firstFpduReceived() {
        return firstFpdu;
    }

    /** A data FPDU from the peer: the first one lets an SQ waiting after the LSMM (WAITFORRCVPDU) go on. */
    void peerFpduReceived() {
        if (!firstFpdu) {
            firstFpdu = true;
            q.service().kick(0);
        }
    }

    /** Posts an AE about this QP as irdma_sc_get_next_aeqe reads it: context, id, states, WQE index, Q2 flag. */
    void ae(int aeCode, int source, int wqeIndex, int q2Data) {
        dp.aeq().post(qp.completionContext(), qp.id(), aeCode, source, qp.state().code(),
                q.tcp().state().hardwareCode(), wqeIndex, q2Data);
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
        q.service().cancel();
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
        q.service().cancel();
        TraceEvent t = dp.trace().start(TraceKind.TERMINATE);
        if (t != null) {
            t.text("action", "received").num("qp", qp.id()).num("q2", q2Data).emit();
        }
        ae(AeCode.LLP_TERMINATE_RECEIVED.code(), AeSource.RSVD, 0, q2Data);
    }
}
