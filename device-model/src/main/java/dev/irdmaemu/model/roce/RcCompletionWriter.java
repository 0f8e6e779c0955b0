package dev.irdmaemu.model.roce;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.CqeExtension;
import dev.irdmaemu.model.qp.CompletionQueue;
import dev.irdmaemu.model.qp.CqTable;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.roce.rc.RcCompletions;
import dev.irdmaemu.model.roce.rc.RcStatus;
import dev.irdmaemu.model.roce.rc.ReceiveCompletion;
import dev.irdmaemu.model.roce.rc.SendCompletion;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;

/**
 * The CQEs of one RC QP, as uk.c irdma_uk_cq_poll_cmpl and verbs.c irdma_process_cqe read them. SQ: the WQE's
 * first quantum in IRDMA_CQ_WQEIDX (the wrid lookup), its IRDMAQP_OP_* (kept per SQ index when the WQE was
 * fetched, {@link #fetched}) in IRDMACQ_OP, IRDMA_CQ_SQ; only signaled WQEs complete (uk.c answers -EFAULT for an
 * unsignaled one). RQ: IRDMACQ_PAYLDLEN, OP 0x3e for a SEND or 0x0B (RDMA WRITE ONLY with immediate, verbs.h
 * set_ib_wc_op_rq) for a WRITE with immediate, SOEVENT, IRDMACQ_INVSTAG with IRDMACQ_STAG for SEND with
 * invalidate, and an extended CQE carrying the immediate (IMMVALID). A failed work request ends the gen2 way: one
 * CQE per queue with IRDMA_FLUSH_MAJOR_ERR and the FLUSH_* minor of its status (user.h irdma_flush_opcode); uk.c
 * then completes every WQE left on that ring from the driver's tail with it, so a second error CQE on the same
 * queue is not written until the QP leaves ERROR ({@link #rearm}). A CQ that is missing, full or unmapped loses the
 * completion ({@link CqTable#lost}, the overflow AE). Allocation-free; one per RC QP.
 */
final class RcCompletionWriter implements RcCompletions {
    /** verbs.h set_ib_wc_op_rq: the RQ CQE op that reads as IB_WC_RECV_RDMA_WITH_IMM. */
    static final int OP_WRITE_WITH_IMMEDIATE = 0x0b;

    private final HostMemory memory;
    private final CqTable cqs;
    private final Trace trace;
    private final Cqe cqe = new Cqe();
    private final CqeExtension ext = new CqeExtension();
    private final int[] sqOpcodes;
    private QueuePair qp;
    private boolean sqErrorWritten;
    private boolean rqErrorWritten;
    private long lost;

    RcCompletionWriter(HostMemory memory, CqTable cqs, Trace trace, int sqQuanta) {
        this.memory = memory;
        this.cqs = cqs;
        this.trace = trace;
        this.sqOpcodes = new int[Math.max(1, sqQuanta)];
    }

    void bind(QueuePair queuePair) {
        qp = queuePair;
    }

    /** The SQ WQE at {@code index} was handed to the requester with irdma opcode {@code opcode}. */
    void fetched(int index, int opcode) {
        sqOpcodes[index % sqOpcodes.length] = opcode;
    }

    /** The QP left ERROR: a new error may end each queue again. */
    void rearm() {
        sqErrorWritten = false;
        rqErrorWritten = false;
    }

    /** user.h irdma_flush_opcode of a failed work request's status. */
    static int flushMinor(RcStatus s) {
        return switch (s) {
            case LOCAL_LENGTH_ERROR -> 6;
            case LOCAL_PROTECTION_ERROR -> 2;
            case REMOTE_ACCESS_ERROR -> 3;
            case REMOTE_OPERATION_ERROR -> 5;
            case RETRY_EXCEEDED -> 8;
            case REMOTE_INVALID_REQUEST -> 10;
            case RNR_RETRY_EXCEEDED -> 11;
            case SUCCESS, FLUSHED -> Cqe.MINOR_FLUSH_GENERAL;
        };
    }

