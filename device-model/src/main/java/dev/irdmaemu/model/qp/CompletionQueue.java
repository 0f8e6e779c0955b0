package dev.irdmaemu.model.qp;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.model.eq.RingCursor;
import dev.irdmaemu.model.hmc.RingPages;

/**
 * One CQ as the device holds it after Create CQ (ctrl.c irdma_sc_cq_create): the CQE ring in host memory, the
 * shadow area through which the driver reports its head (quadword 0, IRDMA_CQ_DBSA_CQEIDX) and its arm request
 * (quadword 4, read on a PFPE_CQARM doorbell), and the CEQ it reports to. Producers reserve slots, write the CQE
 * with the fw.queue codecs, then {@link #produced(int, boolean)}; allocation-free.
 */
public final class CompletionQueue {
    /** sizeof(struct irdma_cq_shadow_area) in bytes: 8 quadwords. */
    public static final int SHADOW_AREA_SIZE = 64;

    private final int id;
    private final HostMemory memory;
    private final CqEvents events;
    private final RingCursor cursor = new RingCursor();
    private final long[] scratch = new long[1];
    private boolean live;
    private final RingPages ring = new RingPages();
    private long shadowArea;
    private int stride;
    private int ceqId;
    private boolean ceqIdValid;
    private boolean checkOverflow;
    private boolean armed;
    private boolean armedSolicitedOnly;
    private long produced;
    /** CQEs written while the CQ was not armed, since its last notification (or creation). */
    private boolean unnotified;
    private long armCatchUps;
    private long overflows;
    private long notifications;

    /** Where a CQ reports "new completion" (a CEQE) and overflow (an AE). */
    public interface CqEvents {
        void cqNotify(int ceqId, int cqId);

        void cqOverflow(CompletionQueue cq);

        /**
         * A completion for CQ {@code cqId} (from QP {@code qpId}, -1 for the CQP) could not be written:
         * {@code why} says whether the CQ is missing or its CQE slot unmapped. The device raises the CQ's AE.
         */
        void cqLost(int cqId, int qpId, CqTable.Loss why);
    }

    CompletionQueue(int id, HostMemory memory, CqEvents events) {
        this.id = id;
        this.memory = memory;
        this.events = events;
    }

    void create(long ring, int entries, long shadow, int ceq, boolean ceqValid, boolean overflowCheck,
                boolean avoidMemConflict) {
        stride = avoidMemConflict ? 64 : 32;
        this.ring.contiguous(ring, (long) entries * stride);
        cursor.reset(entries);
        shadowArea = shadow;
        ceqId = ceq;
        ceqIdValid = ceqValid;
        checkOverflow = overflowCheck;
        armed = false;
        armedSolicitedOnly = false;
        produced = 0;
        unnotified = false;
        live = true;
    }

    void destroy() {
        live = false;
        armed = false;
        ring.release();
    }

    void modify(int entries, long ring) {
        this.ring.contiguous(ring, (long) entries * stride);
        cursor.reset(entries);
    }

    /** The ring is PBL-mapped (VIRTMAP): {@code pages}, resolved by the CQP op, replaces the ring address. */
    void mapRing(RingPages pages) {
        ring.copyFrom(pages);
    }

    public int id() {
        return id;
    }

    public boolean live() {
        return live;
    }

    public int size() {
        return cursor.size();
    }

    public int stride() {
        return stride;
    }

    /** The ring's first byte (its PA, or its first page when PBL-mapped). */
    public long ringAddress() {
        return ring.address(0);
    }

    /** Where the ring lies: one buffer, or the page list resolved at create (read-only for callers). */
    public RingPages ringPages() {
        return ring;
    }

    public int ceqId() {
        return ceqId;
    }

    public boolean ceqIdValid() {
        return ceqIdValid;
    }

    public boolean armed() {
        return armed;
    }

    /** The device's next write index. */
    public int head() {
        return cursor.index();
    }

    /** Guest address of the slot {@code ahead} entries after the next free one. */
    public long slotAddress(int ahead) {
        return ring.address((long) cursor.ahead(ahead) * stride);
    }

