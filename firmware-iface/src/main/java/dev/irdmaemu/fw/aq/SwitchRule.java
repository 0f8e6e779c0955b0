package dev.irdmaemu.fw.aq;

import dev.irdmaemu.fw.Check;
import net.openhft.chronicle.bytes.BytesStore;

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
public final class SwitchRule extends LeView {
    public static final int T_LKUP_RX = 0;
    public static final int T_LKUP_TX = 1;
    public static final int T_LG_ACT = 2;
    public static final int T_VSI_LIST_SET = 3;
    public static final int T_VSI_LIST_CLEAR = 4;
    public static final int T_PRUNE_LIST_SET = 5;
    public static final int T_PRUNE_LIST_CLEAR = 6;
    /** ice_sw_rule_lkup_rx_tx act: ICE_SINGLE_ACT_VSI_ID_M (bits 13:4) and ICE_SINGLE_ACT_VSI_LIST (bit 14). */
    public static final int ACT_VSI_LIST = 1 << 14;

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
        public boolean accepted() {
            return this == ACCEPTED;
        }

        @Override
        public String describe() {
            return text;
        }
    }

    public SwitchRule wrap(BytesStore<?, ?> store, long offset, long length) {
        attach(store, offset, length);
        return this;
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
