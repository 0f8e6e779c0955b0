package dev.irdmaemu.fw.aq;

import dev.irdmaemu.fw.Check;
import dev.irdmaemu.fw.Flyweight;

/**
 * One switch rule of add/update/remove sw rules (0x02A0/0x02A1/0x02A2), rules packed one after the other in the
 * buffer, each sized by its type (ice_adminq_cmd.h, all __packed, le16 aligned):
 * <ul>
 * <li>LKUP_RX/LKUP_TX (struct ice_sw_rule_lkup_rx_tx): type le16, status le16, recipe_id le16, src le16, act
 * le32, index le16, hdr_len le16, then hdr_len bytes of header data: {@code 16 + hdr_len}.</li>
 * <li>LG_ACT (struct ice_sw_rule_lg_act): type, status, index le16, size le16, then size le32 actions:
 * {@code 8 + 4 * size}.</li>
 * <li>VSI_LIST_SET/CLEAR and PRUNE_LIST_SET/CLEAR (struct ice_sw_rule_vsi_list): type, status, index le16,
 * number_vsi le16, then number_vsi le16 VSI numbers: {@code 8 + 2 * number_vsi}.</li>
 * </ul>
 * The reply is the same buffer with the index (and status) filled in per rule.
 */
public final class SwitchRule extends LeView implements Flyweight<SwitchRule> {
    public static final int T_LKUP_RX = 0;
    public static final int T_LKUP_TX = 1;
    public static final int T_LG_ACT = 2;
    public static final int T_VSI_LIST_SET = 3;
    public static final int T_VSI_LIST_CLEAR = 4;
    public static final int T_PRUNE_LIST_SET = 5;
    public static final int T_PRUNE_LIST_CLEAR = 6;
    /** ice_sw_rule_lkup_rx_tx act: ICE_SINGLE_ACT_VSI_ID_M (bits 13:4) and ICE_SINGLE_ACT_VSI_LIST (bit 14). */
    public static final int ACT_VSI_LIST = 1 << 14;
    /** act bits 1:0, ICE_SINGLE_ACT_TYPE_M: 0 forward to a VSI or VSI list (ICE_SINGLE_ACT_VSI_FORWARDING). */
    public static final int ACT_TYPE_M = 0x3;
    public static final int ACT_TYPE_VSI_FORWARDING = 0;
    /** ICE_SINGLE_ACT_LB_ENABLE: a matching frame from a VSI goes to the forward target inside the switch. */
    public static final int ACT_LB_ENABLE = 1 << 2;
    /** ICE_SINGLE_ACT_LAN_ENABLE: ... and to the LAN (the uplink) too. */
    public static final int ACT_LAN_ENABLE = 1 << 3;
    /** ICE_SINGLE_ACT_VALID_BIT and ICE_SINGLE_ACT_DROP. */
    public static final int ACT_VALID = 1 << 17;
    public static final int ACT_DROP = 1 << 18;
    /** enum ice_sw_lkup_type as the recipe id of ice's default recipes (ice_switch.h): MAC, MAC+VLAN, promiscuous. */
    public static final int RECIPE_MAC = 1;
    public static final int RECIPE_MAC_VLAN = 2;
    public static final int RECIPE_PROMISC = 3;
    /** ice_switch.c ice_fill_sw_rule: the rule's header data is a dummy Ethernet header, DA at 0 (ICE_ETH_DA_OFFSET). */
    private static final int HDR_DATA = 16;
    private static final int MAC_BYTES = 6;
    /** sizeof(dummy_eth_header) in ice_switch.c: DA, SA, an 802.1Q tag and the EtherType. */
    public static final int DUMMY_ETH_HEADER = 16;

    private static final int LKUP_HEADER = 16;
    private static final int SHORT_HEADER = 8;

    public enum Status implements Check {
        ACCEPTED("accepted"),
        TRUNCATED("shorter than the rule's fixed part"),
        BAD_TYPE("rule type beyond PRUNE_LIST_CLEAR"),
        BODY_BEYOND_BUFFER("hdr_len / size / number_vsi reach past the buffer");

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
        failedAt = -1;
        if (length < SHORT_HEADER) {
            return fail(Status.TRUNCATED, 0);
        }
        if (type() > T_PRUNE_LIST_CLEAR) {
            return fail(Status.BAD_TYPE, 0);
        }
        if (isLookup() && length < LKUP_HEADER) {
            return fail(Status.TRUNCATED, 0);
        }
        if (size() > length) {
            return fail(Status.BODY_BEYOND_BUFFER, isLookup() ? 14 : 6);
        }
        return Status.ACCEPTED;
    }

    public int type() {
        return u16(0);
    }

    public boolean isLookup() {
        return type() == T_LKUP_RX || type() == T_LKUP_TX;
    }

