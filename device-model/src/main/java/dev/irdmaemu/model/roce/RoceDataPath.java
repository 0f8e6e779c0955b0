package dev.irdmaemu.model.roce;

import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.fw.qp.RoceQpContext;
import dev.irdmaemu.model.eq.AsyncEventQueue;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;

/**
 * The RoCEv2 QPs' side of the RDMA block, told by the CQP of each context load and state change: the per-QP RoCE
 * state ({@link RoceQp}), the Send Queue Drained event irdma waits for after Modify QP to SQD (verbs.c
 * irdma_modify_qp_roce, irdma_wait_for_suspend: AE IRDMA_AE_QP_SUSPEND_COMPLETE), and the doorbells of RoCE QPs.
 * RC QPs are created, modified and destroyed with their context parsed and checked, but their transport is not
 * here: a doorbell on an RC QP raises IRDMA_AE_WQE_UNEXPECTED_OPCODE once (hw.c irdma_process_aeq then moves the
 * QP to error and flushes it) and is counted.
 */
public final class RoceDataPath {
    private final RoceQp[] qps;
    private final boolean[] rcRefused;
    private final AsyncEventQueue aeq;
    private final Trace trace;
    private long rcDoorbellsRefused;

    public RoceDataPath(int capacity, AsyncEventQueue aeq, Trace trace) {
        this.qps = new RoceQp[capacity];
        this.rcRefused = new boolean[capacity];
        this.aeq = aeq;
        this.trace = trace;
    }

    /** Create QP or Modify QP loaded {@code c} (already checked) for RoCE QP {@code qp}: every field is replaced. */
    public void contextLoaded(QueuePair qp, RoceQpContext c) {
        RoceQp r = qps[qp.id()];
        if (r == null) {
            r = new RoceQp();
            qps[qp.id()] = r;
        }
        r.load(c);
    }

    /**
     * The QP moved from {@code was} to {@code next}. Into SQD (the CQP's state 3): nothing is in flight on a UD or
     * refused RC SQ, so the SQ is drained at once and QP_SUSPEND_COMPLETE goes to the AEQ. Out of ERROR (reuse) an
     * RC QP may be rung again.
     */
    public void stateChanged(QueuePair qp, QpState was, QpState next) {
        if (next == QpState.CLOSING && was != QpState.CLOSING) {
            aeq.post(qp.completionContext(), qp.id(), AeCode.QP_SUSPEND_COMPLETE.code(), AeSource.SQ,
                    next.code(), 0, 0);
        }
        if (next == QpState.IDLE) {
            rcRefused[qp.id()] = false;
        }
    }

    /** Destroy QP: the slot is forgotten. */
    public void release(int qpId) {
        if (qpId >= 0 && qpId < rcRefused.length) {
            rcRefused[qpId] = false;
        }
    }

    /**
     * PFPE_WQEALLOC for RoCE QP {@code qp}. An RC QP's work is refused (see the class comment); answers whether the
     * doorbell was taken.
     */
    public boolean doorbell(QueuePair qp) {
        if (qp.role() == QueuePair.Role.ROCE_RC) {
            refuseRc(qp);
            return true;
        }
        return false;
    }

    private void refuseRc(QueuePair qp) {
        rcDoorbellsRefused++;
        if (rcRefused[qp.id()]) {
            return;
        }
        rcRefused[qp.id()] = true;
        aeq.post(qp.completionContext(), qp.id(), AeCode.WQE_UNEXPECTED_OPCODE.code(), AeSource.SQ,
                qp.state().code(), 0, qp.sqCursor().index());
        TraceEvent t = trace.start(TraceKind.ROCE_DROP);
        if (t != null) {
            t.text("queue", "SQ").num("qp", qp.id()).text("reason", "RC_TRANSPORT_NOT_MODELLED").emit();
        }
    }

    /** Doorbells on RC QPs refused because the RC transport is not plugged in. */
    public long rcDoorbellsRefused() {
        return rcDoorbellsRefused;
    }

    /** The RoCE state of QP {@code qpId} (read it only while the QP lives), or null when it never was a RoCE QP. */
    public RoceQp qp(int qpId) {
        return qpId >= 0 && qpId < qps.length ? qps[qpId] : null;
    }
}
