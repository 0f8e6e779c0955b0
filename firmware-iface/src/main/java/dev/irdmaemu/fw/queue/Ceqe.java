package dev.irdmaemu.fw.queue;

import dev.irdmaemu.fw.Flyweight;

/**
 * Flyweight over one 8-byte completion event queue entry (user.h IRDMA_CEQE_SIZE = 1 quadword):
 * IRDMA_CEQE_CQCTX [62:0] carries the CQ id, IRDMA_CEQE_VALID is bit 63 (defs.h). irdma_sc_process_ceq reads
 * the quadword, compares bit 63 with the ring polarity, keeps the low 32 bits as the CQ index and skips entries
 * whose index is not below the committed CQ count (or is IRDMA_INVALID_CQ_IDX, written by
 * irdma_sc_cleanup_ceqes for a destroyed CQ).
 */
public final class Ceqe extends QuadView implements Flyweight<Ceqe> {
    public static final int SIZE = 8;
    public static final int BIT_VALID = 63;
    /** irdma.h IRDMA_INVALID_CQ_IDX. */
    public static final long INVALID_CQ_IDX = 0xffff_ffffL;

    public CqeCheck validate(boolean polarity) {
        return checkPolled(SIZE, 0, BIT_VALID, polarity);
    }

    /** IRDMA_CEQE_CQCTX [62:0]. */
    public long cqContext() {
        return get(qword(0), 62, 0);
    }

    /** The CQ index as irdma_sc_process_ceq takes it: the low 32 bits, unsigned. */
    public long cqIndex() {
        return qword(0) & 0xffff_ffffL;
    }

    public boolean valid() {
        return bit(qword(0), BIT_VALID);
    }

    /** Writes the whole entry in one quadword store: CQ id and valid bit together. */
    public Ceqe write(long cqId, boolean valid) {
        requireRoom(SIZE, "CEQE");
        putQOrdered(0, prep(cqId, 62, 0) | flag(valid, BIT_VALID));
        return this;
    }
}