    /** The whole rule's length in bytes, by its type. */
    public long size() {
        switch (type()) {
            case T_LKUP_RX:
            case T_LKUP_TX:
                return LKUP_HEADER + (long) u16(14);
            case T_LG_ACT:
                return SHORT_HEADER + 4L * u16(6);
            default:
                return SHORT_HEADER + 2L * u16(6);
        }
    }

    /**
     * Writes a lookup rule of {@code type} (LKUP_RX or LKUP_TX) whose header data is a 16-byte dummy Ethernet header
     * with destination MAC {@code mac}, as ice_switch.c ice_fill_sw_rule builds MAC rules: recipe {@code recipe},
     * source {@code src}, action {@code act}, index 0 (the firmware fills it in). Answers the rule's size.
     */
    public int writeMacLookup(int type, int recipe, int src, long act, long mac) {
        put16(0, type);
        put16(2, 0);
        put16(4, recipe);
        put16(6, src);
        put32(8, act);
        put16(12, 0);
        put16(14, DUMMY_ETH_HEADER);
        zero(HDR_DATA, DUMMY_ETH_HEADER);
        for (int i = 0; i < MAC_BYTES; i++) {
            put8(HDR_DATA + i, (int) (mac >>> 8 * (MAC_BYTES - 1 - i)) & 0xFF);
        }
        return LKUP_HEADER + DUMMY_ETH_HEADER;
    }

    /**
     * Writes the removal of lookup rule {@code index} as ice_fill_sw_rule does for remove_sw_rules: type and recipe,
     * act 0, the index, no header data. Answers its size.
     */
    public int writeLookupRemoval(int type, int recipe, int index) {
        put16(0, type);
        put16(2, 0);
        put16(4, recipe);
        put16(6, 0);
        put32(8, 0);
        put16(12, index);
        put16(14, 0);
        return LKUP_HEADER;
    }

    /** Writes a VSI_LIST_SET rule at {@code index} naming {@code vsis}; answers its size. */
    public int writeVsiList(int index, int... vsis) {
        put16(0, T_VSI_LIST_SET);
        put16(2, 0);
        put16(4, index);
        put16(6, vsis.length);
        for (int i = 0; i < vsis.length; i++) {
            put16(SHORT_HEADER + 2L * i, vsis[i]);
        }
        return SHORT_HEADER + 2 * vsis.length;
    }

    public int status() {
        return u16(2);
    }

    public SwitchRule status(int v) {
        put16(2, v);
        return this;
    }

    public int recipeId() {
        return isLookup() ? u16(4) : 0;
    }

    public int source() {
        return isLookup() ? u16(6) : 0;
    }

    public long action() {
        return isLookup() ? u32(8) : 0;
    }

    /** Lookup rules: the VSI (or VSI list) the single action forwards to, act bits 13:4. */
    public int actionVsi() {
        return (int) (action() >>> 4 & 0x3FF);
    }

    /** Lookup rules: the VSI list the action forwards to (ICE_SINGLE_ACT_VSI_LIST_ID_M, the same bits 13:4). */
    public int actionVsiList() {
        return actionVsi();
    }

    /** Lookup rules: the action forwards to a VSI or a VSI list (type 0) and does not drop. */
    public boolean forwardsToVsi() {
        long act = action();
        return isLookup() && (act & ACT_TYPE_M) == ACT_TYPE_VSI_FORWARDING && (act & ACT_DROP) == 0;
    }

    /** Lookup rules: the action names a VSI list rather than one VSI. */
    public boolean forwardsToVsiList() {
        return forwardsToVsi() && (action() & ACT_VSI_LIST) != 0;
    }

    /** A lookup rule whose header data is long enough to hold a destination MAC. */
    public boolean hasDestinationMac() {
        return isLookup() && headerLength() >= MAC_BYTES && has(HDR_DATA, MAC_BYTES);
    }

    /**
     * The destination MAC of a lookup rule's header data (first octet in bits 47..40); 0 unless {@link
     * #hasDestinationMac()}.
     */
    public long destinationMac() {
        if (!hasDestinationMac()) {
            return 0;
        }
        long mac = 0;
        for (int i = 0; i < MAC_BYTES; i++) {
            mac = mac << 8 | u8(HDR_DATA + i);
        }
        return mac;
    }

    public int index() {
        return u16(isLookup() ? 12 : 4);
    }

    public SwitchRule index(int v) {
        put16(isLookup() ? 12 : 4, v);
        return this;
    }

    public int headerLength() {
        return isLookup() ? u16(14) : 0;
    }

    /** VSI lists: the number of VSIs, and VSI {@code i}. */
    public int numberVsi() {
        return isLookup() || type() == T_LG_ACT ? 0 : u16(6);
    }

    public int vsi(int i) {
        return u16(SHORT_HEADER + 2L * i);
    }
}
