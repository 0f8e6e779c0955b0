package dev.irdmaemu.model;

import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.sim.SimTimer;
import dev.irdmaemu.model.iwarp.IwarpDataPath;
import dev.irdmaemu.model.roce.RoceDataPath;
import dev.irdmaemu.model.puda.PudaQueues;
import dev.irdmaemu.model.qp.CompletionQueue;
import dev.irdmaemu.model.qp.CqTable;
import dev.irdmaemu.model.qp.QpTable;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;

/**
 * The RDMA block's doorbells: PFPE_WQEALLOC (uk.c irdma_uk_qp_post_wr), PFPE_CQARM (uk.c
 * irdma_uk_cq_request_notification), PFPE_CQACK, and their aliases in the user doorbell page (verbs.c
 * irdma_alloc_ucontext / irdma_mmap). A PUDA QP's doorbell is serviced after the MMIO write and WQE fetch latency,
 * each QP once however often it was rung; an iWARP QP's goes to its engine. Doorbells that name no QP, or a QP
 * with no running engine, are counted and traced.
 */
final class Doorbells {
    private final Trace trace;
    private final LatencyTable latency;
    private final CqTable cqs;
    private final QpTable qps;
    private final IwarpDataPath iwarp;
    private final PudaQueues puda;
    private final RoceDataPath roce;
    /** The PUDA QPs rung and not yet serviced, in ring order, each once. */
    private final int[] pudaQueue;
    private final boolean[] pudaPending;
    private int pudaHead;
    private int pudaCount;
    private final SimTimer pudaTimer;
    private long ignored;
    private long pageReads;

    /** The timer is made here: built inside the function's timer ownership, so a reset disarms it. */
    Doorbells(SimScheduler scheduler, Trace trace, LatencyTable latency, CqTable cqs, QpTable qps,
              IwarpDataPath iwarp, PudaQueues puda, RoceDataPath roce) {
        this.roce = roce;
        this.trace = trace;
        this.latency = latency;
        this.cqs = cqs;
        this.qps = qps;
        this.iwarp = iwarp;
        this.puda = puda;
        this.pudaQueue = new int[qps.capacity()];
        this.pudaPending = new boolean[qps.capacity()];
        this.pudaTimer = scheduler.newTimer("wqe-alloc", this::servicePuda);
    }

    void cqArm(int cqId) {
        CompletionQueue cq = cqs.get(cqId);
        if (cq == null || !cq.arm()) {
            TraceEvent t = trace.start(TraceKind.CQE);
            if (t != null) {
                t.text("action", "arm_ignored").num("cq", cqId).emit();
            }
        }
    }

    void cqAck(int cqId) {
        TraceEvent t = trace.start(TraceKind.CQE);
        if (t != null) {
            t.text("action", "ack").num("cq", cqId).flag("known", cqs.get(cqId) != null).emit();
        }
    }

    /**
     * The user doorbell page reads 0 (the device latches writes there, it holds nothing to read); the first read
     * is traced, every one counted.
     */
    int pageRead() {
        if (pageReads++ == 0) {
            TraceEvent t = trace.start(TraceKind.DOORBELL);
            if (t != null) {
                t.text("action", "db_page_read").emit();
            }
        }
        return 0;
    }

    /**
     * PFPE_WQEALLOC or its user doorbell page alias: the QP id (uk.c irdma_uk_qp_post_wr). PUDA QPs transmit; an
     * iWARP QP's engine fetches its SQ (a QP with no running engine, or no such QP, ignores the doorbell: counted
     * and traced).
     */
    void wqeAlloc(int value) {
        int qpId = Gen2Registers.wqeAllocQpId(value);
        QueuePair qp = qps.get(qpId);
        if (qp == null) {
            ignored(value, "no_qp");
            return;
        }
        if (qp.role().roce()) {
            if (!roce.doorbell(qp)) {
                ignored(value, "not_running");
            }
            return;
        }
        if (qp.role() == QueuePair.Role.IWARP) {
            if (!iwarp.doorbell(qp)) {
                ignored(value, "not_running");
            }
            return;
        }
        if (!pudaPending[qpId]) {
            pudaPending[qpId] = true;
            pudaQueue[(pudaHead + pudaCount) % pudaQueue.length] = qpId;
            pudaCount++;
        }
        if (!pudaTimer.isPending()) {
            pudaTimer.scheduleIn(latency.mmioWriteNanos + latency.pudaWqeFetchNanos);
        }
    }

    private void ignored(int value, String reason) {
        ignored++;
        TraceEvent t = trace.start(TraceKind.DOORBELL);
        if (t != null) {
            t.text("action", "wqe_alloc_ignored").hex("val", value & 0xffff_ffffL).text("reason", reason).emit();
        }
    }

    private void servicePuda() {
        while (pudaCount > 0) {
            int qpId = pudaQueue[pudaHead];
            pudaHead = (pudaHead + 1) % pudaQueue.length;
            pudaCount--;
            pudaPending[qpId] = false;
            QueuePair qp = qps.get(qpId);
            if (qp != null) {
                puda.transmit(qp);
            }
        }
    }

    /** WQEALLOC doorbells ignored (no such QP, or no running engine). */
    long ignored() {
        return ignored;
    }

    /** Reads of the user doorbell page's doorbells (all answered 0; the first traced). */
    long pageReads() {
        return pageReads;
    }
}
