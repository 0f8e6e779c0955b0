package dev.irdmaemu.model.roce;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.model.qp.CompletionQueue;
import dev.irdmaemu.model.qp.CqTable;
import dev.irdmaemu.model.qp.QueuePair;

/**
 * The SQ completion of a UD send, as uk.c irdma_uk_cq_poll_cmpl reads it: the QP's completion context, IRDMACQ_QPID,
 * the WQE's first quantum in IRDMA_CQ_WQEIDX, its IRDMAQP_OP_* in IRDMACQ_OP, IRDMA_CQ_SQ. A CQ that is missing,
 * full or unmapped loses the completion with its AE ({@link CqTable#lost}, the overflow AE). Allocation-free.
 */
final class SendCompletionWriter {
    private final HostMemory memory;
    private final CqTable cqs;
    private final Cqe cqe = new Cqe();
    private long lost;

    SendCompletionWriter(HostMemory memory, CqTable cqs) {
        this.memory = memory;
        this.cqs = cqs;
    }

    void sent(QueuePair qp, int wqeIndex, int opcode) {
        CompletionQueue cq = cqs.get(qp.txCq());
        if (cq == null) {
            lost++;
            cqs.lost(CqTable.Loss.NO_CQ, qp.txCq(), qp.id());
            return;
        }
        if (!cq.hasRoom(1)) {
            lost++;
            cq.overflow();
            return;
        }
        long gpa = cq.slotAddress(0);
        int r = memory.find(gpa, Cqe.SIZE);
        if (r < 0) {
            lost++;
            cqs.lost(CqTable.Loss.CQE_UNMAPPED, cq.id(), qp.id());
            return;
        }
        cqe.wrap(memory.store(r), memory.offset(r, gpa), Cqe.SIZE).clear().completionContext(qp.completionContext())
                .qpId(qp.id()).wqeIndex(wqeIndex).opType(opcode).sq(true).valid(cq.polarity(0));
        cq.produced(1, false);
    }

    /** Completions that could not be written. */
    long lost() {
        return lost;
    }
}
