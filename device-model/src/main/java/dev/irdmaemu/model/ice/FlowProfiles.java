package dev.irdmaemu.model.ice;

import static dev.irdmaemu.fw.aq.ProfileTableSection.*;

import dev.irdmaemu.fw.aq.ProfileTableSection;
import java.util.Arrays;
import java.util.OptionalInt;

/**
 * The flexible pipeline's profile tables of the five hardware blocks (enum ice_block: switch, ACL, flow director,
 * RSS, PE) as the firmware holds them: XLT1 (packet type to packet type group), XLT2 (VSI to VSI group), the profile
 * TCAM (key of group, VSI group and flags to a profile id) and the field vectors (the words each profile extracts:
 * protocol id and offset). The downloaded package fills them (its sections of these ids, ice_ddp.c) and update_pkg
 * changes them ({@link PackageUpdates}: ice_flex_pipe.c ice_upd_prof_hw writes ES, TCAM, XLT1 and XLT2 sections in
 * that order).
 *
 * <p>The model uses the RSS block's tables: {@link #rssInputSet(int, int)} walks them as the hardware's RSS block
 * does for one frame (ptype to group, VSI to VSI group, the first TCAM entry whose key matches, that profile's field
 * vector) and answers which of the addresses and ports the profile extracts ({@link #SRC_ADDR} ...). The other blocks
 * are recorded (and counted) only. Everything written here was checked by {@link ProfileTableSection#validate()};
 * nothing allocates after construction.
 *
 * <p>Only TCAM entries ice wrote through update_pkg take part in a lookup. The package's own entries are kept but
 * not matched: they key on parser flags (single flag bits set, everything else don't care, in Debian's 1.3.41
 * package) that the model's parser does not compute; a frame no driver-written entry covers keeps ice's default
 * input set. The package's XLT1 (packet type groups) and XLT2 are used: ice keys its entries on them.
 * Field vectors name the last IP header ({@code ICE_PROT_IPV4_IL}/{@code ICE_PROT_IPV6_IL}, ice_flow.c
 * ice_flow_xtract_fld for the inner-or-only segment) or the outer one; a frame without a tunnel has one, so both
 * select its addresses.
 */
public final class FlowProfiles {
    /** Input-set bits: what a profile hashes of a frame. */
    public static final int SRC_ADDR = 1;
    public static final int DST_ADDR = 2;
    public static final int SRC_PORT = 4;
    public static final int DST_PORT = 8;
    /** No profile applies: the caller falls back to ice's default input sets. */
    public static final int NO_PROFILE = -1;

    /** ice_protocol_type.h: the outer IPv4/IPv6 headers and the inner L4 headers the RSS profiles extract. */
    static final int PROT_IPV4_OF_OR_S = 32;
    static final int PROT_IPV4_IL = 33;
    static final int PROT_IPV6_OF_OR_S = 40;
    static final int PROT_IPV6_IL = 41;
    static final int PROT_TCP_IL = 49;
    static final int PROT_UDP_IL_OR_S = 53;
    static final int PROT_SCTP_IL = 96;
    /** The VSI-group index bits of an XLT2 value and TCAM key (ice_flex_type.h ICE_VSIG_IDX_M); above: the PF. */
    static final int VSIG_INDEX_M = 0x1FFF;

    private final byte[][] xlt1 = new byte[BLOCKS][XLT1_ENTRIES];
    private final short[][] xlt2 = new short[BLOCKS][XLT2_ENTRIES];
    private final byte[][] tcamKeys = new byte[BLOCKS][];
    private final short[][] tcamProfile = new short[BLOCKS][];
    /** TCAM entries ice wrote through update_pkg: the only ones {@link #profileFor} matches (see the class comment). */
    private final boolean[][] tcamWrittenByDriver = new boolean[BLOCKS][];
    private final byte[][] fvProtocol = new byte[BLOCKS][];
    private final short[][] fvOffset = new short[BLOCKS][];
    private final long[] sectionsApplied = new long[BLOCKS];
    /** Where the package's next section of each block's table kind goes (ice_fill_tbl's running offset). */
    private final int[][] packageCursor = new int[BLOCKS][KIND_ES + 1];
    private long generation;

    public FlowProfiles() {
        for (int b = 0; b < BLOCKS; b++) {
            tcamKeys[b] = new byte[tcamEntries(b) * TCAM_KEY_SIZE];
            tcamProfile[b] = new short[tcamEntries(b)];
            tcamWrittenByDriver[b] = new boolean[tcamEntries(b)];
            fvProtocol[b] = new byte[profiles(b) * fieldVectorWords(b)];
            fvOffset[b] = new short[profiles(b) * fieldVectorWords(b)];
        }
        clear();
    }

