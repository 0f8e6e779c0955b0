package dev.irdmaemu.fw.aq;

import dev.irdmaemu.fw.Flyweight;

/**
 * A buffer that is a plain array of le32 TEIDs: suspend and resume sched elems (0x0409 / 0x040A, ice_sched.c
 * ice_sched_suspend_resume_elems), and query sched elems' request.
 */
public final class TeidList extends LeView implements Flyweight<TeidList> {

    /** Whether {@code count} TEIDs fit in the buffer. */
    public boolean holds(int count) {
        return 4L * count <= length;
    }

    /** TEID {@code i} (0 outside the buffer). */
    public long teid(int i) {
        return u32(4L * i);
    }

    public TeidList teid(int i, long teid) {
        put32(4L * i, teid);
        return this;
    }
}