    @Override
    public void sendCompleted(SendCompletion c) {
        boolean failed = c.status() != RcStatus.SUCCESS;
        if (failed ? sqErrorWritten : !c.signaled()) {
            return;
        }
        int index = (int) c.workRequestId();
        CompletionQueue cq = cqs.get(qp.txCq());
        Cqe e = slot(cq, qp.txCq(), 1);
        if (e == null) {
            return;
        }
        int op = sqOpcodes[index % sqOpcodes.length];
        e.completionContext(qp.completionContext()).qpId(qp.id()).wqeIndex(index).opType(op).sq(true);
        if (failed) {
            sqErrorWritten = true;
            e.error(Cqe.MAJOR_FLUSH, flushMinor(c.status()));
        }
        e.valid(cq.polarity(0));
        cq.produced(1, false);
        traceCqe(cq, true, index, op, c.byteLength(), c.status());
    }

    @Override
    public void receiveCompleted(ReceiveCompletion c) {
        boolean failed = c.status() != RcStatus.SUCCESS;
        if (failed && rqErrorWritten) {
            return;
        }
        int index = (int) c.workRequestId();
        CompletionQueue cq = cqs.get(qp.rxCq());
        boolean extended = c.hasImmediate() && !failed;
        Cqe e = slot(cq, qp.rxCq(), extended ? 2 : 1);
        if (e == null) {
            return;
        }
        int op = c.rdmaWrite() ? OP_WRITE_WITH_IMMEDIATE : Cqe.OP_RECEIVE;
        e.payloadLength(c.byteLength()).completionContext(qp.completionContext()).qpId(qp.id()).wqeIndex(index)
                .opType(op).sq(false).solicitedEvent(c.solicited());
        if (c.hasInvalidated()) {
            e.invalidatedStag(c.invalidatedKey()).stagInvalidated(true);
        }
        if (failed) {
            rqErrorWritten = true;
            e.error(Cqe.MAJOR_FLUSH, flushMinor(c.status()));
        }
        if (extended && !writeExtension(cq, c)) {
            return;
        }
        e.extended(extended).valid(cq.polarity(0));
        cq.produced(extended ? 2 : 1, c.solicited());
        traceCqe(cq, false, index, op, c.byteLength(), c.status());
    }

    private boolean writeExtension(CompletionQueue cq, ReceiveCompletion c) {
        long gpa = cq.slotAddress(1);
        int r = memory.find(gpa, CqeExtension.SIZE);
        if (r < 0) {
            lost++;
            cqs.lost(CqTable.Loss.CQE_UNMAPPED, cq.id(), qp.id());
            return false;
        }
        ext.wrap(memory.store(r), memory.offset(r, gpa), CqeExtension.SIZE).clear()
                .immediateData(c.immediate() & 0xffff_ffffL)
                .valid(Cqe.extensionValidBit(cq.polarity(0), cq.slotIndex(1)));
        return true;
    }

    /** {@link #cqe} over the CQ's next slot, cleared, when {@code slots} slots are free; null when lost. */
    private Cqe slot(CompletionQueue cq, int cqId, int slots) {
        if (cq == null) {
            lost++;
            cqs.lost(CqTable.Loss.NO_CQ, cqId, qp.id());
            return null;
        }
        if (!cq.hasRoom(slots)) {
            lost++;
            cq.overflow();
            return null;
        }
        long gpa = cq.slotAddress(0);
        int r = memory.find(gpa, Cqe.SIZE);
        if (r < 0) {
            lost++;
            cqs.lost(CqTable.Loss.CQE_UNMAPPED, cq.id(), qp.id());
            return null;
        }
        return cqe.wrap(memory.store(r), memory.offset(r, gpa), Cqe.SIZE).clear();
    }

    private void traceCqe(CompletionQueue cq, boolean sq, int index, int op, long bytes, RcStatus status) {
        TraceEvent t = trace.start(TraceKind.CQE);
        if (t != null) {
            t.text("action", sq ? "sq_completion" : "rq_completion").num("qp", qp.id()).num("cq", cq.id())
                    .num("wqe", index).hex("op", op).num("bytes", bytes).text("status", status.name()).emit();
        }
    }

    /** Completions that could not be written. */
    long lost() {
        return lost;
    }
}
