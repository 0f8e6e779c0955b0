package dev.irdmaemu.fw.aq;

/**
 * A group of entries under one parent node of the Tx scheduler tree, the way ice lays them out in AQ buffers
 * (ice_adminq_cmd.h struct ice_aqc_add_tx_qgrp, ice_aqc_add_rdma_qset_data, ice_aqc_dis_txq_item and
 * ice_aqc_txsched_topo_grp_info_hdr): parent_teid le32 at 0, the entry count at 4, then the entries after a fixed
 * header. ice_common.c and ice_sched.c send add Tx LAN queues, add Tx RDMA qsets, disable Tx queues and the
 * scheduler element commands as such groups, and the firmware refuses one for the same three reasons, which
 * {@link #checkGroup} checks once for all of them.
 */
abstract class ParentTeidGroup extends LeView {
    static final int OFF_PARENT_TEID = 0;
    static final int OFF_COUNT = 4;

    /** The TEID of the scheduler node the entries hang under. */
    public long parentTeid() {
        return u32(OFF_PARENT_TEID);
    }

    /**
     * The rules every group obeys, in order: the {@code header} bytes are there (else {@code truncated}, at 0), the
     * header counts at least one entry (else {@code empty}, at the count) and the entries, ending at {@code end},
     * lie inside the buffer (else {@code beyond}, at the count). Each codec passes its own rule constants.
     */
    protected final <C extends Enum<C>> C checkGroup(int header, int count, long end,
                                                     C accepted, C truncated, C empty, C beyond) {
        failedAt = -1;
        if (length < header) {
            return fail(truncated, 0);
        }
        if (count == 0) {
            return fail(empty, OFF_COUNT);
        }
        if (end > length) {
            return fail(beyond, OFF_COUNT);
        }
        return accepted;
    }
}
