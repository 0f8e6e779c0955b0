package dev.irdmaemu.fw.aq;

import dev.irdmaemu.fw.Flyweight;
import java.util.List;

/**
 * Add/update/get/free VSI (0x0210/0x0211/0x0212/0x0213). The descriptor params (ice_adminq_cmd.h struct
 * ice_aqc_add_get_update_free_vsi): vsi_num le16 at 0 (number in bits 9:0, bit 15 ICE_AQ_VSI_IS_VALID), cmd_flags
 * le16 at 2 (ICE_AQ_VSI_KEEP_ALLOC), vf_id u8 at 4, vsi_flags le16 at 6 (type in bits 1:0). The reply params
 * (struct ice_aqc_add_update_free_vsi_resp): vsi_num at 0, ext_status at 2, vsi_used at 4, vsi_free at 6. The
 * buffer is the 128-byte VSI context, struct ice_aqc_vsi_props; this flyweight reads the few fields the model uses.
 */
public final class VsiCommand extends LeView implements Flyweight<VsiCommand> {
    public static final int PROPS_SIZE = 128;
    public static final int PARAM_VSI_NUM = 0;
    public static final int PARAM_CMD_FLAGS = 2;
    public static final int PARAM_VF_ID = 4;
    public static final int PARAM_VSI_FLAGS = 6;
    public static final int RESP_VSI_NUM = 0;
    public static final int RESP_EXT_STATUS = 2;
    public static final int RESP_VSI_USED = 4;
    public static final int RESP_VSI_FREE = 6;
    public static final int VSI_NUM_MASK = 0x3FF;
    public static final int VSI_IS_VALID = 1 << 15;
    public static final int KEEP_ALLOC = 0x1;
    public static final int TYPE_VF = 0;
    public static final int TYPE_VMDQ2 = 1;
    public static final int TYPE_PF = 2;
    public static final int TYPE_EMP_MNG = 3;
    /** ICE_AQ_VSI_PROP_* bits of valid_sections. */
    public static final int PROP_SW_VALID = 1;
    public static final int PROP_Q_OPT_VALID = 1 << 7;
    /** q_opt_flags ICE_AQ_VSI_Q_OPT_PE_FLTR_EN (irdma's filter, ice_rdma_update_vsi_filter). */
    public static final int Q_OPT_PE_FLTR_EN = 1;
    private static final int VALID_SECTIONS = 0;
    private static final int SW_ID = 2;
    /** struct ice_aqc_vsi_props sw_flags (u8 at 3): the VSI's loopback and pruning bits in the embedded switch. */
    public static final int SW_FLAGS = 3;
    /** ICE_AQ_VSI_SW_FLAG_ALLOW_LB: the switch may turn this VSI's frames back to the adapter's VSIs (ice sets it in
     * VEB mode, ice_lib.c ice_vsi_init and ice_main.c ice_vsi_update_bridge_mode). */
    public static final int SW_FLAG_ALLOW_LB = 1 << 5;
    /** ICE_AQ_VSI_SW_FLAG_LOCAL_LB: ... back to the very VSI that sent them (ice_lib.c ice_vsi_update_local_lb). */
    public static final int SW_FLAG_LOCAL_LB = 1 << 6;
    /** ICE_AQ_VSI_SW_FLAG_SRC_PRUNE. */
    public static final int SW_FLAG_SRC_PRUNE = 1 << 7;
    /** struct ice_aqc_vsi_props offsets (checked with offsetof): the queue mapping and queueing option sections. */
    public static final int MAPPING_FLAGS = 28;
    public static final int Q_MAPPING = 30;
    public static final int Q_MAPPINGS = 16;
    public static final int TC_MAPPING = 62;
    public static final int Q_OPT_RSS = 78;
    public static final int Q_OPT_FLAGS = 80;
    /** ICE_AQ_VSI_PROP_RXQ_MAP_VALID. */
    public static final int PROP_RXQ_MAP_VALID = 1 << 6;
    /** mapping_flags ICE_AQ_VSI_Q_MAP_NONCONTIG (else CONTIG: q_mapping[0] the first queue, [1] the count). */
    public static final int Q_MAP_NONCONTIG = 1;
    /** tc_mapping: ICE_AQ_VSI_TC_Q_OFFSET (11 bits), ICE_AQ_VSI_TC_Q_NUM (log2 of the TC's queues, 4 bits at 11). */
    public static final int TC_Q_OFFSET_M = 0x7FF;
    public static final int TC_Q_NUM_S = 11;
    public static final int TC_Q_NUM_M = 0xF;
    /** q_opt_rss: ICE_AQ_VSI_Q_OPT_RSS_LUT (bits 1:0: VSI 0, PF 2, global 3), the global LUT (bits 5:2), the hash
     * (bits 7:6: Toeplitz 0, symmetric Toeplitz 1, XOR 2, JHash 3). */
    public static final int RSS_LUT_M = 0x3;
    public static final int RSS_LUT_VSI = 0;
    public static final int RSS_LUT_PF = 2;
    public static final int RSS_LUT_GBL = 3;
    public static final int RSS_GBL_LUT_S = 2;
    public static final int RSS_GBL_LUT_M = 0xF;
    public static final int RSS_HASH_S = 6;
    public static final int RSS_HASH_TPLZ = 0;

    /**
     * One section of struct ice_aqc_vsi_props: the valid_sections bit that names it (ICE_AQ_VSI_PROP_*_VALID) and
     * the bytes it covers. The firmware applies an update's sections whose bits are set and keeps the rest.
     */
    public record Section(int bit, int offset, int length) {
    }

    /** The sections in ice_adminq_cmd.h order (switch, security, VLAN, outer tag, ingress/egress UP, queue map,
     * queueing options, outer UP, flow director, PASID). */
    public static final List<Section> SECTIONS = List.of(new Section(0, 2, 4), new Section(1, 6, 2),
            new Section(2, 8, 8), new Section(3, 24, 4), new Section(4, 16, 4), new Section(5, 20, 4),
            new Section(6, 28, 50), new Section(7, 78, 6), new Section(8, 84, 4), new Section(11, 90, 10),
            new Section(12, 100, 4));

    /** A little-endian u16 of a kept 128-byte context. */
    public static int propsU16(byte[] props, int offset) {
        return props[offset] & 0xFF | (props[offset + 1] & 0xFF) << 8;
    }

    public boolean complete() {
        return has(0, PROPS_SIZE);
    }

    public int validSections() {
        return u16(VALID_SECTIONS);
    }

    public int switchId() {
        return u8(SW_ID);
    }

    /** sw_flags: {@link #SW_FLAG_ALLOW_LB}, {@link #SW_FLAG_LOCAL_LB}, {@link #SW_FLAG_SRC_PRUNE}. */
    public int switchFlags() {
        return u8(SW_FLAGS);
    }

    public VsiCommand switchFlags(int flags) {
        put8(SW_FLAGS, flags);
        return this;
    }

    public VsiCommand validSections(int sections) {
        put16(VALID_SECTIONS, sections);
        return this;
    }

    public int queueOptionFlags() {
        return u8(Q_OPT_FLAGS);
    }

    public void readProps(byte[] dst) {
        copyOut(0, dst, PROPS_SIZE);
    }

    public void writeProps(byte[] src) {
        copyIn(0, src, PROPS_SIZE);
    }
}
