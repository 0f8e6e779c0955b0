package dev.irdmaemu.model.cqp;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.queue.Aeqe;
import dev.irdmaemu.fw.queue.Ceqe;
import dev.irdmaemu.model.eq.AsyncEventQueue;
import dev.irdmaemu.model.eq.CompletionEventQueue;
import dev.irdmaemu.model.hmc.RingPages;

/**
 * The event-queue family of CQP ops (ctrl.c irdma_sc_ceq_create / irdma_sc_ceq_destroy, irdma_sc_aeq_create /
 * irdma_sc_aeq_destroy): the CEQs by id below max_ceqs, in physically contiguous rings only
 * (irdma never maps a CEQ through a PBL, so VIRTMAP answers UNSUPPORTED_FIELD), and the function's one AEQ,
 * contiguous or PBL-mapped (hw.c irdma_create_virt_aeq).
 */
final class EventQueueOps {
    private final HostMemory memory;
    private final CompletionEventQueue[] ceqs;
    private final AsyncEventQueue aeq;
    private final RingMapping rings;
    /** The AEQ's page list while the create op resolves it. */
    private final RingPages ringScratch = new RingPages();

    EventQueueOps(HostMemory memory, CompletionEventQueue[] ceqs, AsyncEventQueue aeq, RingMapping rings) {
        this.memory = memory;
        this.ceqs = ceqs;
        this.aeq = aeq;
        this.rings = rings;
    }

    void createCeq(CqpWqe w, CqpResult r) {
        int id = w.eqId();
        int n = w.eqElementCount();
        if (id < 0 || id >= ceqs.length) {
            r.fail(CqpFault.INDEX_OUT_OF_RANGE, "CEQ id beyond max_ceqs");
        } else if (ceqs[id].live()) {
            r.fail(CqpFault.OBJECT_IN_USE, "CEQ exists");
        } else if (w.eqVirtualMap()) {
            r.fail(CqpFault.UNSUPPORTED_FIELD, "PBL-mapped CEQ");
        } else if (n <= 0) {
            r.fail(CqpFault.INVALID_FIELD, "CEQ of 0 elements");
        } else if (!memory.contains(w.eqAddress(), (long) n * Ceqe.SIZE)) {
            r.fail(CqpFault.DMA_FAULT, "CEQ ring outside mapped memory");
        } else {
            ceqs[id].create(w.eqAddress(), n);
        }
    }

    void destroyCeq(CqpWqe w, CqpResult r) {
        int id = w.eqId();
        if (id < 0 || id >= ceqs.length) {
            r.fail(CqpFault.INDEX_OUT_OF_RANGE, "CEQ id beyond max_ceqs");
        } else if (!ceqs[id].live()) {
            r.fail(CqpFault.NO_SUCH_OBJECT, "no such CEQ");
        } else {
            ceqs[id].destroy();
        }
    }

    void createAeq(CqpWqe w, CqpResult r) {
        int n = w.eqElementCount();
        if (aeq.live()) {
            r.fail(CqpFault.OBJECT_IN_USE, "AEQ exists");
        } else if (n <= 0) {
            r.fail(CqpFault.INVALID_FIELD, "AEQ of 0 elements");
        } else if (w.eqVirtualMap()) {
            // hw.c irdma_create_virt_aeq: the ring's pages in a level-1 PBL, chunk size 1
            if (rings.mapRing(ringScratch, w.pblChunkSize(), w.eqFirstPmPblIndex(), (long) n * Aeqe.SIZE, r)) {
                aeq.create(ringScratch, n);
            }
        } else if (!memory.contains(w.eqAddress(), (long) n * Aeqe.SIZE)) {
            r.fail(CqpFault.DMA_FAULT, "AEQ ring outside mapped memory");
        } else {
            aeq.create(w.eqAddress(), n);
        }
    }

    void destroyAeq(CqpResult r) {
        if (!aeq.live()) {
            r.fail(CqpFault.NO_SUCH_OBJECT, "no AEQ");
        } else {
            aeq.destroy();
        }
    }

}
