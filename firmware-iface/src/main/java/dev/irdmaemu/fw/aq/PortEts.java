package dev.irdmaemu.fw.aq;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * The 64-byte port ETS element of query_port_ets (0x040E; ice_adminq_cmd.h struct ice_aqc_port_ets_elem): the
 * valid TC bitmap, the user priority to TC map (3 bits each), the per-TC bandwidth shares, the port's rate-limit
 * profiles, the TC node priorities and, in the reply, the TEID of each TC's scheduler node (0xFFFFFFFF for a TC
 * that has none). ice_dcb.c ice_update_port_tc_tree_cfg marks every TC node of its tree that the list does not name
 * as unused and adds any named node it does not know.
 */
public final class PortEts extends LeView {
    public static final int SIZE = 64;
    public static final int MAX_TCS = 8;
    /** ICE_INVAL_TEID. */
    public static final long INVALID_TEID = 0xFFFF_FFFFL;
    private static final int TC_VALID_BITS = 0;
    private static final int UP2TC = 4;
    private static final int TC_BW_SHARE = 8;
    private static final int TC_NODE_PRIO = 24;
    private static final int TC_NODE_TEID = 32;

    public PortEts wrap(BytesStore<?, ?> store, long offset, long length) {
        attach(store, offset, length);
        return this;
    }

    public boolean complete() {
        return has(0, SIZE);
    }

    /** Writes a reply: zeroes, the valid TCs, every user priority on TC 0, and every TEID invalid. */
    public PortEts clear(int tcValidBits) {
        zero(0, SIZE);
        put8(TC_VALID_BITS, tcValidBits);
        for (int tc = 0; tc < MAX_TCS; tc++) {
            put32(TC_NODE_TEID + 4L * tc, INVALID_TEID);
        }
        return this;
    }

    public PortEts tc(int tc, int bandwidthShare, long nodeTeid) {
        put8(TC_BW_SHARE + tc, bandwidthShare);
        put32(TC_NODE_TEID + 4L * tc, nodeTeid);
        return this;
    }

    public int tcValidBits() {
        return u8(TC_VALID_BITS);
    }

    public long up2tc() {
        return u32(UP2TC);
    }

    public int bandwidthShare(int tc) {
        return u8(TC_BW_SHARE + tc);
    }

    public long tcNodePriorities() {
        return u32(TC_NODE_PRIO);
    }

    public long nodeTeid(int tc) {
        return u32(TC_NODE_TEID + 4L * tc);
    }
}
