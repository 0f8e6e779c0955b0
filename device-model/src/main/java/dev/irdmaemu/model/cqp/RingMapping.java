package dev.irdmaemu.model.cqp;

import static dev.irdmaemu.model.cqp.CqpOperations.MAX_MAPPED_RING_PAGES;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.hmc.PbleLayout;
import dev.irdmaemu.model.eq.AsyncEventQueue;
import dev.irdmaemu.model.hmc.HmcFunction;
import dev.irdmaemu.model.hmc.PbleWalker;
import dev.irdmaemu.model.hmc.RingPages;
import dev.irdmaemu.model.qp.CompletionQueue;
import dev.irdmaemu.model.qp.CqTable;
import dev.irdmaemu.model.qp.QpTable;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;

/**
 * The page lists of PBL-mapped rings (VIRTMAP / VQ: verbs.c irdma_create_cq and irdma_setup_virt_qp, hw.c
 * irdma_create_virt_aeq), resolved once when the CQ, QP or AEQ create op runs, through the HMC PBLE object into
 * a {@link RingPages}. Bounds the page lists the model keeps over all live rings by
 * {@link CqpOperations#MAX_MAPPED_RING_PAGES}.
 */
final class RingMapping {
    /** LPBLSIZE 2 of the CQ / CEQ / AEQ ops: two PBL levels (the STag ops' code for two levels is 3). */
    static final int QUEUE_CHUNK_LEVEL_2 = 2;

    private final HostMemory memory;
    private final Trace trace;
    private final PbleWalker pbles;
    private final AsyncEventQueue aeq;
    private final CqTable cqs;
    private final QpTable qps;

    RingMapping(HostMemory memory, Trace trace, HmcFunction hmc, AsyncEventQueue aeq, CqTable cqs, QpTable qps) {
        this.memory = memory;
        this.trace = trace;
        this.pbles = new PbleWalker(memory, hmc);
        this.aeq = aeq;
        this.cqs = cqs;
        this.qps = qps;
    }

    /**
     * Resolves the page list of a ring of {@code bytes} whose PBL starts at PBLE {@code first} into {@code into}.
     * {@code chunkCode} is the op's LPBLSIZE: 1 one level (the only code irdma writes for queues: verbs.c
     * irdma_create_cq, hw.c irdma_create_aeq), 2 two levels (the queue ops' two-level code, see
     * {@link CqpWqe#pblChunkSize()}); 0 with VIRTMAP names no PBL and is refused. False with the CQP error: a
     * PBLE beyond the committed count is out of range, an unbacked PBLE an HMC fault, an unmapped page a DMA fault.
     */
    boolean mapRing(RingPages into, int chunkCode, long first, long bytes, CqpResult r) {
        if (chunkCode != PbleLayout.CHUNK_LEVEL_1 && chunkCode != QUEUE_CHUNK_LEVEL_2) {
            r.fail(CqpFault.INVALID_FIELD, "VIRTMAP with an LPBLSIZE that names no PBL level");
            return false;
        }
        long pages = (bytes + RingPages.PAGE_SIZE - 1) / RingPages.PAGE_SIZE;
        if (pages > MAX_MAPPED_RING_PAGES - mappedRingPages()) {
            // a two-level PBL may name one page many times: the page lists the model copies are bounded here
            r.fail(CqpFault.TABLE_FULL, "the model's cache of ring page lists is full");
            return false;
        }
        RingPages.Fault f = into.map(pbles, memory, chunkCode == QUEUE_CHUNK_LEVEL_2, first, bytes);
        CqpFault c = switch (f) {
            case NONE -> CqpFault.NONE;
            case INDEX_OUT_OF_RANGE -> CqpFault.INDEX_OUT_OF_RANGE;
            case PBLE_NOT_RESOLVED -> CqpFault.HMC_NOT_READY;
            case PAGE_NOT_MAPPED -> CqpFault.DMA_FAULT;
            case EMPTY_RING -> CqpFault.INVALID_FIELD;
        };
        if (c.isError()) {
            r.fail(c, f.describe());
            TraceEvent t = trace.start(TraceKind.HMC);
            if (t != null) {
                t.text("ring_fault", f.name()).num("first_pble", first).num("page", into.faultPage()).emit();
            }
            return false;
        }
        return true;
    }

    /** Pages of the PBL-mapped rings the live CQs, QPs and the AEQ hold (allocation-free, CQP-op time only). */
    long mappedRingPages() {
        long n = aeq.ringPages().pageCount();
        for (int i = 0; i < cqs.capacity(); i++) {
            CompletionQueue cq = cqs.get(i);
            if (cq != null) {
                n += cq.ringPages().pageCount();
            }
        }
        for (int i = 0; i < qps.capacity(); i++) {
            QueuePair qp = qps.get(i);
            if (qp != null) {
                n += qp.sqRing().pageCount() + qp.rqRing().pageCount();
            }
        }
        return n;
    }

}
