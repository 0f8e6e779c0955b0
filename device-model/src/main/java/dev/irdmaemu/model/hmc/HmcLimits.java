package dev.irdmaemu.model.hmc;

import dev.irdmaemu.fw.hmc.HmcObjectType;

/**
 * What the model answers to Query FPM Values: per HMC object type the maximum count and the object size (log2),
 * the free-list block sizes, the SD budget and the misc quadword. The values are the model's own choice, sized
 * like a small E810 function (16 Ki QPs, 32 Ki CQs) so that the driver's sizing (ctrl.c irdma_cfg_fpm_val: CQ =
 * 2 x QP, HTE = next power of two of QP + FSIMC rounded to 512, times the HT multiplier; TIMER = (QP / 512 + 1) x
 * timer bucket) fits within them and within {@link #MAX_PE_SDS} 2 MiB segments. Sizes: a QP object holds the
 * 256-byte host context irdma_sc_qp_setctx writes (user.h IRDMA_QP_CTX_SIZE), rounded up to 512; the other sizes
 * are plausible powers of two (the kernel takes whatever the device reports).
 */
public final class HmcLimits {
    private HmcLimits() {
    }

    public static final int FIRST_PE_SD_INDEX = 0;
    public static final int MAX_PE_SDS = 128;
    public static final int MAX_CEQS = 256;
    public static final int HT_MULTIPLIER = 4;
    public static final int TIMER_BUCKET = 16;
    /** MAX_IRD code written in the misc quadword (read only with IRDMA_MANAGE_RSRC_VER2; 0 = driver default). */
    public static final int MAX_IRD = 0;
    public static final int XF_BLOCK_SIZE = 64;
    public static final int Q1_BLOCK_SIZE = 64;
    public static final int RRF_BLOCK_SIZE = 64;
    public static final int OOISC_BLOCK_SIZE = 64;

    private static final long[] MAX = new long[HmcObjectType.values().length];
    private static final int[] LOG2 = new int[HmcObjectType.values().length];

    static {
        set(HmcObjectType.QP, 16384, 9);
        set(HmcObjectType.CQ, 32768, 6);
        set(HmcObjectType.SRQ, 0, 6);
        set(HmcObjectType.HTE, 262144, 5);
        set(HmcObjectType.ARP, 2048, 6);
        set(HmcObjectType.APBVT_ENTRY, 1, 13);
        set(HmcObjectType.MR, 32768, 6);
        set(HmcObjectType.XF, 16384, 7);
        set(HmcObjectType.XFFL, 16384 / XF_BLOCK_SIZE, 2);
        set(HmcObjectType.Q1, 32768, 7);
        set(HmcObjectType.Q1FL, 32768 / Q1_BLOCK_SIZE, 2);
        set(HmcObjectType.TIMER, 1024, 7);
        set(HmcObjectType.FSIMC, 1024, 6);
        set(HmcObjectType.FSIAV, 1024, 6);
        set(HmcObjectType.PBLE, 262144, 3);
        set(HmcObjectType.RRF, 16384, 6);
        set(HmcObjectType.RRFFL, 16384 / RRF_BLOCK_SIZE, 2);
        set(HmcObjectType.HDR, 16384, 6);
        set(HmcObjectType.MD, 16384, 6);
        set(HmcObjectType.OOISC, 4096, 6);
        set(HmcObjectType.OOISCFFL, 4096 / OOISC_BLOCK_SIZE, 2);
    }

    private static void set(HmcObjectType t, long max, int log2) {
        MAX[t.ordinal()] = max;
        LOG2[t.ordinal()] = log2;
    }

    public static long maxCount(HmcObjectType t) {
        return MAX[t.ordinal()];
    }

    /** log2 of the object size in bytes (free lists: 4 bytes, PBLE: 8 bytes, APBVT: 8192, as the driver assumes). */
    public static int sizeLog2(HmcObjectType t) {
        return LOG2[t.ordinal()];
    }

    public static long objectSize(HmcObjectType t) {
        return 1L << LOG2[t.ordinal()];
    }

    /** The free-list block size of {@code t}, 0 for the other types. */
    public static int blockSize(HmcObjectType t) {
        return switch (t) {
            case XFFL -> XF_BLOCK_SIZE;
            case Q1FL -> Q1_BLOCK_SIZE;
            case RRFFL -> RRF_BLOCK_SIZE;
            case OOISCFFL -> OOISC_BLOCK_SIZE;
            default -> 0;
        };
    }
}
