package dev.irdmaemu.model.hmc;

import dev.irdmaemu.fw.hmc.HmcObjectType;

/**
 * What the model answers to Query FPM Values: per HMC object type the maximum count and the object size (log2),
 * the free-list block sizes, the SD budget and the misc quadword, chosen so that irdma.ko 7.3's own sizing
 * (ctrl.c irdma_cfg_fpm_val, gen2 iWARP, limits_sel 7 asking for 256 Ki QPs) commits without a reduction round:
 * <ul>
 * <li>QPs: 4096, the count a real E810 PF ends with (a public ibv_devinfo of an E810, irdma0, FW 1.74, reports
 * max_qp 4092 and max_cq 8189: 4096 QPs and 2 x 4096 CQs committed, minus the driver's reserved ids). The driver
 * asks min(256 Ki, max) = 4096; CQ = 2 x QP = 8192.</li>
 * <li>XF, Q1, RRF, OOISC and their free lists: at least what cfg_fpm_value_gen_2 / irdma_q1_cnt derive from 4096
 * QPs (XF = 4 x XF block x QP = 1 Mi, XFFL = XF / block = 16 Ki, Q1 = 2 x ICRDMA_MAX_IRD_SIZE x QP = 1 040 384,
 * Q1FL = Q1 / block, RRF = OOISC = 32 x QP, their free lists / block), since the driver never clamps those to the
 * queried maximum and the model refuses a count above it.</li>
 * <li>Sizes: the QP object holds the 256-byte host context irdma_sc_qp_setctx writes (user.h IRDMA_QP_CTX_SIZE),
 * rounded up to 512; the PBLE object is 8 bytes (the driver's own figure). The model keeps nothing in the XF, Q1,
 * RRF, OOISC, MD, HDR and TIMER objects, so it reports small sizes for them (8 or 16 bytes; the kernel takes
 * whatever the device reports): the whole HMC then needs 15 of the 2 MiB direct SDs irdma backs it with (14 for
 * the objects irdma_create_hmc_objs backs up front, about 28 MiB of host memory, plus the PBLE object's SD-sized
 * slice, which pble.c backs on demand), against hundreds on a real E810 whose objects are larger.</li>
 * <li>MR, FSIAV, ARP, FSIMC: the model's table sizes (a real E810 offers 4 Mi MRs and 128 Ki AHs; the model
 * allocates its tables at these maxima, so it keeps them small).</li>
 * </ul>
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
        set(HmcObjectType.QP, 4096, 9);
        set(HmcObjectType.CQ, 32768, 6);
        set(HmcObjectType.SRQ, 0, 6);
        set(HmcObjectType.HTE, 262144, 5);
        set(HmcObjectType.ARP, 2048, 6);
        set(HmcObjectType.APBVT_ENTRY, 1, 13);
        set(HmcObjectType.MR, 32768, 6);
        set(HmcObjectType.XF, 1 << 20, 3);
        set(HmcObjectType.XFFL, (1 << 20) / XF_BLOCK_SIZE, 2);
        set(HmcObjectType.Q1, 1 << 20, 3);
        set(HmcObjectType.Q1FL, (1 << 20) / Q1_BLOCK_SIZE, 2);
        set(HmcObjectType.TIMER, 1024, 7);
        set(HmcObjectType.FSIMC, 1024, 6);
        set(HmcObjectType.FSIAV, 1024, 6);
        set(HmcObjectType.PBLE, 262144, 3);
        set(HmcObjectType.RRF, 131072, 4);
        set(HmcObjectType.RRFFL, 131072 / RRF_BLOCK_SIZE, 2);
        set(HmcObjectType.HDR, 16384, 6);
        set(HmcObjectType.MD, 16384, 4);
        set(HmcObjectType.OOISC, 131072, 4);
        set(HmcObjectType.OOISCFFL, 131072 / OOISC_BLOCK_SIZE, 2);
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
