package dev.irdmaemu.fw.aq;

import dev.irdmaemu.fw.Check;
import dev.irdmaemu.fw.Flyweight;

/**
 * One group of add Tx RDMA qsets (0x0C33; ice_adminq_cmd.h struct ice_aqc_add_rdma_qset_data): parent_teid le32,
 * num_qsets le16, 2 reserved, then num_qsets entries of struct ice_aqc_add_tx_rdma_qset_entry (24 bytes):
 * tx_qset_id le16 (irdma's qs_handle), 2 reserved, qset_teid le32 (reply), struct ice_aqc_txsched_elem info (16).
 * The descriptor's num_qset_grps (u8 at params 0) counts the groups; ice_common.c ice_ena_vsi_rdma_qset sends one.
 */
public final class RdmaQsetGroup extends ParentTeidGroup implements Flyweight<RdmaQsetGroup> {
    public static final int HEADER = 8;
    public static final int ENTRY_SIZE = 24;

    public enum Status implements Check {
        ACCEPTED("accepted"),
        TRUNCATED("shorter than the 8-byte group header"),
        NO_QSETS("num_qsets is 0"),
        ENTRIES_BEYOND_BUFFER("num_qsets entries reach past the buffer");

        private final String text;

        Status(String text) {
            this.text = text;
        }

        @Override
        public String describe() {
            return text;
        }
    }

    public Status validate() {
        return checkGroup(HEADER, numQsets(), size(),
                Status.ACCEPTED, Status.TRUNCATED, Status.NO_QSETS, Status.ENTRIES_BEYOND_BUFFER);
    }

    public int numQsets() {
        return u16(OFF_COUNT);
    }

    public long size() {
        return HEADER + (long) numQsets() * ENTRY_SIZE;
    }

    public RdmaQsetGroup header(long parentTeid, int numQsets) {
        put32(OFF_PARENT_TEID, parentTeid);
        put16(OFF_COUNT, numQsets);
        put16(6, 0);
        return this;
    }

    public int qsetId(int i) {
        return u16(HEADER + (long) i * ENTRY_SIZE);
    }

    public RdmaQsetGroup qsetId(int i, int v) {
        put16(HEADER + (long) i * ENTRY_SIZE, v);
        return this;
    }

    public long qsetTeid(int i) {
        return u32(HEADER + (long) i * ENTRY_SIZE + 4);
    }

    public RdmaQsetGroup qsetTeid(int i, long v) {
        put32(HEADER + (long) i * ENTRY_SIZE + 4, v);
        return this;
    }

    /** Absolute offset of entry {@code i}'s 16-byte scheduler element. */
    public long infoAt(int i) {
        return base + HEADER + (long) i * ENTRY_SIZE + 8;
    }
}
