package dev.irdmaemu.driver.verbs;

/**
 * A kernel QP's work-request tracking arrays (user.h struct irdma_qp_uk: sq_wrtrk_array with each SQ quantum's
 * wr_id, length, quanta and signaled flag; rq_wrid_array with each RQ WQE's wr_id), which verbs.c
 * irdma_setup_kmode_qp allocates per QP. {@link QpQueues} works in one; {@link SpareWorkRequestTracking} hands a
 * destroyed QP's arrays to the next QP of the same depths, as the kernel's slab hands freed memory back. A slot is
 * written when its WQE is posted and read only for WQEs posted since, so what a previous QP left is never seen.
 */
final class WorkRequestTracking {
    final int sqSize;
    final int rqSize;
    final long[] sqWrid;
    final int[] sqWrLen;
    final byte[] sqQuanta;
    final boolean[] sqSignaled;
    final long[] rqWrid;

    WorkRequestTracking(int sqSize, int rqSize) {
        this.sqSize = sqSize;
        this.rqSize = rqSize;
        sqWrid = new long[sqSize];
        sqWrLen = new int[sqSize];
        sqQuanta = new byte[sqSize];
        sqSignaled = new boolean[sqSize];
        rqWrid = new long[rqSize];
    }

    /** Whether these arrays are the ones a QP of these depths would make. */
    boolean fits(int sq, int rq) {
        return sqSize == sq && rqSize == rq;
    }
}
