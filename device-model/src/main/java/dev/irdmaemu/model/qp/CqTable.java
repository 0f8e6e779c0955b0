package dev.irdmaemu.model.qp;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.model.hmc.RingPages;

/**
 * The CQs by id. CQ 0 is the control CQ (hw.c irdma_create_ccq leaves cq_id 0); the CQP engine completes into it
 * once it exists. Ids are bounded by the committed HMC CQ count, checked by the caller.
 */
public final class CqTable {
    public static final int CCQ_ID = 0;

    /** Why a completion could not be written (each counted, traced as completion_lost, and raising an AE). */
    public enum Loss {
        NO_CQ("the CQ the queue names does not exist"),
        CQE_UNMAPPED("the CQE slot is outside mapped host memory");

        private final String text;

        Loss(String text) {
            this.text = text;
        }

        public String describe() {
            return text;
        }
    }

    private final long[] losses = new long[Loss.values().length];

    private final HostMemory memory;
    private final CompletionQueue.CqEvents events;
    private final CompletionQueue[] cqs;
    private int live;

    public CqTable(HostMemory memory, CompletionQueue.CqEvents events, int capacity) {
        this.memory = memory;
        this.events = events;
        this.cqs = new CompletionQueue[capacity];
    }

    public int capacity() {
        return cqs.length;
    }

    /** The live CQ {@code id}, or null. */
    public CompletionQueue get(int id) {
        if (id < 0 || id >= cqs.length) {
            return null;
        }
        CompletionQueue cq = cqs[id];
        return cq != null && cq.live() ? cq : null;
    }

    public CompletionQueue create(int id, long ring, int entries, long shadow, int ceq, boolean ceqValid,
                                  boolean overflowCheck, boolean avoidMemConflict) {
        CompletionQueue cq = cqs[id];
        if (cq == null) {
            cq = new CompletionQueue(id, memory, events);
            cqs[id] = cq;
        }
        cq.create(ring, entries, shadow, ceq, ceqValid, overflowCheck, avoidMemConflict);
        live++;
        return cq;
    }

    /** Create / resize with VIRTMAP: the page list the CQP op resolved replaces the ring address. */
    public void mapRing(CompletionQueue cq, RingPages pages) {
        cq.mapRing(pages);
    }

    public void modify(CompletionQueue cq, int entries, long ring) {
        cq.modify(entries, ring);
    }

    public void destroy(CompletionQueue cq) {
        cq.destroy();
        live--;
    }

    public int liveCount() {
        return live;
    }

    /**
     * A producer could not write its completion into CQ {@code cqId} (for QP {@code qpId}, -1 for the CQP's CCQ):
     * counted, and handed to the events (trace and the AE the hardware raises).
     */
    public void lost(Loss why, int cqId, int qpId) {
        losses[why.ordinal()]++;
        events.cqLost(cqId, qpId, why);
    }

    /** Completions lost for {@code why}. */
    public long losses(Loss why) {
        return losses[why.ordinal()];
    }

    public CompletionQueue ccq() {
        return get(CCQ_ID);
    }
}
