package dev.irdmaemu.fw.aq;

import dev.irdmaemu.fw.Flyweight;

/**
 * The buffer of move sched elems (0x0408), struct ice_aqc_move_elem (ice_adminq_cmd.h): a header (struct
 * ice_aqc_txsched_move_grp_info_hdr: src_parent_teid le32 at 0, dest_parent_teid le32 at 4, num_elems le16 at 8,
 * mode u8 at 10, a reserved byte) and then {@code num_elems} le32 TEIDs.
 */
public final class SchedMoveElements extends LeView implements Flyweight<SchedMoveElements> {
    public static final int HEADER = 12;
    private static final int SRC_PARENT = 0;
    private static final int DEST_PARENT = 4;
    private static final int NUM_ELEMS = 8;
    private static final int MODE = 10;

    /** Whether the header and every TEID it announces lie inside the buffer. */
    public boolean complete() {
        return length >= HEADER && HEADER + 4L * numElems() <= length;
    }

    public long sourceParent() {
        return u32(SRC_PARENT);
    }

    public long destinationParent() {
        return u32(DEST_PARENT);
    }

    public int numElems() {
        return u16(NUM_ELEMS);
    }

    public int mode() {
        return u8(MODE);
    }

    /** TEID {@code i} of the elements to move (0 outside the buffer). */
    public long teid(int i) {
        return u32(HEADER + 4L * i);
    }

    /** Writes the header and {@code teids}; answers the bytes written. */
    public int write(long sourceParent, long destinationParent, long... teids) {
        put32(SRC_PARENT, sourceParent);
        put32(DEST_PARENT, destinationParent);
        put16(NUM_ELEMS, teids.length);
        put8(MODE, 0);
        put8(MODE + 1, 0);
        for (int i = 0; i < teids.length; i++) {
            put32(HEADER + 4L * i, teids[i]);
        }
        return HEADER + 4 * teids.length;
    }
}
