package dev.irdmaemu.model.qp;

import dev.irdmaemu.fw.bus.HostMemory;

/**
 * The CQs by id. CQ 0 is the control CQ (hw.c irdma_create_ccq leaves cq_id 0); the CQP engine completes into it
 * once it exists. Ids are bounded by the committed HMC CQ count, checked by the caller.
 */
public final class CqTable {
    public static final int CCQ_ID = 0;

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

    public CompletionQueue ccq() {
        return get(CCQ_ID);
    }
}
