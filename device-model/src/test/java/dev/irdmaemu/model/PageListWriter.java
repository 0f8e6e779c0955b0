package dev.irdmaemu.model;

import dev.irdmaemu.fw.hmc.PbleLayout;

/**
 * The driver's side of the HMC PBLE object in the tests (pble.c): PBLE indexes handed out as consecutive runs
 * (irdma_prm_get_pbles), and page lists written as firmware-iface's {@link PbleLayout} lays them out: level 1 one
 * PBLE per page (get_lvl1_pble), level 2 a root of leaf indexes with up to 512 page PBLEs per leaf (get_lvl2_pble).
 * Where the runs come from and where a PBLE's bytes go is the caller's ({@link PbleRuns}, {@link PbleStore}): the
 * driver's PBLE pool, or a test's own commit.
 */
public final class PageListWriter {
    /** Writes PBLE {@code index} (a little-endian quadword at FPM base + 8 x index in the HMC backing). */
    @FunctionalInterface
    public interface PbleStore {
        void write(long index, long value);
    }

    /** Hands out {@code n} consecutive PBLE indexes (a run of pble.c's resource); answers the first. */
    @FunctionalInterface
    public interface PbleRuns {
        long allocate(long n);
    }

    private final PbleRuns runs;
    private final PbleStore store;

    /** A writer whose runs come from {@code runs} (e.g. the driver's PBLE resource). */
    public PageListWriter(PbleRuns runs, PbleStore store) {
        this.runs = runs;
        this.store = store;
    }

    /** {@code n} consecutive PBLE indexes; fails the test when the PBLEs are used up. */
    public long allocate(long n) {
        return runs.allocate(n);
    }

    public void write(long index, long value) {
        store.write(index, value);
    }

    /** A level-1 page list of {@code pages}; answers its first PBLE index. */
    public long level1(long[] pages) {
        long first = allocate(pages.length);
        for (int i = 0; i < pages.length; i++) {
            write(first + i, pages[i]);
        }
        return first;
    }

    /** A two-level page list of {@code pages}: answers the root's first PBLE index. */
    public long level2(long[] pages) {
        int perLeaf = PbleLayout.PBLE_PER_PAGE;
        int leaves = PbleLayout.leafCount(pages.length);
        long root = allocate(leaves);
        for (int l = 0; l < leaves; l++) {
            int n = Math.min(perLeaf, pages.length - l * perLeaf);
            long[] leaf = new long[n];
            System.arraycopy(pages, l * perLeaf, leaf, 0, n);
            write(root + l, level1(leaf));
        }
        return root;
    }

    /** The {@code n} consecutive 4 KiB pages from {@code firstPage}. */
    public static long[] contiguous(long firstPage, int n) {
        long[] p = new long[n];
        for (int i = 0; i < n; i++) {
            p[i] = firstPage + i * 4096L;
        }
        return p;
    }
}
