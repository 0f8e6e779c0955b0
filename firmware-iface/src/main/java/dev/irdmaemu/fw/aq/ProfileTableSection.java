package dev.irdmaemu.fw.aq;

import dev.irdmaemu.fw.Check;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * One section of a DDP package buffer that writes a flexible-pipeline profile table of one hardware block, as
 * ice_flex_pipe.c ice_upd_prof_hw builds them for update_pkg (0x0C42) and as the package itself carries them at
 * download: the section ids of ice_ddp.h (ICE_SID_XLT1_SW .. ICE_SID_FLD_VEC_PE, one run of nine per block) and the
 * table sizes of ice_flex_pipe.c blk_sizes (XLT1 1024 ptypes, XLT2 768 VSIs, the profile TCAM, the profile ids and
 * the field-vector width in words, per block).
 *
 * <p>Four table kinds are decoded:
 * <ul>
 *   <li>XLT1 (struct ice_xlt1_section: count le16, offset le16, u8 value[count]): packet type to packet type group;</li>
 *   <li>XLT2 (struct ice_xlt2_section: count, offset, le16 value[count]): VSI to VSI group;</li>
 *   <li>profile TCAM (struct ice_prof_id_section: count le16, then count packed struct ice_prof_tcam_entry of 13
 *       bytes: addr le16, key[10], prof_id u8): which (group, VSI group, flags) key selects which profile;</li>
 *   <li>field vector (struct ice_pkg_es: count, offset, then count profiles of FVW struct ice_fv_word of 4 bytes:
 *       prot_id u8, off le16, reserved u8): the words each profile extracts.</li>
 * </ul>
 * {@link #validate()} checks the section against its own size and the block's table sizes, so that a model can
 * apply it without further checks. Readers answer 0 outside the window, never throw.
 */
public final class ProfileTableSection extends LeView {
    /** enum ice_block. */
    public static final int BLK_SW = 0;
    public static final int BLK_ACL = 1;
    public static final int BLK_FD = 2;
    public static final int BLK_RSS = 3;
    public static final int BLK_PE = 4;
    public static final int BLOCKS = 5;
    /** What {@link #blockOf} answers for a section id that is none of the four decoded tables of a block. */
    public static final int NOT_A_BLOCK_TABLE = -1;

    /** Kinds: the offset of the section id within its block's run (ice_ddp.h). */
    public static final int KIND_XLT1 = 2;
    public static final int KIND_XLT2 = 3;
    public static final int KIND_TCAM = 4;
    public static final int KIND_ES = 6;

    /** ICE_XLT1_CNT, ICE_XLT2_CNT. */
    public static final int XLT1_ENTRIES = 1024;
    public static final int XLT2_ENTRIES = 768;
    public static final int TCAM_ENTRY_SIZE = 13;
    /** ICE_TCAM_KEY_SZ: five key bytes, then their five inverted-key bytes. */
    public static final int TCAM_KEY_SIZE = 10;
    public static final int FV_WORD_SIZE = 4;
    /** ICE_MAX_FV_WORDS. */
    public static final int MAX_FV_WORDS = 48;

    /** blk_sizes: TCAM entries, profile ids, field vector words, per block. */
    private static final int[] TCAM = {512, 512, 512, 512, 64};
    private static final int[] PROFILES = {256, 128, 128, 128, 32};
    private static final int[] FVW = {48, 32, 24, 24, 24};
    /** The first section id of each block's run (ICE_SID_XLT0_SW, _ACL, _FD, _RSS, _PE). */
    private static final int[] FIRST_SID = {10, 20, 30, 40, 80};

    public enum Status implements Check {
        ACCEPTED("accepted"),
        NOT_A_PROFILE_TABLE("a section id that is no profile table of a block"),
        TOO_SHORT("shorter than its header"),
        EMPTY("count 0"),
        ENTRIES_BEYOND_SECTION("count entries reach past the section's size"),
        INDEX_BEYOND_TABLE("offset + count past the block's table"),
        TCAM_ADDRESS_BEYOND_TABLE("a TCAM entry address past the block's TCAM"),
        PROFILE_BEYOND_TABLE("a TCAM entry names a profile id past the block's");

        private final String text;

        Status(String text) {
            this.text = text;
        }

        @Override
        public String describe() {
            return text;
        }
    }

    private int block = -1;
    private int kind = -1;

    /** The block of section id {@code sid}, or {@link #NOT_A_BLOCK_TABLE}. */
    public static int blockOf(long sid) {
        for (int b = 0; b < BLOCKS; b++) {
            long k = sid - FIRST_SID[b];
            if (k == KIND_XLT1 || k == KIND_XLT2 || k == KIND_TCAM || k == KIND_ES) {
                return b;
            }
        }
        return NOT_A_BLOCK_TABLE;
    }

    /** The table kind ({@link #KIND_XLT1} ...) of section id {@code sid}, or -1. */
    public static int kindOf(long sid) {
        int b = blockOf(sid);
        return b < 0 ? -1 : (int) (sid - FIRST_SID[b]);
    }

    /** The section id of {@code kind} in {@code block}. */
    public static int sectionId(int block, int kind) {
        return FIRST_SID[block] + kind;
    }

    public static int tcamEntries(int block) {
        return TCAM[block];
    }

    public static int profiles(int block) {
        return PROFILES[block];
    }

    public static int fieldVectorWords(int block) {
        return FVW[block];
    }

    /** Wraps section {@code sid}'s {@code length} bytes at {@code offset}. */
    public ProfileTableSection wrap(long sid, BytesStore<?, ?> store, long offset, long length) {
        attach(store, offset, length);
        block = blockOf(sid);
        kind = kindOf(sid);
        return this;
    }

    /**
     * A section of the package file itself: only its own layout is checked (the header, {@code count} entries inside
     * the section). The package's sections of one table fill it one after the other from entry 0, whatever their
     * offset field says, and what reaches past the table is cut off (ice_flex_pipe.c ice_fill_tbl), so the table
     * bounds are the reader's to apply.
     */
    public Status validateLayout() {
        failedAt = -1;
        if (block < 0) {
            return fail(Status.NOT_A_PROFILE_TABLE, 0);
        }
        if (length < headerLength()) {
            return fail(Status.TOO_SHORT, 0);
        }
        if (headerLength() + count() * entrySize() > length) {
            return fail(Status.ENTRIES_BEYOND_SECTION, 0);
        }
        return Status.ACCEPTED;
    }

    /** The section's header: count and first (le16 each), or the count alone before TCAM entries. */
    private int headerLength() {
        return kind == KIND_TCAM ? 2 : 4;
    }

    private long entrySize() {
        return switch (kind) {
            case KIND_XLT1 -> 1;
            case KIND_XLT2 -> 2;
            case KIND_TCAM -> TCAM_ENTRY_SIZE;
            default -> (long) FVW[block] * FV_WORD_SIZE;
        };
    }

    /** Table sizes in entries: XLT1 ptypes, XLT2 VSIs, TCAM entries or profiles, for this section's kind. */
    public int tableEntries() {
        return switch (kind) {
            case KIND_XLT1 -> XLT1_ENTRIES;
            case KIND_XLT2 -> XLT2_ENTRIES;
            case KIND_TCAM -> TCAM[block];
            default -> PROFILES[block];
        };
    }

    /** An update_pkg section: its layout and every index it writes inside the block's tables. */
    public Status validate() {
        Status layout = validateLayout();
        if (layout != Status.ACCEPTED) {
            return layout;
        }
        int n = count();
        if (n == 0) { // checked after the layout: with no entries, none can reach past the section
            return fail(Status.EMPTY, 0);
        }
        if (kind == KIND_TCAM) {
            for (int i = 0; i < n; i++) {
                if (tcamAddress(i) >= TCAM[block]) {
                    return fail(Status.TCAM_ADDRESS_BEYOND_TABLE, 2L + (long) i * TCAM_ENTRY_SIZE);
                }
                if (tcamProfile(i) >= PROFILES[block]) {
                    return fail(Status.PROFILE_BEYOND_TABLE, 2L + (long) i * TCAM_ENTRY_SIZE + 12);
                }
            }
            return Status.ACCEPTED;
        }
        if (first() + n > tableEntries()) {
            return fail(Status.INDEX_BEYOND_TABLE, 2);
        }
        return Status.ACCEPTED;
    }

    public int block() {
        return block;
    }

    public int kind() {
        return kind;
    }

    public int count() {
        return u16(0);
    }

    /** The first table index written (XLT1 ptype, XLT2 VSI, field-vector profile id); not for TCAM sections. */
    public int first() {
        return u16(2);
    }

    /** XLT1: the group of packet type {@code first() + i}. */
    public int xlt1(int i) {
        return u8(4L + i);
    }

    /** XLT2: the VSI group of VSI {@code first() + i}. */
    public int xlt2(int i) {
        return u16(4L + 2L * i);
    }

    public int tcamAddress(int i) {
        return u16(2L + (long) i * TCAM_ENTRY_SIZE);
    }

    /** Byte {@code k} (0..9) of TCAM entry {@code i}'s key. */
    public int tcamKey(int i, int k) {
        return u8(2L + (long) i * TCAM_ENTRY_SIZE + 2 + k);
    }

    public int tcamProfile(int i) {
        return u8(2L + (long) i * TCAM_ENTRY_SIZE + 12);
    }

    /** Field vector: the protocol id of word {@code w} of profile {@code first() + i}. */
    public int fvProtocol(int i, int w) {
        return u8(4L + ((long) i * FVW[block] + w) * FV_WORD_SIZE);
    }

    /** Field vector: the byte offset in its protocol header of word {@code w} of profile {@code first() + i}. */
    public int fvOffset(int i, int w) {
        return u16(4L + ((long) i * FVW[block] + w) * FV_WORD_SIZE + 1);
    }
}
