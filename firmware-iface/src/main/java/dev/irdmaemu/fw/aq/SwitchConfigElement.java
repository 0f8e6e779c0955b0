package dev.irdmaemu.fw.aq;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * One element of the get_sw_cfg (0x0200) reply (ice_adminq_cmd.h struct ice_aqc_get_sw_cfg_resp_elem, 6 bytes):
 * vsi_port_num le16 (number in bits 9:0, type in bits 15:14: PHYS_PORT 0, VIRT_PORT 1, VSI 2), swid le16,
 * pf_vf_num le16 (function in bits 14:0, bit 15 = VF). ice_switch.c ice_get_initial_sw_cfg keeps the PHYS_PORT
 * elements (lport, swid) and skips VSIs. The descriptor params (struct ice_aqc_get_sw_cfg) carry element (the next
 * first element, 0 = done) at 2 and num_elems at 4.
 */
public final class SwitchConfigElement extends LeView {
    public static final int SIZE = 6;
    public static final int TYPE_PHYS_PORT = 0;
    public static final int TYPE_VIRT_PORT = 1;
    public static final int TYPE_VSI = 2;
    public static final int PARAM_ELEMENT = 2;
    public static final int PARAM_NUM_ELEMS = 4;

    public SwitchConfigElement wrap(BytesStore<?, ?> store, long offset) {
        attach(store, offset, SIZE);
        return this;
    }

    public SwitchConfigElement write(int type, int number, int swid, int pfVfNum) {
        put16(0, (type & 0x3) << 14 | (number & 0x3FF));
        put16(2, swid);
        put16(4, pfVfNum & 0xFFFF);
        return this;
    }

    public int type() {
        return u16(0) >>> 14 & 0x3;
    }

    public int number() {
        return u16(0) & 0x3FF;
    }

    public int swid() {
        return u16(2);
    }

    public int pfVfNum() {
        return u16(4);
    }
}
