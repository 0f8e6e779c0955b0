package dev.irdmaemu.driver.verbs;

/** Host pages for tests. */
final class Pages {
    private Pages() {
    }

    /** {@code n} pages of host RAM no two of which are adjacent (a consumer buffer that is not contiguous). */
    static long[] scattered(Rig r, int n) {
        long[] pages = new long[n];
        long[] gaps = new long[n];
        for (int i = 0; i < n; i++) {
            pages[i] = r.ram.allocate(4096);
            gaps[i] = r.ram.allocate(4096);
        }
        for (long g : gaps) {
            r.ram.free(g, 4096);
        }
        return pages;
    }
}
