package dev.irdmaemu.model.eq;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.queue.Aeqe;
import dev.irdmaemu.model.hmc.RingPages;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;

/**
 * The AEQ: a ring of 16-byte AEQEs in host memory (Create AEQ, ctrl.c irdma_sc_aeq_create). The driver hands
 * consumed entries back by writing their number to PFPE_AEQALLOC (ctrl.c irdma_sc_repost_aeq_entries); the device
 * writes only while it holds credit, and when it has none it counts the event as lost and sets the overflow bit of
 * the next entry it writes.
 *
 * <p>What the sources fix about an overflow is the driver's side only: bit 33 of the AEQE's second quadword
 * (defs.h IRDMA_AEQE_OVERFLOW, read by ctrl.c irdma_sc_get_next_aeqe), on which hw.c irdma_process_aeq logs "AEQ
 * has overflowed", requests a reset and stops the pass (handing up neither that AEQE's event nor reposting the
 * pass's entries). Which entry the hardware marks, and whether it also writes one for the lost events themselves,
 * is not derivable; the model does the least that lets a driver see the loss: the first AEQE written after one or
 * more events were lost carries the bit (that AEQE's own event is a real one, which irdma then drops), and no entry
 * is written without credit. A driver that never gives credit back never sees the bit.
 */
public final class AsyncEventQueue {
    private final HostMemory memory;
    private final Trace trace;
    private final InterruptController irq;
    private final Aeqe aeqe = new Aeqe();
    private final RingCursor cursor = new RingCursor();
    private final RingPages ring = new RingPages();
    private boolean live;
    private long credit;
    private boolean overflowed;
    private long posted;
    private long lost;

    public AsyncEventQueue(HostMemory memory, Trace trace, InterruptController irq) {
        this.memory = memory;
        this.trace = trace;
        this.irq = irq;
    }

    public void create(long address, int elements) {
        ring.contiguous(address, (long) elements * Aeqe.SIZE);
        start(elements);
    }

    /**
     * Create AEQ with VMAP (hw.c irdma_create_virt_aeq, the fallback when the coherent allocation fails): the
     * ring is the page list the CQP op resolved.
     */
    public void create(RingPages pages, int elements) {
        ring.copyFrom(pages);
        start(elements);
    }

    private void start(int elements) {
        cursor.reset(elements);
        credit = elements;
        live = true;
        overflowed = false;
    }

    public void destroy() {
        live = false;
        ring.release();
    }

    public boolean live() {
        return live;
    }

    /** The ring's first byte (its PA, or its first page when PBL-mapped). */
    public long ringAddress() {
        return ring.address(0);
    }

    public RingPages ringPages() {
        return ring;
    }

    public int size() {
        return cursor.size();
    }

    /** PFPE_AEQALLOC: the driver returns {@code count} consumed entries. */
    public void allocate(int count) {
        if (!live || count <= 0) {
            return;
        }
        credit = Math.min(cursor.size(), credit + count);
    }

    /**
     * Posts one AE. {@code context} is the QP's (or CQ's) completion context, {@code qpCqId} the object id, the
     * states as IRDMA_QP_STATE_* / IRDMA_TCP_STATE_*. False (counted as lost) when the AEQ is not live, out of
     * credit, or its ring is not mapped.
     */
    public boolean post(long context, int qpCqId, int aeCode, int source, int iwarpState, int tcpState,
                        int wqeIndex) {
        return post(context, qpCqId, aeCode, source, iwarpState, tcpState, wqeIndex, 0);
    }

    /**
     * Posts one AE with IRDMA_AEQE_Q2DATA: non-zero when the device copied the offending (or Terminate) frame into
     * the QP's Q2 buffer, which irdma then reads (ctrl.c irdma_bld_terminate_hdr, irdma_terminate_received).
     */
    public boolean post(long context, int qpCqId, int aeCode, int source, int iwarpState, int tcpState,
                        int wqeIndex, int q2Data) {
        TraceEvent t = trace.start(TraceKind.AEQE);
        if (t != null) {
            t.hex("ae", aeCode).num("id", qpCqId).num("source", source).num("iwstate", iwarpState)
                    .num("tcpstate", tcpState).num("wqe", wqeIndex).num("q2", q2Data).hex("ctx", context).flag("queued", live && credit > 0).emit();
        }
        if (!live || credit <= 0) {
            lost++;
            overflowed = true;
            return false;
        }
        long gpa = ring.address((long) cursor.index() * Aeqe.SIZE);
        int r = memory.find(gpa, Aeqe.SIZE);
        if (r < 0) {
            lost++;
            return false;
        }
        aeqe.wrap(memory.store(r), memory.offset(r, gpa), Aeqe.SIZE).write(context, qpCqId, aeCode, source,
                iwarpState, tcpState, wqeIndex, q2Data, overflowed, cursor.polarity());
        overflowed = false;
        credit--;
        cursor.advance();
        posted++;
        irq.aeqCause();
        return true;
    }

    public long posted() {
        return posted;
    }

    public long lost() {
        return lost;
    }

    public long credit() {
        return credit;
    }
}
