package dev.irdmaemu.driver.verbs;

/**
 * The {@link WorkRequestTracking} arrays of destroyed QPs, kept by the verbs for the next QP of the same SQ and RQ
 * depths (the kernel's kcalloc in verbs.c irdma_setup_kmode_qp comes from a slab that keeps freed objects for
 * reuse): a connection's QP then costs its CQP ops rather than some 7.5 kB of arrays. At most {@link #CAPACITY}
 * are kept.
 */
final class SpareWorkRequestTracking {
    static final int CAPACITY = 64;

    private final WorkRequestTracking[] spares = new WorkRequestTracking[CAPACITY];
    private int count;

    /** Arrays for a QP of these depths: a spare that fits, else new. */
    WorkRequestTracking take(int sqSize, int rqSize) {
        for (int i = count - 1; i >= 0; i--) {
            WorkRequestTracking t = spares[i];
            if (t.fits(sqSize, rqSize)) {
                spares[i] = spares[count - 1];
                spares[--count] = null;
                return t;
            }
        }
        return new WorkRequestTracking(sqSize, rqSize);
    }

    /** A destroyed QP's arrays, kept while fewer than {@link #CAPACITY} are. */
    void give(WorkRequestTracking t) {
        if (count < CAPACITY) {
            spares[count++] = t;
        }
    }

    int count() {
        return count;
    }
}
