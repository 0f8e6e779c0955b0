package dev.irdmaemu.driver;

import dev.irdmaemu.fw.hmc.FpmCheck;
import dev.irdmaemu.fw.hmc.FpmQueryBuffer;
import dev.irdmaemu.fw.hmc.HmcObjectType;

/**
 * The HMC sizing irdma.ko 7.3 does between Query FPM Values and Commit FPM Values (ctrl.c irdma_cfg_fpm_val with
 * irdma_est_sd, irdma_q1_cnt and cfg_fpm_value_gen_2), for the case the driver runs on an E810 PF: gen2, iWARP
 * (protocol_used IRDMA_IWARP_PROTOCOL_ONLY), privileged, HMC profile IRDMA_HMC_PROFILE_DEFAULT, max_hw_ird
 * ICRDMA_MAX_IRD_SIZE (icrdma_hw.h) and the QP limit of rsrc_limits_table[limits_sel] (hw.c irdma_hmc_setup; gen2
 * sets limits_sel 7 in icrdma_if.c icrdma_fill_device_info: SZ_256K).
 *
 * <p>The counts are kept as the kernel keeps them, in u32 ({@code obj_info[].cnt}), wrapping where its arithmetic
 * would; the SD estimate in u64. It serves two purposes: the driver commits what it answers (so the model is driven
 * with irdma's own numbers) and tests use it as the oracle for what the model must accept.
 */
public final class FpmSizing {
    /** hw.c rsrc_limits_table[7].qplimit (SZ_256K): limits_sel as icrdma_fill_device_info sets it. */
    public static final int GEN2_QP_LIMIT = 256 * 1024;
    /** icrdma_hw.h ICRDMA_MAX_IRD_SIZE: dev->hw_attrs.max_hw_ird (no IRDMA_MANAGE_RSRC_VER2 on the model). */
    public static final int ICRDMA_MAX_IRD_SIZE = 127;
    /** hmc.h FPM_MULTIPLIER. */
    static final long FPM_MULTIPLIER = 1024;
    /** The loop bound of irdma_cfg_fpm_val. */
    static final int MAX_LOOPS = 2000;
    private static final long U32 = 0xFFFF_FFFFL;
    private static final long SD_BYTES = 0x20_0000L;
    private static final HmcObjectType[] TYPES = HmcObjectType.values();

    /** How the sizing ended. */
    public enum Outcome {
        /** Counts chosen; commit them. */
        OK,
        /** irdma_sc_parse_fpm_query_buf answers -EINVAL (a free list without its block size); see {@link #check()}. */
        QUERY_REFUSED,
        /**
         * The XF block size is 0 while the XF max count is 0 too: the parser lets it through, but irdma_cfg_fpm_val
         * would then divide XF by it. The port refuses instead of faulting.
         */
        ZERO_XF_BLOCK,
        /** irdma_cfg_fpm_val's -EINVAL: after its 2000 rounds the objects still need more than max_pe_sds SDs. */
        SD_BUDGET_EXCEEDED
    }

    private final long[] count = new long[TYPES.length];
    private final long[] size = new long[TYPES.length];
    private Outcome outcome;
    private FpmCheck check = FpmCheck.ACCEPTED;
    private long sdNeeded;
    private int loops;
    private int maxSds;
    // the query's answer and the running wishes of irdma_cfg_fpm_val's loop
    private final long[] max = new long[TYPES.length];
    private long xfBlock;
    private long q1Block;
    private long rrfBlock;
    private long ooiscBlock;
    private long htMultiplier;
    private long timerBucket;
    private long qp;
    private long mrWanted;
    private long pbleWanted;

    private FpmSizing() {
    }

    /** Sizes for the gen2 PF from the device's answer in {@code query}, asking for {@code qpLimit} QPs. */
    public static FpmSizing of(FpmQueryBuffer query, int qpLimit) {
        FpmSizing s = new FpmSizing();
        s.run(query, qpLimit);
        return s;
    }

    /** Sizes as irdma.ko does on an E810 PF ({@link #GEN2_QP_LIMIT}). */
    public static FpmSizing gen2(FpmQueryBuffer query) {
        return of(query, GEN2_QP_LIMIT);
    }

