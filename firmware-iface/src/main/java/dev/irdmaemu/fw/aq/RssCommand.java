package dev.irdmaemu.fw.aq;

/**
 * Set/get RSS key and LUT (0x0B02/0x0B04 and 0x0B03/0x0B05). Params (ice_adminq_cmd.h struct
 * ice_aqc_get_set_rss_key / _lut): vsi_id le16 at 0 (number in bits 9:0, ICE_AQC_RSS_VSI_VALID bit 15); the LUT
 * commands add flags le16 at 2 (enum ice_aqc_lut_flags: ICE_AQC_LUT_SIZE_512 bit 2, ICE_AQC_LUT_SIZE_2K bit 3,
 * global LUT index in bits 7:4). The key buffer is struct ice_aqc_get_set_rss_keys: a 40-byte standard key and a
 * 12-byte extended hash key (52 bytes); the driver may send the standard key alone (40 bytes).
 */
public final class RssCommand {
    private RssCommand() {
    }

    public static final int PARAM_VSI_ID = 0;
    public static final int PARAM_LUT_FLAGS = 2;
    public static final int VSI_VALID = 1 << 15;
    public static final int VSI_MASK = 0x3FF;
    public static final int STANDARD_KEY_SIZE = 0x28;
    public static final int EXTENDED_KEY_SIZE = 0x28 + 0xC;
    /** enum ice_lut_type in flags bits 1:0 (VSI 0, PF 1, global 2); ICE_AQC_LUT_GLOBAL_IDX bits 7:4. */
    public static final int LUT_TYPE_M = 0x3;
    public static final int LUT_GLOBAL_IDX_S = 4;
    public static final int LUT_GLOBAL_IDX_M = 0xF;
    public static final int LUT_SIZE_512 = 1 << 2;
    public static final int LUT_SIZE_2K = 1 << 3;
    /** enum ice_lut_size. */
    public static final int LUT_VSI_SIZE = 64;
    public static final int LUT_GLOBAL_SIZE = 512;
    public static final int LUT_PF_SIZE = 2048;

    /** The LUT length a flags value names: 2K, 512, else the small (64- or 128-entry) VSI table. */
    public static int lutSize(int flags) {
        if ((flags & LUT_SIZE_2K) != 0) {
            return LUT_PF_SIZE;
        }
        if ((flags & LUT_SIZE_512) != 0) {
            return LUT_GLOBAL_SIZE;
        }
        return LUT_VSI_SIZE;
    }
}
