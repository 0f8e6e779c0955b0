package dev.irdmaemu.driver.verbs;

import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.fw.reg.Bits;
import dev.irdmaemu.fw.reg.Gen2Registers;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * A completion queue of a kernel consumer (verbs.h struct irdma_cq): its CQE ring and shadow area in host memory,
 * created with the CQP Create CQ op on CEQ 0 as verbs.c irdma_create_cq does, polled as
 * uk.c irdma_uk_cq_poll_cmpl / verbs.c irdma_process_cqe do ({@link #poll}), armed through the shadow area and
 * PFPE_CQARM ({@link #requestNotify}); when a CEQE names the CQ and it was armed, the driver's interrupt handler
 * calls the consumer's completion handler (irdma_iwarp_ce_handler). Completions the driver generates for flushed
 * WQEs (utils.c irdma_generate_flush_completions) come after the ring's.
 */
public final class CompletionQueue {
    final IrdmaVerbs verbs;
    final int id;
    final CqRing ring;
    /** What the consumer asked for (ib_cq.cqe) and the ring's entries. */
    final int cqe;
    final long ringAddress;
    final long ringBytes;
    final long shadowAddress;
    /** The pinned pages of a CQ created as a user-space one ({@link IrdmaVerbs#userModeRings}), else null. */
    final PinnedRing pinned;
    private Consumer<CompletionQueue> handler;
    private boolean armed;
    private boolean lastNotifySolicited;
    /** The handler is running; a completion event meanwhile only asks for another call ({@link #handlerAgain}). */
    private boolean inHandler;
    private boolean handlerAgain;
    boolean destroyed;
    /** The QPs completing here, for the generated flush completions (grown at QP create, not per completion). */
    private QueuePair[] users = new QueuePair[2];
    private int userCount;
    private long notifications;

    CompletionQueue(IrdmaVerbs verbs, int id, int cqe, int entries, long ringAddress, long ringBytes,
                    long shadowAddress) {
        this.verbs = verbs;
        this.id = id;
        this.cqe = cqe;
        this.ringAddress = ringAddress;
        this.ringBytes = ringBytes;
        this.shadowAddress = shadowAddress;
        this.pinned = null;
        IrdmaDriver d = verbs.driver();
        this.ring = new CqRing(id, d.store(), d.offsetOf(ringAddress), entries, d.offsetOf(shadowAddress));
    }

    /** A CQ whose ring is {@code pinned} (its first page is {@link #ringAddress()}). */
    CompletionQueue(IrdmaVerbs verbs, int id, int cqe, int entries, PinnedRing pinned, long shadowAddress) {
        this.verbs = verbs;
        this.id = id;
        this.cqe = cqe;
        this.ringAddress = pinned.pages[0];
        this.ringBytes = 0;
        this.shadowAddress = shadowAddress;
        this.pinned = pinned;
        IrdmaDriver d = verbs.driver();
        this.ring = new CqRing(id, d.store(), pinned.memory(d, 0, pinned.pages.length), entries,
                d.offsetOf(shadowAddress));
    }

    /** Created with VIRTMAP: the device reaches the ring through the PBL starting at {@link #firstPbleIndex()}. */
    public boolean virtuallyMapped() {
        return pinned != null && pinned.pbl != null;
    }

    /** The first PBLE index of a VIRTMAP CQ's ring, -1 otherwise. */
    public int firstPbleIndex() {
        return virtuallyMapped() ? pinned.pbl.first : -1;
    }

    /** Guest-physical address of CQE slot {@code index} (32-byte slots). */
    public long slotAddress(int index) {
        long offset = (long) index * dev.irdmaemu.fw.queue.Cqe.SIZE;
        return pinned == null ? ringAddress + offset : pinned.address(0, offset);
    }

    public int id() {
        return id;
    }

    /** The entries the consumer asked for (at least 4). */
    public int capacity() {
        return cqe;
    }

    /** The ring's entries (irdma sizes it for the CQE pairs of gen2, verbs.c irdma_create_cq). */
    public int ringEntries() {
        return ring.size;
    }

    public long ringAddress() {
        return ringAddress;
    }

    public long shadowAreaAddress() {
        return shadowAddress;
    }

    public boolean isDestroyed() {
        return destroyed;
    }

    /** Completion-handler calls made. */
    public long notifications() {
        return notifications;
    }

    /**
     * The consumer's completion handler (ib_cq.comp_handler): called when an armed CQ gets a completion event, never
     * re-entrantly for this CQ (an event while it runs calls it again after it returns).
     */
    public CompletionQueue onCompletion(Consumer<CompletionQueue> h) {
        this.handler = h;
        return this;
    }

    /**
     * verbs.c irdma_poll_cq for one entry: a completion from the ring, or else a generated flush completion. False
     * when there is none. Allocates nothing.
     */
    public boolean poll(WorkCompletion wc) {
        if (destroyed) {
            return false;
        }
        while (true) {
            CqRing.Result r = ring.poll(wc, verbs);
            if (r == CqRing.POLLED) {
                return true;
            }
            if (r == CqRing.EMPTY) {
                return generatedCompletion(wc);
            }
        }
    }

    /** Polls up to {@code wcs.length} completions into {@code wcs}; answers how many. */
    public int poll(WorkCompletion[] wcs) {
        int n = 0;
        while (n < wcs.length && poll(wcs[n])) {
            n++;
        }
        return n;
    }

    private boolean generatedCompletion(WorkCompletion wc) {
        for (int i = 0; i < userCount; i++) {
            QueuePair qp = users[i];
            if (qp.sendCq == this && qp.flusher.generatedCompletion(wc, true)) {
                return true;
            }
            if (qp.recvCq == this && qp.flusher.generatedCompletion(wc, false)) {
                return true;
            }
        }
        return false;
    }

    /**
     * verbs.c irdma_req_notify_cq: arm for the next completion ({@code solicitedOnly} false) or the next solicited
     * one; re-arming an armed CQ does nothing unless it promotes a solicited arm. The arm word goes into the
     * shadow area (uk.c irdma_uk_cq_request_notification: sequence number + 1, ARM_NEXT_SE always set, ARM_NEXT for
     * any completion), then PFPE_CQARM. Answers true when completions are already waiting
     * (IB_CQ_REPORT_MISSED_EVENTS).
     */
    public boolean requestNotify(boolean solicitedOnly) {
        if (destroyed) {
            return false;
        }
        boolean promote = lastNotifySolicited && !solicitedOnly;
        if (!armed || promote) {
            armed = true;
            lastNotifySolicited = solicitedOnly;
            long o = verbs.driver().offsetOf(shadowAddress) + Gen2Registers.CQ_SHADOW_ARM_OFFSET;
            long w = verbs.driver().store().readLong(o);
            int seq = Bits.getInt(w, Gen2Registers.CQ_DBSA_ARM_SEQ_NUM) + 1;
            int swSelect = Bits.getInt(w, Gen2Registers.CQ_DBSA_SW_CQ_SELECT);
            verbs.driver().store().writeLong(o, Gen2Registers.cqArmWord(seq & 3, swSelect, true, !solicitedOnly));
            verbs.driver().ringCqArm(id);
        }
        return !ring.empty() || hasGenerated();
    }

    private boolean hasGenerated() {
        for (int i = 0; i < userCount; i++) {
            QueuePair qp = users[i];
            if (qp.flusher.generateSqFlush && qp.sendCq == this || qp.flusher.generateRqFlush && qp.recvCq == this) {
                return true;
            }
        }
        return false;
    }

    /**
     * hw.c irdma_iwarp_ce_handler: a CEQE named this CQ; the handler runs if the CQ was armed. An event that comes
     * while the handler runs (a CQP op in the handler runs the scheduler, whose flush timer generates completions,
     * {@link #generated}) does not call it re-entrantly: the handler is called once more when it returns.
     */
    void completionEvent() {
        if (destroyed) {
            return;
        }
        if (armed) {
            armed = false;
            notifications++;
            if (handler == null) {
                return;
            }
            if (inHandler) {
                handlerAgain = true;
                return;
            }
            inHandler = true;
            try {
                do {
                    handlerAgain = false;
                    handler.accept(this);
                } while (handlerAgain);
            } finally {
                inHandler = false;
            }
        }
    }

    /** utils.c irdma_comp_handler after generating flush completions. */
    void generated() {
        completionEvent();
    }

    void attach(QueuePair qp) {
        if (userCount == users.length) {
            users = Arrays.copyOf(users, users.length * 2);
        }
        users[userCount++] = qp;
    }

    void detach(QueuePair qp) {
        for (int i = 0; i < userCount; i++) {
            if (users[i] == qp) {
                users[i] = users[--userCount];
                users[userCount] = null;
                return;
            }
        }
    }

    /** QPs that still complete here. */
    public int users() {
        return userCount;
    }

    /** verbs.c irdma_destroy_cq: Destroy CQ and the id and memory returned. */
    public void destroy() {
        verbs.destroy(this);
    }

    @Override
    public String toString() {
        return "CQ " + id + " (" + ring.size + " entries)";
    }
}
