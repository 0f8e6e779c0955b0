package dev.irdmaemu.model.hmc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.PbleResource;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.model.DriverNode;
import dev.irdmaemu.model.PageListWriter;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link RingPages} over the PBLE object of a function the real driver brought up ({@link DriverNode}), the lists
 * written into PBLE runs taken from the driver's own PBLE resource: level-1 and two-level lists of scattered pages
 * resolve page by page in order (pble.c get_lvl1_pble / get_lvl2_pble), a PBLE's bits below 4 KiB are ignored, the
 * copy is what counts once resolved, and every bad list answers a {@link RingPages.Fault} without a mapping.
 */
class RingPagesTest {
    private static final long OUTSIDE = 0x7_0000_0000L;
    private DriverNode d;
    private PbleWalker walker;
    /** Page lists in runs of the driver's PBLE resource (pble.c irdma_get_pble, level 1 runs). */
    private PageListWriter lists;

    private PbleWalker walker() {
        if (walker == null) {
            d = new DriverNode();
            walker = new PbleWalker(d.dev.memory(), d.dev.hmc());
            PbleResource pbles = d.driver.hmc().pbles();
            lists = new PageListWriter(n -> {
                PbleResource.Allocation a = pbles.allocate((int) n, false);
                if (a == null) {
                    throw new AssertionError("no run of " + n + " PBLEs");
                }
                return a.first;
            }, (index, value) -> pbles.write((int) index, value));
        }
        return walker;
    }

    @AfterEach
    void close() {
        if (d != null) {
            d.close();
        }
    }

    /** {@code n} non-contiguous, descending 4 KiB pages (a user buffer as ib_umem pins it, page by page). */
    private long[] scatteredPages(int n) {
        long block = d.alloc(2L * n * 4096);
        long[] p = new long[n];
        for (int i = 0; i < n; i++) {
            p[i] = block + 2L * (n - 1 - i) * 4096;
        }
        return p;
    }

    private long pageList(long[] pages, boolean twoLevels) {
        return twoLevels ? lists.level2(pages) : lists.level1(pages);
    }

    @Test
    void aContiguousRingIsItsBasePlusTheOffset() {
        RingPages r = new RingPages();
        r.contiguous(0x4010_0000L, 3 * 4096);
        assertFalse(r.paged());
        assertEquals(0x4010_0000L, r.address(0));
        assertEquals(0x4010_0000L + 9000, r.address(9000));
        assertEquals(3 * 4096 - 9000, r.span(9000));
    }

    @Test
    void aLevelOneListOfScatteredPagesResolvesInOrderAndIgnoresTheLowBits() {
        PbleWalker w = walker();
        long[] pages = scatteredPages(3);
        long[] written = pages.clone();
        written[1] |= 0x123; // bits below the page: ignored as for a page frame
        long first = pageList(written, false);
        RingPages r = new RingPages();
        assertEquals(RingPages.Fault.NONE, r.map(w, d.dev.memory(), false, first, 2 * 4096 + 100));
        assertTrue(r.paged());
        assertEquals(3, r.pageCount());
        assertTrue(pages[0] > pages[1] && pages[1] - pages[2] > 4096, "descending and with gaps");
        assertEquals(pages[0] + 8, r.address(8));
        // an entry at the end of page 0 and the next one at the start of page 1: the ring crosses a page
        assertEquals(pages[0] + 4064, r.address(4064));
        assertEquals(pages[1], r.address(4096));
        assertEquals(pages[2] + 99, r.address(2 * 4096 + 99));
        assertEquals(32, r.span(4064));
        assertFalse(r.holds(3 * 4096), "beyond the resolved pages");
        assertFalse(r.holds(-32));
        // the guest rewrites the PBLEs: the resolved copy stands
        lists.write(first + 1, OUTSIDE);
        assertEquals(pages[1] + 64, r.address(4096 + 64));
    }

    @Test
    void aTwoLevelListWalksItsRootIntoEachLeaf() {
        PbleWalker w = walker();
        int n = 1100; // leaves of 512, 512 and 76 pages
        long[] pages = scatteredPages(n);
        long root = pageList(pages, true);
        RingPages r = new RingPages();
        assertEquals(RingPages.Fault.NONE, r.map(w, d.dev.memory(), true, root, (long) n * 4096));
        assertEquals(n, r.pageCount());
        for (int i : new int[] {0, 1, 511, 512, 513, 1023, 1024, 1099}) {
            assertEquals(pages[i] + 16 * (i % 256), r.address((long) i * 4096 + 16 * (i % 256)), "page " + i);
        }
        // copyFrom takes an independent copy
        RingPages copy = new RingPages();
        copy.copyFrom(r);
        assertEquals(RingPages.Fault.NONE, r.map(w, d.dev.memory(), false, pageList(scatteredPages(1), false),
                4096));
        assertEquals(pages[1099], copy.page(1099));
        assertEquals(n, copy.pageCount());
    }

    @Test
    void badListsAnswerTheirFaultAndLeaveNoMapping() {
        PbleWalker w = walker();
        var memory = d.dev.memory();
        long count = d.driver.hmc().committedCount(HmcObjectType.PBLE);
        RingPages r = new RingPages();
        assertEquals(RingPages.Fault.EMPTY_RING, r.map(w, memory, false, 0, 0));
        assertEquals(RingPages.Fault.INDEX_OUT_OF_RANGE, r.map(w, memory, false, count, 4096));
        assertEquals(RingPages.Fault.INDEX_OUT_OF_RANGE, r.map(w, memory, false, count - 1, 2 * 4096));
        assertEquals(RingPages.Fault.INDEX_OUT_OF_RANGE, r.map(w, memory, false, -1, 4096));
        assertFalse(r.paged());
        long[] pages = scatteredPages(3);
        pages[2] = OUTSIDE;
        long first = pageList(pages, false);
        assertEquals(RingPages.Fault.PAGE_NOT_MAPPED, r.map(w, memory, false, first, 3 * 4096));
        assertEquals(2, r.faultPage());
        assertFalse(r.paged());
        assertFalse(r.holds(0));
        // the ring ends before the bad page: it is never read
        assertEquals(RingPages.Fault.NONE, r.map(w, memory, false, first, 2 * 4096));
        // a two-level root entry naming a leaf beyond the object
        long root = pageList(new long[] {0}, false);
        lists.write(root, count + 3);
        assertEquals(RingPages.Fault.INDEX_OUT_OF_RANGE, r.map(w, memory, true, root, 4096));
        assertEquals(0, r.faultPage());
    }

    @Test
    void addressingAResolvedRingAllocatesNothing() {
        PbleWalker w = walker();
        RingPages r = new RingPages();
        assertEquals(RingPages.Fault.NONE, r.map(w, d.dev.memory(), false, pageList(scatteredPages(8), false),
                8 * 4096));
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long t = Thread.currentThread().getId();
        long sum = 0;
        for (int i = 0; i < 100_000; i++) {
            sum += r.address((i * 32L) % (8 * 4096)) + r.span(i * 32L);
        }
        long before = threads.getThreadAllocatedBytes(t);
        for (int i = 0; i < 1_000_000; i++) {
            sum += r.address((i * 32L) % (8 * 4096)) + r.span(i * 32L);
        }
        long used = threads.getThreadAllocatedBytes(t) - before;
        assertTrue(sum != 0);
        assertTrue(used < 1000, "address() allocated " + used + " bytes");
    }
}