    private void run(FpmQueryBuffer q, int qpLimit) {
        check = q.validate();
        if (!check.accepted()) {
            outcome = Outcome.QUERY_REFUSED;
            return;
        }
        xfBlock = q.blockSize(HmcObjectType.XFFL) & U32;
        q1Block = q.blockSize(HmcObjectType.Q1FL) & U32;
        rrfBlock = q.blockSize(HmcObjectType.RRFFL) & U32;
        ooiscBlock = q.blockSize(HmcObjectType.OOISCFFL) & U32;
        if (xfBlock == 0) {
            outcome = Outcome.ZERO_XF_BLOCK;
            return;
        }
        for (HmcObjectType t : TYPES) {
            max[t.ordinal()] = q.maxCount(t) & U32;
            size[t.ordinal()] = q.objectSize(t);
        }
        maxSds = q.maxPeSds();
        htMultiplier = q.htMultiplier();
        timerBucket = q.timerBucket();

        System.arraycopy(max, 0, count, 0, count.length);
        sdNeeded = estimateSds();
        startingCounts(qpLimit);
        loops = 0;
        do {
            ++loops;
            gen2Counts();
            sdNeeded = estimateSds();
            if (sdNeeded <= maxSds) {
                break;
            }
            shrink(sdNeeded - maxSds);
        } while (loops < MAX_LOOPS);

        if (sdNeeded > maxSds) {
            outcome = Outcome.SD_BUDGET_EXCEEDED;
            return;
        }
        if (loops > 1 && sdNeeded < maxSds) {
            pbleWanted = (pbleWanted + (maxSds - sdNeeded) * 256 * FPM_MULTIPLIER) & U32;
            set(HmcObjectType.PBLE, pbleWanted);
            sdNeeded = estimateSds();
        }
        outcome = Outcome.OK;
    }

    /**
     * irdma_cfg_fpm_val before its loop: QPs the largest power of two within the limit and the device's maximum
     * (halved while Q1 would not fit), MRs and PBLEs as many as the device offers, the fixed objects set.
     */
    private void startingCounts(int qpLimit) {
        long want = Math.min(qpLimit & U32, max[HmcObjectType.QP.ordinal()]);
        long p2 = 1;
        while (p2 <= want) {
            p2 *= 2;
        }
        qp = p2 / 2;
        mrWanted = max[HmcObjectType.MR.ordinal()];
        pbleWanted = max[HmcObjectType.PBLE.ordinal()];
        set(HmcObjectType.FSIMC, max[HmcObjectType.FSIMC.ordinal()]);
        set(HmcObjectType.FSIAV, max[HmcObjectType.FSIAV.ordinal()]);
        set(HmcObjectType.ARP, max[HmcObjectType.ARP.ordinal()]);
        set(HmcObjectType.APBVT_ENTRY, 1);
        while (q1Count(qp) > max[HmcObjectType.Q1.ordinal()]) {
            qp /= 2;
        }
    }

    /** One round's counts from the current QP, MR and PBLE wishes (irdma_cfg_fpm_val, then cfg_fpm_value_gen_2). */
    private void gen2Counts() {
        set(HmcObjectType.QP, qp);
        set(HmcObjectType.CQ, Math.min((2 * qp) & U32, get(HmcObjectType.CQ)));
        set(HmcObjectType.SRQ, 0);
        set(HmcObjectType.MR, mrWanted);
        long hte = roundUp((qp + get(HmcObjectType.FSIMC)) & U32, 512);
        long h2 = 1;
        while (h2 < hte) {
            h2 *= 2;
        }
        set(HmcObjectType.HTE, h2 * htMultiplier);
        // cfg_fpm_value_gen_2
        set(HmcObjectType.XF, 4 * xfBlock * qp);
        set(HmcObjectType.HDR, qp);
        if (max[HmcObjectType.RRF.ordinal()] != 0) {
            set(HmcObjectType.RRF, 32 * qp);
        }
        if (max[HmcObjectType.RRFFL.ordinal()] != 0) {
            set(HmcObjectType.RRFFL, get(HmcObjectType.RRF) / rrfBlock);
        }
        if (max[HmcObjectType.OOISC.ordinal()] != 0) {
            set(HmcObjectType.OOISC, 32 * qp);
        }
        if (max[HmcObjectType.OOISCFFL.ordinal()] != 0) {
            set(HmcObjectType.OOISCFFL, get(HmcObjectType.OOISC) / ooiscBlock);
        }
        set(HmcObjectType.Q1, q1Count(qp));
        set(HmcObjectType.XFFL, get(HmcObjectType.XF) / xfBlock);
        set(HmcObjectType.Q1FL, get(HmcObjectType.Q1) / q1Block);
        set(HmcObjectType.TIMER, (roundUp(qp, 512) / 512 + 1) * timerBucket);
        set(HmcObjectType.PBLE, pbleWanted);
    }

