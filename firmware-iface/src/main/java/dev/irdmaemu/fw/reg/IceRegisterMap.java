package dev.irdmaemu.fw.reg;

import java.util.Arrays;
import java.util.Comparator;

/**
 * Names for the BAR0 registers of an E810 PF that ice.ko reads or writes but that no model block gives behaviour to
 * (the model keeps them as plain storage): statistics (ice_main.c ice_update_pf_stats / ice_update_eth_stats read
 * the 40- and 48-bit counters as 64-bit accesses, so each {@code ...L} counter at stride 8 also answers for its high
 * half at +4, named with {@code H} as i40e's headers spell it), interrupt throttling (GLINT_ITR), the flow-director
 * and RSS masks, the flexible Rx descriptor tables, GPIOs, PM and DCB registers. Offsets, strides and element
 * counts from drivers/net/ethernet/intel/ice/ice_hw_autogen.h (Linux 7.3; its *_MAX_INDEX where it gives one, else
 * 8 per port and 768 per VSI as the surrounding arrays). The registers with behaviour are named by their blocks'
 * tables ({@link IceRegister}, {@code fw.lan.LanRegister}, {@link Gen2Register}).
 *
 * <p>{@link #find(long)} is a binary search over the entries sorted by base: no allocation, for the trace of every
 * access to such a register.
 */
public final class IceRegisterMap {
    /** What {@link #find} answers for an offset no entry names: a negative int, so the trace needs no allocation. */
    public static final int NO_ENTRY = -1;

    private static final int MAX = 160;
    /** The table: listed by the static block, then sorted by base. */
    private static final Register[] TABLE = new Register[MAX];
    /** The furthest byte any entry up to this one (in base order) reaches: bounds the backward scan. */
    private static final long[] REACH = new long[MAX];
    private static int entries;

