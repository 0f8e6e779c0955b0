package dev.irdmaemu.model.roce;

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
    private final CqTable cqs;
    private final Cqe cqe = new Cqe();
    private long lost;

    SendCompletionWriter(CqTable cqs) {
        this.cqs = cqs;
    }

    void sent(QueuePair qp, int wqeIndex, int opcode) {
        if (!cqs.wrapNextSlot(qp.txCq(), qp.id(), cqe)) {
            lost++;
            return;
        }
        CompletionQueue cq = cqs.get(qp.txCq());
        cqe.clear().completionContext(qp.completionContext()).qpId(qp.id()).wqeIndex(wqeIndex).opType(opcode).sq(true)
                .valid(cq.polarity(0));
        cq.produced(1, false);
    }

    /** Completions that could not be written. */
    long lost() {
        return lost;
    }
}
