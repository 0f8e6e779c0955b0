package dev.irdmaemu.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.hmc.FpmCheck;
import dev.irdmaemu.fw.hmc.FpmQueryBuffer;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import java.util.EnumMap;
import java.util.Map;
import java.util.Random;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * The port of ctrl.c irdma_cfg_fpm_val (gen2, iWARP, PF, profile 1, limits_sel 7) against figures worked out by
 * hand from the kernel's arithmetic, and against hostile Query FPM answers: what the kernel refuses is refused,
 * nothing throws or loops forever.
 */
class FpmSizingTest {
    /** A query answer: max count and log2 size (block size for the free lists) per type. */
    private static final class Answer {
        final Map<HmcObjectType, long[]> objects = new EnumMap<>(HmcObjectType.class);
        int maxSds = 128;
        int htMultiplier = 4;
        int timerBucket = 16;

        Answer() {
            put(HmcObjectType.QP, 4096, 9);
            put(HmcObjectType.CQ, 32768, 6);
            put(HmcObjectType.SRQ, 0, 6);
            put(HmcObjectType.HTE, 262144, 5);
            put(HmcObjectType.ARP, 2048, 6);
            put(HmcObjectType.MR, 32768, 6);
            put(HmcObjectType.XF, 1 << 20, 3);
            put(HmcObjectType.XFFL, 16384, 64);
            put(HmcObjectType.Q1, 1 << 20, 3);
            put(HmcObjectType.Q1FL, 16384, 64);
            put(HmcObjectType.TIMER, 1024, 7);
            put(HmcObjectType.FSIMC, 1024, 6);
            put(HmcObjectType.FSIAV, 1024, 6);
            put(HmcObjectType.PBLE, 262144, 0);
            put(HmcObjectType.RRF, 131072, 4);
            put(HmcObjectType.RRFFL, 2048, 64);
            put(HmcObjectType.HDR, 16384, 6);
            put(HmcObjectType.MD, 16384, 4);
            put(HmcObjectType.OOISC, 131072, 4);
            put(HmcObjectType.OOISCFFL, 2048, 64);
        }

        Answer put(HmcObjectType t, long max, long sizeOrBlock) {
            objects.put(t, new long[] {max, sizeOrBlock});
            return this;
        }

        FpmQueryBuffer buffer() {
            BytesStore<?, ?> s = BytesStore.wrap(new byte[FpmQueryBuffer.SIZE]);
            FpmQueryBuffer.clear(s, 0);
            FpmQueryBuffer.writeSdInfo(s, 0, 0, maxSds);
            objects.forEach((t, v) -> FpmQueryBuffer.writeObject(s, 0, t, v[0], v[1]));
            FpmQueryBuffer.writeMisc(s, 0, 256, htMultiplier, timerBucket, 0);
            return new FpmQueryBuffer().wrap(s, 0);
        }

        FpmSizing size() {
            return FpmSizing.gen2(buffer());
        }
    }

    @Test
    void theModelsAnswerCommitsFourThousandQpsInOneRound() {
        FpmSizing f = new Answer().size();
        assertTrue(f.ok(), f.toString());
        assertEquals(1, f.loops());
        // qpwanted = largest power of 2 <= min(256 Ki, 4096); Q1 = 2 x 127 x QP fits 1 Mi
        assertEquals(4096, f.count(HmcObjectType.QP));
        assertEquals(8192, f.count(HmcObjectType.CQ));
        // HTE = next power of 2 of roundup512(QP + FSIMC) x HT multiplier = 8192 x 4
        assertEquals(32768, f.count(HmcObjectType.HTE));
        // cfg_fpm_value_gen_2: XF = 4 x block x QP, XFFL = XF / block, RRF = OOISC = 32 x QP, HDR = QP
        assertEquals(4L * 64 * 4096, f.count(HmcObjectType.XF));
        assertEquals(4L * 4096, f.count(HmcObjectType.XFFL));
        assertEquals(254L * 4096, f.count(HmcObjectType.Q1));
        assertEquals(254L * 4096 / 64, f.count(HmcObjectType.Q1FL));
        assertEquals(32L * 4096, f.count(HmcObjectType.RRF));
        assertEquals(32L * 4096 / 64, f.count(HmcObjectType.RRFFL));
        assertEquals(32L * 4096, f.count(HmcObjectType.OOISC));
        assertEquals(4096, f.count(HmcObjectType.HDR));
        // TIMER = (roundup512(QP) / 512 + 1) x bucket
        assertEquals((4096 / 512 + 1) * 16, f.count(HmcObjectType.TIMER));
        // the rest at their maximum; MD is never touched by the loop, SRQ reserved, APBVT 1 (written as 0)
        assertEquals(32768, f.count(HmcObjectType.MR));
        assertEquals(262144, f.count(HmcObjectType.PBLE));
        assertEquals(16384, f.count(HmcObjectType.MD));
        assertEquals(0, f.count(HmcObjectType.SRQ));
        assertEquals(1, f.count(HmcObjectType.APBVT_ENTRY));
        assertEquals(0, f.commitCount(HmcObjectType.APBVT_ENTRY));
        assertEquals(15, f.sdNeeded());
    }

    @Test
    void aLargerQpMaximumIsHalvedUntilQ1Fits() {
        // irdma_cfg_fpm_val halves qpwanted while 2 x 127 x QP > Q1 max: 16384 .. 1024 (260 096) do not fit 254 000
        FpmSizing f = new Answer().put(HmcObjectType.QP, 16384, 9).put(HmcObjectType.Q1, 254_000, 3).size();
        assertTrue(f.ok(), f.toString());
        assertEquals(512, f.count(HmcObjectType.QP));
        assertEquals(254L * 512, f.count(HmcObjectType.Q1));
    }