    static {
        one("GL_MDCK_TX_TDPU", 0x00049348);
        one("PRTDCB_GENC", 0x00083000);
        array("GLGEN_GPIO_CTL", 0x000880C8, 4, 8);
        array("GLGEN_VFLRSTAT", 0x00093A04, 4, 8);
        one("PFPM_WUFC", 0x0009DC00);
        one("PRTRPB_RDPC", 0x000AC260);
        one("GLGEN_STAT", 0x000B612C);
        one("PFPM_APM", 0x000B8080);
        one("GLGEN_MAC_LINK_TOPO", 0x000B81DC);
        one("GLGEN_SWITCH_MODE_CONFIG", 0x000B81E0);
        one("GLINT_CTL", 0x0016CC54);
        one("PRTDCB_TUP2TC", 0x001D26C0);
        array("E800_PRTMAC_HSEC_CTL_TX_PS_QNT", 0x001E36E0, 32, 9);
        array("E800_PRTMAC_HSEC_CTL_TX_PS_RFSH_TMR", 0x001E3800, 32, 9);
        array("GL_PREEXT_L2_PMASK0", 0x0020F0FC, 4, 3);
        array("GL_PREEXT_L2_PMASK1", 0x0020F108, 4, 3);
        array("GLV_GOTCL", 0x00300000, 8, 768);
        array("GLV_UPTCL", 0x0030A000, 8, 768);
        array("GLV_MPTCL", 0x0030C000, 8, 768);
        array("GLV_BPTCL", 0x0030E000, 8, 768);
        array("GLV_TEPC", 0x00312000, 4, 768);
        array("GLPRT_GORCL", 0x00380000, 8, 8);
        array("GLPRT_MLFC", 0x00380040, 8, 8);
        array("GLPRT_MRFC", 0x00380080, 8, 8);
        array("GLPRT_CRCERRS", 0x00380100, 8, 8);
        array("GLPRT_RLEC", 0x00380140, 8, 8);
        array("GLPRT_ILLERRC", 0x003801C0, 8, 8);
        array("GLPRT_RUC", 0x00380200, 8, 8);
        array("GLPRT_ROC", 0x00380240, 8, 8);
        array("GLPRT_LXONRXC", 0x00380280, 8, 8);
        array("GLPRT_LXOFFRXC", 0x003802C0, 8, 8);
        array("GLPRT_PRC64L", 0x00380900, 8, 8);
        array("GLPRT_PRC127L", 0x00380940, 8, 8);
        array("GLPRT_PRC255L", 0x00380980, 8, 8);
        array("GLPRT_PRC511L", 0x003809C0, 8, 8);
        array("GLPRT_PRC1023L", 0x00380A00, 8, 8);
        array("GLPRT_PRC1522L", 0x00380A40, 8, 8);
        array("GLPRT_PRC9522L", 0x00380A80, 8, 8);
        array("GLPRT_RFC", 0x00380AC0, 8, 8);
        array("GLPRT_RJC", 0x00380B00, 8, 8);
        array("GLPRT_GOTCL", 0x00380B40, 8, 8);
        array("GLPRT_PTC64L", 0x00380B80, 8, 8);
        array("GLPRT_PTC127L", 0x00380BC0, 8, 8);
        array("GLPRT_PTC255L", 0x00380C00, 8, 8);
        array("GLPRT_PTC511L", 0x00380C40, 8, 8);
        array("GLPRT_PTC1023L", 0x00380C80, 8, 8);
        array("GLPRT_PTC1522L", 0x00380CC0, 8, 8);
        array("GLPRT_PTC9522L", 0x00380D00, 8, 8);
        array("GLPRT_LXONTXC", 0x00381140, 8, 8);
        array("GLPRT_LXOFFTXC", 0x00381180, 8, 8);
        array("GLPRT_UPTCL", 0x003811C0, 8, 8);
        array("GLPRT_MPTCL", 0x00381200, 8, 8);
        array("GLPRT_BPTCL", 0x00381240, 8, 8);
        array("GLPRT_TDOLD", 0x00381280, 8, 8);
        array("GLPRT_UPRCL", 0x00381300, 8, 8);
        array("GLPRT_MPRCL", 0x00381340, 8, 8);
        array("GLPRT_BPRCL", 0x00381380, 8, 8);
        array("GLSTAT_FD_CNT0L", 0x003A0000, 8, 8);
        array("GLV_GORCL", 0x003B0000, 8, 768);
        array("GLV_UPRCL", 0x003B2000, 8, 768);
        array("GLV_MPRCL", 0x003B4000, 8, 768);
        array("GLV_BPRCL", 0x003B6000, 8, 768);
        array("GLQF_HMASK", 0x0040FC00, 4, 32);
        array("GLQF_HMASK_SEL", 0x00410000, 4, 128);
        array("GLQF_FDMASK_SEL", 0x00410400, 4, 8);
        array("GLQF_FDMASK", 0x00410800, 4, 32);
        array("GLFLXP_RXDID_FLX_WRD_0", 0x0045C800, 4, 8);
        array("GLFLXP_RXDID_FLX_WRD_1", 0x0045C900, 4, 8);
        array("GLFLXP_RXDID_FLX_WRD_2", 0x0045CA00, 4, 8);
        array("GLFLXP_RXDID_FLX_WRD_3", 0x0045CB00, 4, 8);
        one("GLQF_FD_CNT", 0x00460018);
        one("PFQF_FD_SIZE", 0x00460100);
        // Two-dimensional arrays: NAME(_i, _j) = base + _i * stride + _j * stride2, in the macro's argument order.
        // GLINT_ITR(_i, _INT): _i the ITR index (0..2, stride 8192), _INT the vector (stride 4).
        array2("GLINT_ITR", 0x00154000, 8192, 3, 4, 2048);
        array2("GLFLXP_RXDID_FLAGS", 0x0045D000, 4, 64, 256, 4);
        array2("GLPRT_PXONRXC", 0x00380300, 8, 8, 64, 8);
        array2("GLPRT_PXOFFRXC", 0x00380500, 8, 8, 64, 8);
        array2("GLPRT_RXON2OFFCNT", 0x00380700, 8, 8, 64, 8);
        array2("GLPRT_PXONTXC", 0x00380D40, 8, 8, 64, 8);
        array2("GLPRT_PXOFFTXC", 0x00380F40, 8, 8, 64, 8);
        sort();
    }

    private IceRegisterMap() {
    }

    private static void one(String name, long base) {
        array2(name, base, 0, 1, 0, 1);
    }

    private static void array(String name, long base, int stride, int count) {
        array2(name, base, stride, count, 0, 1);
        if (stride == 8 && name.endsWith("L")) {
            // A 64-bit counter read as two dwords: the high half at +4.
            array2(name.substring(0, name.length() - 1) + "H", base + 4, stride, count, 0, 1);
        }
    }

