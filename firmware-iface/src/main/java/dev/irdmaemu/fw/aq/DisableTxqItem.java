package dev.irdmaemu.fw.aq;

import dev.irdmaemu.fw.Check;
import dev.irdmaemu.fw.Flyweight;

/**
 * One item of disable Tx LAN queues (0x0C31; ice_adminq_cmd.h struct ice_aqc_dis_txq_item, __packed):
 * parent_teid le32, num_qs u8, reserved u8, num_qs le16 q_id, then 2 bytes of padding when num_qs is even (so the
 * next item's parent_teid is 4-byte aligned; ice_common.c ice_aq_dis_lan_txq sizes it so). A q_id with bit 15 set
 * (ICE_AQC_Q_DIS_BUF_ELEM_TYPE_RDMA_QSET) names an RDMA qset by its qs_handle (ice_dis_vsi_rdma_qset), otherwise
 * it is the LAN queue's PF queue number. The descriptor's num_entries (u8 at params 1) counts the items.
 */
public final class DisableTxqItem extends ParentTeidGroup implements Flyweight<DisableTxqItem> {
    public static final int HEADER = 6;
    public static final int RDMA_QSET = 1 << 15;
    public static final int PARAM_CMD_TYPE = 0;
    public static final int PARAM_NUM_ENTRIES = 1;

    public enum Status implements Check {
        ACCEPTED("accepted"),
        TRUNCATED("shorter than the 6-byte item header"),
        NO_QUEUES("num_qs is 0"),
        IDS_BEYOND_BUFFER("num_qs ids reach past the buffer");

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
        return checkGroup(HEADER, numQueues(), HEADER + 2L * numQueues(),
                Status.ACCEPTED, Status.TRUNCATED, Status.NO_QUEUES, Status.IDS_BEYOND_BUFFER);
    }

    public int numQueues() {
        return u8(OFF_COUNT);
    }

    public int queueId(int i) {
        return u16(HEADER + 2L * i);
    }

    /** This item's length including the padding after an even count. */
    public long size() {
        long n = HEADER + 2L * numQueues();
        return numQueues() % 2 == 0 ? n + 2 : n;
    }

    public DisableTxqItem write(long parentTeid, int... queueIds) {
        put32(OFF_PARENT_TEID, parentTeid);
        put8(OFF_COUNT, queueIds.length);
        put8(5, 0);
        for (int i = 0; i < queueIds.length; i++) {
            put16(HEADER + 2L * i, queueIds[i]);
        }
        return this;
    }
}
