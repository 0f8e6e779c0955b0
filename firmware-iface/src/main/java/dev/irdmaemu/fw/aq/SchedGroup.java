package dev.irdmaemu.fw.aq;

import dev.irdmaemu.fw.Check;
import dev.irdmaemu.fw.Flyweight;

/**
 * A scheduler element group (ice_adminq_cmd.h struct ice_aqc_txsched_topo_grp_info_hdr, 8 bytes: parent_teid
 * le32, num_elems le16, reserved le16) followed by its entries: 24-byte {@link SchedElement}s for add sched elems
 * (0x0401, struct ice_aqc_add_elem) and each branch of get_dflt_topo (0x0400, struct ice_aqc_get_topo_elem, room
 * for {@link #MAX_LEVELS} elements), or le32 TEIDs for delete sched elems (0x040F, struct ice_aqc_delete_elem).
 * {@link #validate(int)} checks that the count the header claims fits the bytes the driver sent.
 */
public final class SchedGroup extends ParentTeidGroup implements Flyweight<SchedGroup> {
    public static final int HEADER = 8;
    /** ICE_AQC_TOPO_MAX_LEVEL_NUM. */
    public static final int MAX_LEVELS = 9;
    /** sizeof(struct ice_aqc_get_topo_elem): one get_dflt_topo branch. */
    public static final int TOPO_BRANCH_SIZE = HEADER + MAX_LEVELS * SchedElement.SIZE;
    /** struct ice_aqc_sched_elem_cmd: num_elem_req (groups, or elements for 0x0404) and num_elem_resp, le16. */
    public static final int PARAM_NUM_ELEM_REQ = 0;
    public static final int PARAM_NUM_ELEM_RESP = 2;
    /** struct ice_aqc_get_topo: port_num u8, num_branches u8. */
    public static final int PARAM_TOPO_PORT = 0;
    public static final int PARAM_TOPO_BRANCHES = 1;

    public enum Status implements Check {
        ACCEPTED("accepted"),
        TRUNCATED("shorter than the 8-byte group header"),
        NO_ELEMENTS("num_elems is 0"),
        ENTRIES_BEYOND_BUFFER("num_elems entries reach past the buffer");

        private final String text;

        Status(String text) {
            this.text = text;
        }

        @Override
        public String describe() {
            return text;
        }
    }

    /** Checks the header and that {@code numElems} entries of {@code entrySize} bytes are there. */
    public Status validate(int entrySize) {
        return checkGroup(HEADER, numElems(), HEADER + (long) numElems() * entrySize,
                Status.ACCEPTED, Status.TRUNCATED, Status.NO_ELEMENTS, Status.ENTRIES_BEYOND_BUFFER);
    }

    public int numElems() {
        return u16(OFF_COUNT);
    }

    public SchedGroup header(long parentTeid, int numElems) {
        put32(OFF_PARENT_TEID, parentTeid);
        put16(OFF_COUNT, numElems);
        put16(6, 0);
        return this;
    }

    /** Offset, in the wrapped store, of 24-byte element {@code i}. */
    public long elementAt(int i) {
        return base + HEADER + (long) i * SchedElement.SIZE;
    }

    /** TEID {@code i} of a delete group. */
    public long teid(int i) {
        return u32(HEADER + 4L * i);
    }
}
