package dev.irdmaemu.fw.aq;

import dev.irdmaemu.fw.Check;
import dev.irdmaemu.fw.Flyweight;

/**
 * One queue group of add Tx LAN queues (0x0C30; ice_adminq_cmd.h struct ice_aqc_add_tx_qgrp): parent_teid le32,
 * num_txqs u8, 3 reserved, then num_txqs entries of struct ice_aqc_add_txqs_perq (48 bytes, __packed):
 * <pre>
 *  0: txq_id le16 (the PF queue)   2: reserved   4: q_teid le32 (reply)   8: txq_ctx (22 bytes, ICE_TXQ_CTX_SZ)
 *  30: reserved 2   32: struct ice_aqc_txsched_elem info (16 bytes)
 * </pre>
 * ice_common.c ice_aq_add_lan_txq sends groups back to back and requires the buffer to be exactly their sum; the
 * descriptor's num_qgrps (u8 at params 0) counts them. {@link #size()} is this group's length.
 */
public final class TxQueueGroup extends ParentTeidGroup implements Flyweight<TxQueueGroup> {
    public static final int HEADER = 8;
    public static final int ENTRY_SIZE = 48;
    public static final int ENTRY_TXQ_ID = 0;
    public static final int ENTRY_Q_TEID = 4;
    public static final int ENTRY_CTX = 8;
    public static final int ENTRY_INFO = 32;
    /** ice_common.c ICE_LAN_TXQ_MAX_QGRPS. */
    public static final int MAX_QGRPS = 127;

    public enum Status implements Check {
        ACCEPTED("accepted"),
        TRUNCATED("shorter than the 8-byte group header"),
        NO_QUEUES("num_txqs is 0"),
        ENTRIES_BEYOND_BUFFER("num_txqs entries reach past the buffer");

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
        return checkGroup(HEADER, numTxqs(), size(),
                Status.ACCEPTED, Status.TRUNCATED, Status.NO_QUEUES, Status.ENTRIES_BEYOND_BUFFER);
    }

    public int numTxqs() {
        return u8(OFF_COUNT);
    }

    public long size() {
        return HEADER + (long) numTxqs() * ENTRY_SIZE;
    }

    public TxQueueGroup header(long parentTeid, int numTxqs) {
        put32(OFF_PARENT_TEID, parentTeid);
        put8(OFF_COUNT, numTxqs);
        return this;
    }

    public int txqId(int i) {
        return u16(entry(i) + ENTRY_TXQ_ID);
    }

    public TxQueueGroup txqId(int i, int v) {
        put16(entry(i) + ENTRY_TXQ_ID, v);
        return this;
    }

    public long queueTeid(int i) {
        return u32(entry(i) + ENTRY_Q_TEID);
    }

    public TxQueueGroup queueTeid(int i, long v) {
        put32(entry(i) + ENTRY_Q_TEID, v);
        return this;
    }

    /** Absolute offset of entry {@code i}'s Tx queue context (wrap a {@link TxQueueContext} there). */
    public long contextAt(int i) {
        return base + entry(i) + ENTRY_CTX;
    }

    /** Absolute offset of entry {@code i}'s 16-byte scheduler element ({@link SchedElement#wrapInfo}). */
    public long infoAt(int i) {
        return base + entry(i) + ENTRY_INFO;
    }

    private static long entry(int i) {
        return HEADER + (long) i * ENTRY_SIZE;
    }
}
