package dev.irdmaemu.driver.verbs;

import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.driver.PbleResource;

/**
 * The pages of a queue ring created the way verbs.c creates a user-space consumer's CQ or QP: the buffer is pinned
 * page by page (ib_umem; here single 4 KiB pages taken from host RAM and used in descending order, so they are not
 * physically contiguous), and when the ring needs more than one page (a CQ) or its SQ and RQ more than two (a QP)
 * and the pages are not contiguous, their addresses go into a level-1 PBL in the HMC PBLE object
 * (irdma_reg_user_mr_type_cq / _qp, irdma_handle_q_mem, irdma_check_mem_contiguous) and the queue is created with
 * VIRTMAP / VQ and its first PBLE index. Otherwise the device gets the first page's address.
 */
final class PinnedRing {
    final long[] pages;
    /** The level-1 PBL naming {@link #pages} in order, or null when the device is given physical addresses. */
    PbleResource.Allocation pbl;

    private PinnedRing(long[] pages) {
        this.pages = pages;
    }

    /** Pins {@code n} pages; null (nothing held) when host RAM has no room. */
    static PinnedRing pin(IrdmaDriver driver, int n) {
        long[] p = new long[n];
        for (int i = 0; i < n; i++) {
            try {
                p[n - 1 - i] = driver.ram().allocate(QueueMemory.PAGE_SIZE);
            } catch (IllegalStateException e) {
                for (int j = 0; j < i; j++) {
                    driver.ram().free(p[n - 1 - j], QueueMemory.PAGE_SIZE);
                }
                return null;
            }
        }
        return new PinnedRing(p);
    }

    /** verbs.c irdma_check_mem_contiguous: pages {@code [from, from + n)} follow each other. */
    boolean contiguous(int from, int n) {
        for (int i = 1; i < n; i++) {
            if (pages[from + i] != pages[from] + (long) i * QueueMemory.PAGE_SIZE) {
                return false;
            }
        }
        return true;
    }

    /**
     * verbs.c irdma_setup_pbles with PBLE_LEVEL_1 only: a run of PBLEs for every pinned page, written in order.
     * False when the PBLE pool has no run that long (irdma answers -ENOMEM).
     */
    boolean registerPbl(PbleResource pbles) {
        PbleResource.Allocation a = pbles.allocate(pages.length, false);
        if (a == null) {
            return false;
        }
        for (int i = 0; i < pages.length; i++) {
            pbles.writePage(a, i, pages[i]);
        }
        pbl = a;
        return true;
    }

    /** The driver's view of pages {@code [from, from + n)} as one ring. */
    QueueMemory memory(IrdmaDriver driver, int from, int n) {
        long[] offsets = new long[n];
        for (int i = 0; i < n; i++) {
            offsets[i] = driver.offsetOf(pages[from + i]);
        }
        return QueueMemory.paged(offsets);
    }

    /** Guest-physical address of byte {@code offset} from page {@code from}. */
    long address(int from, long offset) {
        return pages[from + (int) (offset >>> QueueMemory.PAGE_SHIFT)] + (offset & (QueueMemory.PAGE_SIZE - 1));
    }

    /** Unpins the pages and gives the PBLEs back (verbs.c irdma_free_pble / ib_umem_release). */
    void release(IrdmaDriver driver, PbleResource pbles) {
        if (pbl != null) {
            pbles.free(pbl);
            pbl = null;
        }
        for (long p : pages) {
            driver.ram().free(p, QueueMemory.PAGE_SIZE);
        }
    }

    static int pagesFor(long bytes) {
        return (int) ((bytes + QueueMemory.PAGE_SIZE - 1) >>> QueueMemory.PAGE_SHIFT);
    }
}
