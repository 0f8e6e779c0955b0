package dev.irdmaemu.fw.aq;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * One Tx scheduler element with its TEIDs (ice_adminq_cmd.h struct ice_aqc_txsched_elem_data, 24 bytes): the
 * element of get_dflt_topo (0x0400), add/get sched elems (0x0401/0x0404) and their kin.
 *
 * <pre>
 *  0: parent_teid (le32)   4: node_teid (le32)
 *  8: struct ice_aqc_txsched_elem (16 bytes): elem_type u8, valid_sections u8, generic u8, flags u8,
 *     cir_bw {bw_profile_idx le16, bw_alloc le16}, eir_bw {..}, srl_id le16, reserved le16
 * </pre>
 * The 16-byte element (its {@link #INFO_SIZE}) also sits inside the add_txqs per-queue entry and the RDMA qset
 * entry; {@link #wrapInfo} wraps just those 16 bytes (parent/node TEID then read as 0).
 */
public final class SchedElement extends LeView {
    public static final int SIZE = 24;
    public static final int INFO_SIZE = 16;
    public static final int INFO = 8;

    /** ICE_AQC_ELEM_TYPE_*. */
    public static final int TYPE_UNDEFINED = 0;
    public static final int TYPE_ROOT_PORT = 1;
    public static final int TYPE_TC = 2;
    public static final int TYPE_SE_GENERIC = 3;
    public static final int TYPE_ENTRY_POINT = 4;
    public static final int TYPE_LEAF = 5;
    public static final int TYPE_SE_PADDED = 6;

    /** ICE_AQC_ELEM_VALID_*. */
    public static final int VALID_GENERIC = 0x1;
    public static final int VALID_CIR = 0x2;
    public static final int VALID_EIR = 0x4;
    public static final int VALID_SHARED = 0x8;

    private long infoAt = INFO;

    public SchedElement wrap(BytesStore<?, ?> store, long offset) {
        attach(store, offset, SIZE);
        infoAt = INFO;
        return this;
    }

    /** Wraps only the 16-byte struct ice_aqc_txsched_elem at {@code offset}. */
    public SchedElement wrapInfo(BytesStore<?, ?> store, long offset) {
        attach(store, offset, INFO_SIZE);
        infoAt = 0;
        return this;
    }

    public boolean complete() {
        return has(0, infoAt == 0 ? INFO_SIZE : SIZE);
    }

    public long parentTeid() {
        return infoAt == 0 ? 0 : u32(0);
    }

    public long nodeTeid() {
        return infoAt == 0 ? 0 : u32(4);
    }

    public SchedElement parentTeid(long v) {
        put32(0, v);
        return this;
    }

    public SchedElement nodeTeid(long v) {
        put32(4, v);
        return this;
    }

    public int elemType() {
        return u8(infoAt);
    }

    public SchedElement elemType(int v) {
        put8(infoAt, v);
        return this;
    }

    public int validSections() {
        return u8(infoAt + 1);
    }

    public int generic() {
        return u8(infoAt + 2);
    }

    public int flags() {
        return u8(infoAt + 3);
    }

    public int cirProfile() {
        return u16(infoAt + 4);
    }

    public int cirAlloc() {
        return u16(infoAt + 6);
    }

    public int eirProfile() {
        return u16(infoAt + 8);
    }

    public int eirAlloc() {
        return u16(infoAt + 10);
    }

    public int srlId() {
        return u16(infoAt + 12);
    }

    /** The 16 element bytes into {@code dst} (which holds at least {@link #INFO_SIZE}). */
    public void readInfo(byte[] dst) {
        copyOut(infoAt, dst, INFO_SIZE);
    }

    /** Writes the 16 element bytes. */
    public SchedElement writeInfo(byte[] src) {
        copyIn(infoAt, src, INFO_SIZE);
        return this;
    }
}
