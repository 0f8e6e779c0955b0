package dev.irdmaemu.driver.verbs;

/**
 * Where the driver finds byte {@code n} of one of its queue rings in the host store: one buffer (a kernel
 * consumer's dma_alloc_coherent ring), or pages pinned one by one (a user-space ring as ib_umem pins it, which
 * verbs.c hands the device through a PBL when it is not contiguous). No entry straddles a page: CQEs and the
 * 256-byte SQ chunks (IRDMA_MAX_QUANTA_PER_WR) divide 4 KiB. Allocation-free after construction.
 */
final class QueueMemory {
    static final int PAGE_SHIFT = 12;
    static final int PAGE_SIZE = 1 << PAGE_SHIFT;

    private final long base;
    private final long[] pages;

    private QueueMemory(long base, long[] pages) {
        this.base = base;
        this.pages = pages;
    }

    /** A ring at store offset {@code base}. */
    static QueueMemory contiguous(long base) {
        return new QueueMemory(base, null);
    }

    /** A ring on the pages at store offsets {@code pageOffsets}, in ring order (the array is kept). */
    static QueueMemory paged(long[] pageOffsets) {
        return new QueueMemory(0, pageOffsets);
    }

    /** Store offset of byte {@code offset} of the ring. */
    long at(long offset) {
        return pages == null ? base + offset : pages[(int) (offset >>> PAGE_SHIFT)] + (offset & (PAGE_SIZE - 1));
    }

    boolean paged() {
        return pages != null;
    }
}