    /** Power-on: every table empty (no TCAM entry valid, every field vector word invalid). */
    public void clear() {
        for (int b = 0; b < BLOCKS; b++) {
            Arrays.fill(xlt1[b], (byte) 0);
            Arrays.fill(xlt2[b], (short) 0);
            Arrays.fill(tcamKeys[b], (byte) 0); // key 0 and inverted key 0: "never match" for every bit
            Arrays.fill(tcamProfile[b], (short) -1);
            Arrays.fill(tcamWrittenByDriver[b], false);
            Arrays.fill(fvProtocol[b], (byte) 0xFF); // ICE_PROT_INVALID
            Arrays.fill(fvOffset[b], (short) 0);
            sectionsApplied[b] = 0;
            Arrays.fill(packageCursor[b], 0);
        }
        generation++;
    }

    /** Writes an update_pkg section ({@link ProfileTableSection#validate()} accepted it) into its block's table. */
    public void apply(ProfileTableSection s) {
        write(s, s.kind() == KIND_TCAM ? -1 : s.first(), s.count());
    }

    /**
     * Writes a section of the package file ({@link ProfileTableSection#validateLayout()} accepted it) where the
     * previous section of its table ended, cut at the table's end (ice_flex_pipe.c ice_fill_tbl); a TCAM entry's
     * index is its place in that sequence, and one naming a profile past the block's is left invalid.
     */
    public void load(ProfileTableSection s) {
        int b = s.block();
        int k = s.kind();
        int first = packageCursor[b][k];
        int n = Math.max(0, Math.min(s.count(), s.tableEntries() - first));
        packageCursor[b][k] = first + n;
        write(s, first, n);
    }

    /** Writes {@code n} entries from table index {@code first} ({@code -1}: TCAM entries at their own address). */
    private void write(ProfileTableSection s, int first, int n) {
        int b = s.block();
        switch (s.kind()) {
            case KIND_XLT1 -> {
                for (int i = 0; i < n; i++) {
                    xlt1[b][first + i] = (byte) s.xlt1(i);
                }
            }
            case KIND_XLT2 -> {
                for (int i = 0; i < n; i++) {
                    xlt2[b][first + i] = (short) s.xlt2(i);
                }
            }
            case KIND_TCAM -> {
                for (int i = 0; i < n; i++) {
                    int addr = first < 0 ? s.tcamAddress(i) : first + i;
                    int profile = s.tcamProfile(i);
                    for (int k = 0; k < TCAM_KEY_SIZE; k++) {
                        tcamKeys[b][addr * TCAM_KEY_SIZE + k] = (byte) s.tcamKey(i, k);
                    }
                    tcamProfile[b][addr] = (short) (profile < profiles(b) ? profile : -1);
                    tcamWrittenByDriver[b][addr] = first < 0;
                }
            }
            default -> {
                int fvw = fieldVectorWords(b);
                for (int i = 0; i < n; i++) {
                    int at = (first + i) * fvw;
                    for (int w = 0; w < fvw; w++) {
                        fvProtocol[b][at + w] = (byte) s.fvProtocol(i, w);
                        fvOffset[b][at + w] = (short) s.fvOffset(i, w);
                    }
                }
            }
        }
        sectionsApplied[b]++;
        generation++;
    }

    /** Changes with every table write. */
    public long generation() {
        return generation;
    }

    public long sectionsApplied(int block) {
        return sectionsApplied[block];
    }

    public int ptypeGroup(int block, int ptype) {
        return xlt1[block][ptype] & 0xFF;
    }

    public int vsiGroup(int block, int vsi) {
        return xlt2[block][vsi] & 0xFFFF;
    }

    /**
     * The profile the block's TCAM selects for packet-type group {@code ptg}, VSI group {@code vsig} and parser
     * flags 0, or -1: the lowest-addressed entry ice wrote whose key matches. The key is struct ice_prof_id_key
     * (ice_flex_type.h: flags le16, xlt1 u8, xlt2_cdid le16), five key bytes then their five inverted-key bytes; a
     * key bit matches an input bit of 0 when its key bit is 1 and an input bit of 1 when its inverted-key bit is 1
     * (ice_flex_pipe.c ice_gen_key_word: don't care is 1/1, never match 0/0). The VSI group's upper bits (the CDID
     * the parser computes) are not compared.
     */
    public OptionalInt profileFor(int block, int ptg, int vsig) {
        byte[] keys = tcamKeys[block];
        short[] prof = tcamProfile[block];
        boolean[] driver = tcamWrittenByDriver[block];
        for (int addr = 0; addr < prof.length; addr++) {
            if (prof[addr] < 0 || !driver[addr]) {
                continue;
            }
            int at = addr * TCAM_KEY_SIZE;
            if (matches(keys, at, 0, 0, 0xFF) && matches(keys, at, 1, 0, 0xFF) && matches(keys, at, 2, ptg, 0xFF)
                    && matches(keys, at, 3, vsig & 0xFF, 0xFF)
                    && matches(keys, at, 4, vsig >>> 8 & 0xFF, VSIG_INDEX_M >>> 8)) {
                return OptionalInt.of(prof[addr]);
            }
        }
        return OptionalInt.empty();
    }