    public int slotIndex(int ahead) {
        return cursor.ahead(ahead);
    }

    /** The valid bit to write in the slot {@code ahead} entries on. */
    public boolean polarity(int ahead) {
        return cursor.polarityAhead(ahead);
    }

    /**
     * Whether {@code n} more entries fit. Without overflow checking the device writes regardless (the driver
     * asked for that); with it, the driver's head from the shadow area must leave room (one slot kept free).
     */
    public boolean hasRoom(int n) {
        if (!checkOverflow) {
            return true;
        }
        if (!memory.readLong(shadowArea, scratch, 0)) {
            return false;
        }
        int swHead = (int) (scratch[0] & Gen2Registers.CQ_DBSA_CQEIDX) % cursor.size();
        int used = Math.floorMod(cursor.index() - swHead, cursor.size());
        return used + n <= cursor.size() - 1;
    }

    /** Records an overflow (the caller drops the completion). */
    public void overflow() {
        overflows++;
        events.cqOverflow(this);
    }

    /** {@code n} slots were written; notifies the CEQ if the CQ was armed for this completion. */
    public void produced(int n, boolean solicited) {
        for (int i = 0; i < n; i++) {
            cursor.advance();
        }
        produced++;
        if (armed && (!armedSolicitedOnly || solicited)) {
            notifyNow();
        } else {
            unnotified = true;
        }
    }

    private void notifyNow() {
        armed = false;
        unnotified = false;
        notifications++;
        if (ceqIdValid) {
            events.cqNotify(ceqId, id);
        }
    }

    /**
     * PFPE_CQARM doorbell: reads the arm word the driver just wrote in quadword 4 of the shadow area (uk.c
     * irdma_uk_cq_request_notification, ctrl.c irdma_sc_ccq_arm). False when the shadow area is unreadable.
     */
    public boolean arm() {
        if (!memory.readLong(shadowArea + Gen2Registers.CQ_SHADOW_ARM_OFFSET, scratch, 0)) {
            return false;
        }
        long w = scratch[0];
        // uk.c irdma_uk_cq_request_notification always sets ARM_NEXT_SE and adds ARM_NEXT for "any completion";
        // ARM_NEXT_SE alone asks for the next solicited completion only (IRDMA_CQ_COMPL_SOLICITED).
        boolean next = (w & Gen2Registers.CQ_DBSA_ARM_NEXT) != 0;
        boolean nextSolicited = (w & Gen2Registers.CQ_DBSA_ARM_NEXT_SE) != 0;
        if (next || nextSolicited) {
            armed = true;
            armedSolicitedOnly = !next;
            if (next && unnotified && unreaped()) {
                // The arm doorbell is a posted write: over vfio-user it reaches the device long after the driver
                // wrote it and went on to poll (rping's cq thread: req_notify, then poll until empty). A CQE the
                // device wrote in between was neither seen by that poll nor armed for, and the consumer would
                // sleep on it forever. So an arm that finds CQEs written since the last notification and not
                // yet reaped (the head the driver keeps in the shadow area, uk.c irdma_uk_cq_poll_cmpl) notifies
                // at once, as an arm does in the next-completion window on hardware. At worst the consumer
                // polls once and finds nothing.
                armCatchUps++;
                notifyNow();
            }
        }
        return true;
    }

    /** True when the driver's head (shadow area quadword 0) is behind the device's next write index. */
    private boolean unreaped() {
        if (!memory.readLong(shadowArea, scratch, 0)) {
            return true;
        }
        int swHead = (int) ((scratch[0] & Gen2Registers.CQ_DBSA_CQEIDX) % cursor.size());
        return swHead != cursor.index();
    }

    /** Arms that notified at once because CQEs were waiting unreaped (see {@link #arm}). */
    public long armCatchUps() {
        return armCatchUps;
    }

    public long producedCount() {
        return produced;
    }

    public long overflows() {
        return overflows;
    }

    public long notifications() {
        return notifications;
    }
}