    /** The end of one round over the SD budget by {@code sdDiff}: what irdma_cfg_fpm_val gives up for the next. */
    private void shrink(long sdDiff) {
        if (sdDiff > 128) {
            if (loops % 2 == 0 && qp > 128) {
                qp /= 2;
            } else {
                pbleWanted /= 2;
                mrWanted /= 2;
            }
            return;
        }
        // the profile is IRDMA_HMC_PROFILE_DEFAULT, never FAVOR_VF
        if (pbleWanted > 512 * FPM_MULTIPLIER * sdDiff) {
            pbleWanted = (pbleWanted - 256 * FPM_MULTIPLIER * sdDiff) & U32;
            return;
        } else if (pbleWanted > 100 * FPM_MULTIPLIER) {
            pbleWanted -= 10 * FPM_MULTIPLIER;
        } else if (pbleWanted > FPM_MULTIPLIER) {
            pbleWanted -= FPM_MULTIPLIER;
        } else if (qp <= 128) {
            halveAbove256(HmcObjectType.FSIMC);
            halveAbove256(HmcObjectType.FSIAV);
        }
        if (mrWanted > FPM_MULTIPLIER) {
            mrWanted -= FPM_MULTIPLIER;
        }
        if (loops % 10 == 0 && qp > 128) {
            qp /= 2;
            halveAbove256(HmcObjectType.FSIAV);
        }
    }

    private void halveAbove256(HmcObjectType t) {
        if (get(t) > 256) {
            set(t, get(t) / 2);
        }
    }

    /** irdma_q1_cnt, gen2 iWARP: max_hw_ird x 2 x QPs, not rounded. */
    private static long q1Count(long qp) {
        return (ICRDMA_MAX_IRD_SIZE * 2L * qp) & U32;
    }

    /** irdma_est_sd for a privileged function: every object rounded to 512 bytes, PBLE included, in 2 MiB SDs. */
    private long estimateSds() {
        long bytes = 0;
        for (HmcObjectType t : TYPES) {
            bytes += roundUp(count[t.ordinal()] * size[t.ordinal()], 512);
        }
        long sd = bytes / SD_BYTES + (bytes % SD_BYTES != 0 ? 1 : 0);
        return Math.min(sd, U32 - 1);
    }

    private static long roundUp(long v, long unit) {
        return (v + unit - 1) / unit * unit;
    }

    private long get(HmcObjectType t) {
        return count[t.ordinal()];
    }

    private void set(HmcObjectType t, long v) {
        count[t.ordinal()] = v & U32;
    }

    public Outcome outcome() {
        return outcome;
    }

    public boolean ok() {
        return outcome == Outcome.OK;
    }

    /** The query buffer's check when {@link Outcome#QUERY_REFUSED}. */
    public FpmCheck check() {
        return check;
    }

    /**
     * The count irdma_sc_cfg_iw_fpm writes for {@code t} (APBVT: the driver keeps 1 but writes 0, "RSVD"). Only
     * meaningful when {@link #ok()}.
     */
    public long count(HmcObjectType t) {
        return count[t.ordinal()];
    }

    /** The count the commit buffer carries for {@code t}. */
    public long commitCount(HmcObjectType t) {
        return t == HmcObjectType.APBVT_ENTRY ? 0 : count[t.ordinal()];
    }

    /** The object size the driver took from the query. */
    public long objectSize(HmcObjectType t) {
        return size[t.ordinal()];
    }

    /** irdma_est_sd of the final counts. */
    public long sdNeeded() {
        return sdNeeded;
    }

    public int maxSds() {
        return maxSds;
    }

    /** Rounds of the reduction loop (1 when everything fit at once). */
    public int loops() {
        return loops;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("FpmSizing[").append(outcome);
        if (ok()) {
            b.append(" sds ").append(sdNeeded).append('/').append(maxSds).append(" loops ").append(loops);
            for (HmcObjectType t : TYPES) {
                b.append(' ').append(t.name()).append('=').append(count[t.ordinal()]);
            }
        }
        return b.append(']').toString();
    }
}
