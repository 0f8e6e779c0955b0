package dev.irdmaemu.model.eq;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.queue.Ceqe;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;

/**
 * One CEQ: a ring of 8-byte CEQEs in host memory (created by Create CEQ, ctrl.c irdma_sc_ceq_create). Each entry
 * names a CQ that has a new completion; the driver (irdma_sc_process_ceq) consumes by valid bit. The driver never
 * tells the device how far it has read, so the ring simply wraps.
 */
public final class CompletionEventQueue {
    private final int id;
    private final HostMemory memory;
    private final Trace trace;
    private final InterruptController irq;
    private final Ceqe ceqe = new Ceqe();
    private final RingCursor cursor = new RingCursor();
    private long ringAddress;
    private boolean live;
    private long posted;
    private long dmaFaults;

    public CompletionEventQueue(int id, HostMemory memory, Trace trace, InterruptController irq) {
        this.id = id;
        this.memory = memory;
        this.trace = trace;
        this.irq = irq;
    }

    public void create(long address, int elements) {
        ringAddress = address;
        cursor.reset(elements);
        live = true;
        posted = 0;
    }

    public void destroy() {
        live = false;
    }

    public boolean live() {
        return live;
    }

    public int id() {
        return id;
    }

    public long ringAddress() {
        return ringAddress;
    }

    public int size() {
        return cursor.size();
    }

    /** Posts a CEQE for {@code cqId} and raises the CEQ's interrupt cause. False when the ring is not mapped. */
    public boolean post(int cqId) {
        if (!live) {
            return false;
        }
        long gpa = ringAddress + (long) cursor.index() * Ceqe.SIZE;
        int r = memory.find(gpa, Ceqe.SIZE);
        if (r < 0) {
            dmaFaults++;
            return false;
        }
        ceqe.wrap(memory.store(r), memory.offset(r, gpa), Ceqe.SIZE).write(cqId, cursor.polarity());
        TraceEvent t = trace.start(TraceKind.CEQE);
        if (t != null) {
            t.num("ceq", id).num("idx", cursor.index()).num("cq", cqId).flag("valid", cursor.polarity()).emit();
        }
        cursor.advance();
        posted++;
        irq.ceqCause(id);
        return true;
    }

    public long posted() {
        return posted;
    }

    public long dmaFaults() {
        return dmaFaults;
    }
}
