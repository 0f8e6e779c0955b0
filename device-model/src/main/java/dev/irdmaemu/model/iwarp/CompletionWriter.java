package dev.irdmaemu.model.iwarp;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.model.qp.CompletionQueue;
import dev.irdmaemu.model.qp.CqTable;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;

/**
 * Writes the CQEs of iWARP QPs as uk.c irdma_uk_cq_poll_cmpl reads them (gen2, 32-byte entries, no extension):
 * qword1 the QP's completion context (the driver's QP handle), IRDMACQ_QPID, IRDMA_CQ_WQEIDX (the SQ quantum
 * index of the WQE; for the RQ the WQE's first quantum, which the driver divides by rq_wqe_size_multiplier),
 * IRDMACQ_OP, IRDMA_CQ_SQ, and for receive completions IRDMACQ_PAYLDLEN, IRDMACQ_INVSTAG with IRDMACQ_STAG and
 * IRDMACQ_SOEVENT. A CQ that is missing, full (with overflow checking) or unmapped drops the completion and raises
 * the CQ's AE (overflow, or {@link CqTable#lost}). Allocation-free.
 */
final class CompletionWriter {
    private final HostMemory memory;
    private final CqTable cqs;
    private final Trace trace;
    private final Cqe cqe = new Cqe();
    private long dropped;

    CompletionWriter(HostMemory memory, CqTable cqs, Trace trace) {
        this.memory = memory;
        this.cqs = cqs;
        this.trace = trace;
    }

    /** Wraps {@link #cqe} over the CQ's next slot, cleared; null when the completion cannot be written. */
    private Cqe slot(CompletionQueue cq, int cqId, QueuePair qp) {
        if (cq == null) {
            dropped++;
            cqs.lost(CqTable.Loss.NO_CQ, cqId, qp.id());
            return null;
        }
        if (!cq.hasRoom(1)) {
            cq.overflow();
            dropped++;
            return null;
        }
        long gpa = cq.slotAddress(0);
        int r = memory.find(gpa, Cqe.SIZE);
        if (r < 0) {
            dropped++;
            cqs.lost(CqTable.Loss.CQE_UNMAPPED, cq.id(), qp.id());
            return null;
        }
        return cqe.wrap(memory.store(r), memory.offset(r, gpa), Cqe.SIZE).clear();
    }

    /**
     * An SQ completion: {@code opcode} the WQE's IRDMAQP_OP_* (which is the IRDMA_OP_TYPE_* uk.c reports); a
     * non-zero {@code major} makes it an error completion.
     */
    boolean sq(QueuePair qp, int wqeIndex, int opcode, int major, int minor) {
        CompletionQueue cq = cqs.get(qp.txCq());
        Cqe c = slot(cq, qp.txCq(), qp);
        if (c == null) {
            return false;
        }
        c.completionContext(qp.completionContext()).qpId(qp.id()).wqeIndex(wqeIndex).opType(opcode).sq(true);
        if (major != 0) {
            c.error(major, minor);
        }
        c.valid(cq.polarity(0));
        cq.produced(1, false);
        traceCqe(qp, cq, true, wqeIndex, opcode, 0, major, minor);
        return true;
    }

    /**
     * An RQ completion of {@code bytes}: {@code invalidated} the STag a Send with Invalidate invalidated (0 when
     * none), {@code solicited} for Send with SE (it also wakes a CQ armed for solicited completions only).
     */
    boolean rq(QueuePair qp, int wqeIndex, long bytes, int invalidated, boolean stagInvalidated, boolean solicited,
               int major, int minor) {
        CompletionQueue cq = cqs.get(qp.rxCq());
        Cqe c = slot(cq, qp.rxCq(), qp);
        if (c == null) {
            return false;
        }
        c.payloadLength(bytes).completionContext(qp.completionContext()).qpId(qp.id()).wqeIndex(wqeIndex)
                .opType(Cqe.OP_RECEIVE).sq(false);
        if (stagInvalidated) {
            c.invalidatedStag(invalidated).stagInvalidated(true);
        }
        if (solicited) {
            c.solicitedEvent(true);
        }
        if (major != 0) {
            c.error(major, minor);
        }
        c.valid(cq.polarity(0));
        cq.produced(1, solicited);
        traceCqe(qp, cq, false, wqeIndex, Cqe.OP_RECEIVE, bytes, major, minor);
        return true;
    }

    private void traceCqe(QueuePair qp, CompletionQueue cq, boolean sq, int wqeIndex, int op, long bytes, int major,
                          int minor) {
        TraceEvent t = trace.start(TraceKind.CQE);
        if (t != null) {
            t.text("action", sq ? "sq_completion" : "rq_completion").num("qp", qp.id()).num("cq", cq.id())
                    .num("wqe", wqeIndex).hex("op", op).num("bytes", bytes).hex("major", major).hex("minor", minor)
                    .emit();
        }
    }

    /** Completions that could not be written (no CQ, CQ full, ring unmapped). */
    long dropped() {
        return dropped;
    }
}
