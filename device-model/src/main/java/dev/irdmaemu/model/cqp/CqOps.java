package dev.irdmaemu.model.cqp;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.model.hmc.RingPages;
import dev.irdmaemu.model.qp.CompletionQueue;
import dev.irdmaemu.model.qp.CqTable;

/**
 * The CQ family of CQP ops (ctrl.c irdma_sc_cq_create, irdma_sc_cq_modify (a resize, irdma_sc_cq_resize),
 * irdma_sc_cq_destroy): the CQ's HMC object, its ring (contiguous, or PBL-mapped through {@link RingMapping}) and
 * shadow area in host memory, its CEQ, into {@link CqTable}.
 */
final class CqOps {
    private final HostMemory memory;
    private final HmcOps hmcOps;
    private final CqTable cqs;
    private final int ceqCount;
    private final RingMapping rings;
    /** The ring's page list while a create or resize resolves it. */
    private final RingPages ringScratch = new RingPages();

    CqOps(HostMemory memory, HmcOps hmcOps, CqTable cqs, int ceqCount, RingMapping rings) {
        this.memory = memory;
        this.hmcOps = hmcOps;
        this.cqs = cqs;
        this.ceqCount = ceqCount;
        this.rings = rings;
    }

    void createCq(CqpWqe w, CqpResult r) {
        int id = w.cqId();
        long size = w.cqSize();
        int stride = w.cqAvoidMemConflict() ? 64 : 32;
        if (!hmcOps.objectResolves(HmcObjectType.CQ, id, r)) {
            return;
        }
        if (id >= cqs.capacity()) {
            r.fail(CqpFault.INDEX_OUT_OF_RANGE, "CQ id beyond the model's table");
        } else if (cqs.get(id) != null) {
            r.fail(CqpFault.OBJECT_IN_USE, "CQ exists");
        } else if (size < 2) {
            r.fail(CqpFault.INVALID_FIELD, "CQ of fewer than 2 entries");
        } else if (w.cqCeqIdValid() && w.cqCeqId() >= ceqCount) {
            r.fail(CqpFault.INDEX_OUT_OF_RANGE, "CEQ id beyond max_ceqs");
        } else if (!w.cqVirtualMap() && !memory.contains(w.cqAddress(), size * stride)) {
            r.fail(CqpFault.DMA_FAULT, "CQ ring outside mapped memory");
        } else if (!memory.contains(w.cqShadowAreaAddress(), CompletionQueue.SHADOW_AREA_SIZE)) {
            r.fail(CqpFault.DMA_FAULT, "CQ shadow area outside mapped memory");
        } else if (!w.cqVirtualMap()
                || rings.mapRing(ringScratch, w.pblChunkSize(), w.cqFirstPmPblIndex(), size * stride, r)) {
            // verbs.c irdma_create_cq (user CQ of more than one page): VIRTMAP, chunk size 1, first PBLE index
            CompletionQueue cq = cqs.create(id, w.cqAddress(), (int) size, w.cqShadowAreaAddress(), w.cqCeqId(),
                    w.cqCeqIdValid(), w.cqCheckOverflow(), w.cqAvoidMemConflict());
            if (w.cqVirtualMap()) {
                cqs.mapRing(cq, ringScratch);
            }
        }
    }

    void modifyCq(CqpWqe w, CqpResult r) {
        CompletionQueue cq = existing(w.cqId(), r);
        if (cq == null) {
            return;
        }
        if (w.cqResize()) {
            long size = w.cqSize();
            if (size < 2) {
                r.fail(CqpFault.INVALID_FIELD, "CQ of fewer than 2 entries");
            } else if (!w.cqVirtualMap() && !memory.contains(w.cqAddress(), size * cq.stride())) {
                r.fail(CqpFault.DMA_FAULT, "resized CQ ring outside mapped memory");
            } else if (!w.cqVirtualMap()) {
                cqs.modify(cq, (int) size, w.cqAddress());
            } else if (rings.mapRing(ringScratch, w.pblChunkSize(), w.cqFirstPmPblIndex(), size * cq.stride(), r)) {
                // ctrl.c irdma_sc_cq_resize: the new ring by its first PBLE index
                cqs.modify(cq, (int) size, 0);
                cqs.mapRing(cq, ringScratch);
            }
        }
    }

    void destroyCq(CqpWqe w, CqpResult r) {
        CompletionQueue cq = existing(w.cqId(), r);
        if (cq != null) {
            cqs.destroy(cq);
        }
    }

    /** The live CQ {@code id}, or null when there is none: then the op fails (no such object). */
    private CompletionQueue existing(int id, CqpResult r) {
        CompletionQueue cq = cqs.get(id);
        if (cq == null) {
            r.fail(CqpFault.NO_SUCH_OBJECT, "no such CQ");
        }
        return cq;
    }

}
