package dev.irdmaemu.model.qp;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.CqeExtension;
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

    /**
     * Wraps {@code cqe} on the next slot of CQ {@code cqId} for one completion of QP {@code qpId}: true when it may be
     * written (the caller fills it, sets its valid bit to {@link CompletionQueue#polarity polarity(0)} and calls
     * {@link CompletionQueue#produced produced}); false when the completion is lost: no such CQ or its slot not in
     * guest memory (each raises its AE through {@link #lost}), or the CQ full (its overflow AE), as a CQ is looked
     * up and written for the SQ's completions of uk.c irdma_uk_cq_poll_cmpl. Allocation-free.
     */
    public boolean wrapNextSlot(int cqId, int qpId, Cqe cqe) {
        CompletionQueue cq = get(cqId);
        if (cq == null) {
            lost(Loss.NO_CQ, cqId, qpId);
            return false;
        }
        if (!cq.hasRoom(1)) {
            cq.overflow();
            return false;
        }
        long gpa = cq.slotAddress(0);
        int r = memory.find(gpa, Cqe.SIZE);
        if (r < 0) {
            lost(Loss.CQE_UNMAPPED, cq.id(), qpId);
            return false;
        }
        cqe.wrap(memory.store(r), memory.offset(r, gpa), Cqe.SIZE);
        return true;
    }

    /**
     * Wraps {@code cqe} and {@code ext} on the next two slots of {@code cq} for an extended receive completion of QP
     * {@code qpId} and writes the extension's link fields from the received frame {@code eth}: its source MAC and,
     * when tagged, its 802.1Q TCI (uk.c irdma_uk_cq_poll_cmpl reads both from the extension). False, with the
     * CQE_UNMAPPED loss raised, when either slot is not in guest memory; the caller checked the room for two.
     * The caller fills the rest and sets both valid bits. Allocation-free.
     */
    public boolean wrapReceiveSlots(CompletionQueue cq, int qpId, EthernetFrame eth, Cqe cqe, CqeExtension ext) {
        long baseGpa = cq.slotAddress(0);
        long extGpa = cq.slotAddress(1);
        int cr = memory.find(baseGpa, Cqe.SIZE);
        int er = memory.find(extGpa, CqeExtension.SIZE);
        if (cr < 0 || er < 0) {
            lost(Loss.CQE_UNMAPPED, cq.id(), qpId);
            return false;
        }
        ext.wrap(memory.store(er), memory.offset(er, extGpa), CqeExtension.SIZE).clear();
        if (eth.hasVlanTag()) {
            ext.vlan(eth.pcp() << 13 | (eth.dei() ? 1 << 12 : 0) | eth.vlanId());
        }
        ext.sourceMac(eth.source());
        cqe.wrap(memory.store(cr), memory.offset(cr, baseGpa), Cqe.SIZE);
        return true;
    }

    /** Completions lost for {@code why}. */
    public long losses(Loss why) {
        return losses[why.ordinal()];
    }

    public CompletionQueue ccq() {
        return get(CCQ_ID);
    }
}