    @Test
    void aTightSdBudgetGivesUpPblesAndMrsBeforeQps() {
        Answer a = new Answer();
        a.maxSds = 14;
        FpmSizing f = a.size();
        assertTrue(f.ok(), f.toString());
        assertTrue(f.loops() > 1);
        assertTrue(f.sdNeeded() <= 14);
        assertEquals(4096, f.count(HmcObjectType.QP), "one SD short: PBLEs go first");
        assertTrue(f.count(HmcObjectType.PBLE) < 262144);
    }

    @Test
    void anSdBudgetNothingFitsInIsRefused() {
        // one SD still fits after the loop shrinks QPs to 128 and halves PBLEs and MRs
        Answer one = new Answer();
        one.maxSds = 1;
        FpmSizing small = one.size();
        assertTrue(small.ok(), small.toString());
        assertEquals(128, small.count(HmcObjectType.QP));
        // MD objects the loop never reduces (16 Ki of 4 KiB = 32 SDs) cannot fit 16 SDs: -EINVAL after 2000 rounds
        Answer a = new Answer().put(HmcObjectType.MD, 16384, 12);
        a.maxSds = 16;
        FpmSizing f = a.size();
        assertEquals(FpmSizing.Outcome.SD_BUDGET_EXCEEDED, f.outcome());
        assertFalse(f.ok());
        assertEquals(2000, f.loops());
        a.maxSds = 0;
        assertEquals(FpmSizing.Outcome.SD_BUDGET_EXCEEDED, a.size().outcome());
    }

    @Test
    void blockSizesOfZeroAreRefusedAsTheParserRefusesThem() {
        // irdma_sc_parse_fpm_query_buf: -EINVAL for XF objects without XFBLOCKSIZE, no Q1BLOCKSIZE, RRF / OOISC
        // free-list objects without a block size
        FpmSizing xf = new Answer().put(HmcObjectType.XFFL, 16384, 0).size();
        assertEquals(FpmSizing.Outcome.QUERY_REFUSED, xf.outcome());
        assertEquals(FpmCheck.MISSING_BLOCK_SIZE, xf.check());
        assertEquals(FpmSizing.Outcome.QUERY_REFUSED, new Answer().put(HmcObjectType.Q1FL, 0, 0).size().outcome());
        assertEquals(FpmSizing.Outcome.QUERY_REFUSED, new Answer().put(HmcObjectType.RRFFL, 5, 0).size().outcome());
        assertEquals(FpmSizing.Outcome.QUERY_REFUSED,
                new Answer().put(HmcObjectType.OOISCFFL, 5, 0).size().outcome());
        // a free list with no objects may go without its block size, as the parser allows
        FpmSizing rrf = new Answer().put(HmcObjectType.RRFFL, 0, 0).size();
        assertTrue(rrf.ok(), rrf.toString());
        assertEquals(0, rrf.count(HmcObjectType.RRFFL));
        // XF max 0 with block 0 passes the parser but would divide by zero in irdma_cfg_fpm_val: refused
        assertEquals(FpmSizing.Outcome.ZERO_XF_BLOCK,
                new Answer().put(HmcObjectType.XF, 0, 3).put(HmcObjectType.XFFL, 0, 0).size().outcome());
        // log2 sizes the driver cannot shift by
        assertEquals(FpmSizing.Outcome.QUERY_REFUSED, new Answer().put(HmcObjectType.MR, 5, 64).size().outcome());
    }

    @Test
    void zeroCountsCommitNoQpsTheDriverThenRefuses() {
        // QP max 0: the kernel's arithmetic ends at qpwanted 0 and commits it; bring-up then has no PUDA QPs
        FpmSizing f = new Answer().put(HmcObjectType.QP, 0, 9).size();
        assertTrue(f.ok(), f.toString());
        assertEquals(0, f.count(HmcObjectType.QP));
        assertEquals(0, f.count(HmcObjectType.CQ));
        assertEquals(0, f.count(HmcObjectType.XF));
        // everything 0 but the block sizes
        Answer z = new Answer();
        z.objects.replaceAll((t, v) -> new long[] {0, v[1]});
        FpmSizing g = z.size();
        assertTrue(g.ok(), g.toString());
        for (HmcObjectType t : HmcObjectType.values()) {
            long expect = switch (t) {
                case APBVT_ENTRY -> 1;
                // HTE = next power of 2 of roundup512(0) = 1, x multiplier; TIMER = (0 + 1) x bucket
                case HTE -> 4;
                case TIMER -> 16;
                default -> 0;
            };
            assertEquals(expect, g.count(t), t.name());
        }
    }

    @Test
    void noAnswerMakesThePortThrowOrSpin() {
        Random r = new Random(14);
        for (int i = 0; i < 3000; i++) {
            BytesStore<?, ?> s = BytesStore.wrap(new byte[FpmQueryBuffer.SIZE]);
            for (int o = 0; o < FpmQueryBuffer.SIZE; o += 8) {
                long v = r.nextLong();
                // keep many log2 sizes and counts plausible so that the loop runs, not only the parser
                if (r.nextBoolean()) {
                    v = (long) r.nextInt(40) << 32 | (r.nextInt(1 << r.nextInt(31)) & 0xffff_ffffL);
                }
                s.writeLong(o, v);
            }
            FpmSizing f = FpmSizing.gen2(new FpmQueryBuffer().wrap(s, 0));
            if (f.ok()) {
                assertTrue(f.sdNeeded() <= f.maxSds(), f.toString());
                assertTrue(f.count(HmcObjectType.QP) <= FpmSizing.GEN2_QP_LIMIT);
            }
        }
    }
}