    private static boolean matches(byte[] keys, int at, int i, int value, int compared) {
        int key = keys[at + i] & 0xFF;
        int inv = keys[at + i + TCAM_KEY_SIZE / 2] & 0xFF;
        int ok = ~value & key | value & inv;
        return (ok & compared) == compared;
    }

    /** The input set ({@link #SRC_ADDR} ...) profile {@code profile} of {@code block} extracts. */
    public int inputSet(int block, int profile) {
        int fvw = fieldVectorWords(block);
        int set = 0;
        for (int w = 0; w < fvw; w++) {
            int prot = fvProtocol[block][profile * fvw + w] & 0xFF;
            int off = fvOffset[block][profile * fvw + w] & 0xFFFF;
            switch (prot) {
                case PROT_IPV4_OF_OR_S, PROT_IPV4_IL -> {
                    if (off == 12 || off == 14) {
                        set |= SRC_ADDR;
                    } else if (off == 16 || off == 18) {
                        set |= DST_ADDR;
                    }
                }
                case PROT_IPV6_OF_OR_S, PROT_IPV6_IL -> {
                    if (off >= 8 && off < 24) {
                        set |= SRC_ADDR;
                    } else if (off >= 24 && off < 40) {
                        set |= DST_ADDR;
                    }
                }
                case PROT_TCP_IL, PROT_UDP_IL_OR_S, PROT_SCTP_IL -> {
                    if (off == 0) {
                        set |= SRC_PORT;
                    } else if (off == 2) {
                        set |= DST_PORT;
                    }
                }
                default -> {
                }
            }
        }
        return set;
    }

    /** The RSS profile the tables select for VSI {@code vsi} and packet type {@code ptype}, if any. */
    public OptionalInt rssProfile(int vsi, int ptype) {
        if (vsi < 0 || vsi >= XLT2_ENTRIES || ptype < 0 || ptype >= XLT1_ENTRIES) {
            return OptionalInt.empty();
        }
        return profileFor(BLK_RSS, ptypeGroup(BLK_RSS, ptype), vsiGroup(BLK_RSS, vsi));
    }

    /** TCAM entry {@code addr}'s key and profile as hex (diagnostics; allocates). */
    public String describeTcam(int block, int addr) {
        StringBuilder b = new StringBuilder("@" + addr + " prof " + tcamProfile[block][addr] + " key");
        for (int k = 0; k < TCAM_KEY_SIZE; k++) {
            b.append(String.format(" %02x", tcamKeys[block][addr * TCAM_KEY_SIZE + k] & 0xFF));
        }
        return b.toString();
    }

    /** The valid words of a profile's field vector as "prot@offset ..." (diagnostics; allocates). */
    public String describe(int block, int profile) {
        StringBuilder b = new StringBuilder();
        int fvw = fieldVectorWords(block);
        for (int w = 0; w < fvw; w++) {
            int prot = fvProtocol[block][profile * fvw + w] & 0xFF;
            if (prot != 0xFF) {
                b.append(prot).append('@').append(fvOffset[block][profile * fvw + w] & 0xFFFF).append(' ');
            }
        }
        return b.toString().trim();
    }

    /**
     * What the RSS block hashes of a frame of packet type {@code ptype} received on VSI {@code vsi}: the input set
     * of the profile its tables select, or {@link #NO_PROFILE}.
     */
    public int rssInputSet(int vsi, int ptype) {
        if (vsi < 0 || vsi >= XLT2_ENTRIES || ptype < 0 || ptype >= XLT1_ENTRIES) {
            return NO_PROFILE;
        }
        OptionalInt profile = profileFor(BLK_RSS, ptypeGroup(BLK_RSS, ptype), vsiGroup(BLK_RSS, vsi));
        return profile.isPresent() ? inputSet(BLK_RSS, profile.getAsInt()) : NO_PROFILE;
    }
}