    private static void array2(String name, long base, int stride, int count, int stride2, int count2) {
        TABLE[entries++] = new Register(name, base, stride, count, stride2, count2);
    }

    /** Sorts the table by base (stably: equal bases keep the order listed) and records each entry's reach. */
    private static void sort() {
        Arrays.sort(TABLE, 0, entries, Comparator.comparingLong(Register::base));
        long reach = 0;
        for (int i = 0; i < entries; i++) {
            reach = Math.max(reach, TABLE[i].end());
            REACH[i] = reach;
        }
    }

    /** The entry naming BAR0 byte offset {@code offset} (dword-aligned, inside an array), or {@link #NO_ENTRY}. */
    public static int find(long offset) {
        int lo = 0;
        int hi = entries - 1;
        int last = NO_ENTRY;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (TABLE[mid].base() <= offset) {
                last = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        for (int i = last; i >= 0 && REACH[i] > offset; i--) {
            if (TABLE[i].holds(offset)) {
                return i;
            }
        }
        return NO_ENTRY;
    }

    /** The register's name as ice_hw_autogen.h spells it (without the index arguments). */
    public static String name(int entry) {
        return TABLE[entry].name();
    }

    /**
     * Whether {@code offset} is an element of {@code entry}: at or past its base, at an element's start in both
     * dimensions, and below the element counts.
     */
    public static boolean isElement(int entry, long offset) {
        return TABLE[entry].holds(offset);
    }

    /**
     * The first index of {@code offset} in {@code entry} ({@code _i}; 0 for a plain register). Meaningful for an
     * element ({@link #isElement}); {@link #find} answers only entries the offset is an element of.
     */
    public static int index(int entry, long offset) {
        return TABLE[entry].index(offset, false);
    }

    /** The second index ({@code _j}) of {@code offset} in a two-dimensional {@code entry}; 0 otherwise. */
    public static int index2(int entry, long offset) {
        Register r = TABLE[entry];
        return r.holds(offset) ? r.index(offset, true) : 0;
    }

    /** Whether {@code entry} is two-dimensional. */
    public static boolean twoDimensional(int entry) {
        return TABLE[entry].stride2() != 0;
    }

    /** Entries in the table (the 64-bit counters' high halves included). */
    public static int size() {
        return entries;
    }

    /**
     * One register or array of registers as ice_hw_autogen.h defines it: its base, its first dimension ({@code _i}:
     * stride and count) and its second (GLINT_ITR(_i, _INT), GLPRT_PXONRXC(_i, _j), ...; stride 0 and count 1 when
     * none). The dimension of the larger stride is taken off an offset first, whichever argument of the macro it is
     * (GLINT_ITR's first, GLPRT_PXONRXC's second).
     */
    private record Register(String name, long base, int stride, int count, int stride2, int count2) {
        /** The byte after the last element. */
        long end() {
            return base + (long) stride * (count - 1) + (long) stride2 * (count2 - 1) + 4;
        }

        boolean holds(long offset) {
            long rel = offset - base;
            if (rel < 0 || outer(rel) >= outerCount()) {
                return false;
            }
            long rest = rel - outer(rel) * outerStride();
            if (innerStride() == 0) {
                return rest == 0;
            }
            return rest % innerStride() == 0 && rest / innerStride() < innerCount();
        }

        /** The first ({@code second} false) or second index of the element {@code offset}. */
        int index(long offset, boolean second) {
            long rel = offset - base;
            long outer = outer(rel);
            long inner = innerStride() == 0 ? 0 : (rel - outer * outerStride()) / innerStride();
            return (int) (second == firstOuter() ? inner : outer);
        }

        private boolean firstOuter() {
            return stride >= stride2;
        }

        private int outerStride() {
            return firstOuter() ? stride : stride2;
        }

        private int outerCount() {
            return firstOuter() ? count : count2;
        }

        private int innerStride() {
            return firstOuter() ? stride2 : stride;
        }

        private int innerCount() {
            return firstOuter() ? count2 : count;
        }

        /** The index along the larger stride of {@code rel} bytes past the base (0 when that stride is 0). */
        private long outer(long rel) {
            return outerStride() == 0 ? 0 : rel / outerStride();
        }
    }
}
