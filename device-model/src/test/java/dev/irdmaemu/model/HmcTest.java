package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.hmc.FpmCheck;
import dev.irdmaemu.fw.hmc.FpmCommitBuffer;
import dev.irdmaemu.fw.hmc.FpmQueryBuffer;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.hmc.PageDescriptor;
import dev.irdmaemu.fw.hmc.SegmentDescriptor;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.model.hmc.HmcFault;
import dev.irdmaemu.model.hmc.HmcLimits;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Query / Commit FPM values, Update PE SDs, PD invalidation, and object index -> host address. */
class HmcTest {
    private final BareFunction d = new BareFunction();

    @BeforeEach
    void cqp() {
        assertTrue(Gen2Registers.ccqpDone(d.createCqp(64)));
    }

    @AfterEach
    void close() {
        d.close();
    }

    /**
     * The ARP cache lives in the HMC (IRDMA_HMC_IW_ARP): irdma adds an entry for its own address at probe and never
     * deletes it, and its teardown clears every SD. That leaves no entry on the model (E810LifecycleBootTest saw one
     * left after rmmod irdma before), and a new commit starts with an empty cache too.
     */
    @Test
    void theArpCacheGoesWithTheLastSdAndWithANewCommit() {
        d.bringUpHmcAndCcq(64);
        d.post((o, v) -> CqpWqeWriter.addArpEntry(d.store(), o, 1, 0, 0x02_00_5E_10_00_01L, true, v));
        assertFalse(d.completion().error());
        assertTrue(d.dev.arp().valid(1));
        assertEquals(1, d.dev.arp().validCount());

        // irdma_del_hmc_objects: every SD cleared
        int sds = d.sdPdPages.size();
        long[] cmds = new long[sds];
        long[] data = new long[sds];
        for (int sd = 0; sd < sds; sd++) {
            cmds[sd] = SegmentDescriptor.command(sd);
            data[sd] = SegmentDescriptor.clearData(false);
        }
        assertFalse(d.updateSds(cmds, data, sds).error());
        assertEquals(0, d.dev.hmc().validSds());
        assertEquals(0, d.dev.arp().validCount(), "no SD, no ARP cache");

        // back again, an entry, then a new layout: empty again
        assertFalse(d.backHmcPaged().error());
        d.post((o, v) -> CqpWqeWriter.addArpEntry(d.store(), o, 2, 0, 0x02_00_5E_10_00_02L, true, v));
        assertFalse(d.completion().error());
        assertEquals(1, d.dev.arp().validCount());
        assertFalse(d.queryAndCommit(BareFunction.SMALL).error());
        assertEquals(0, d.dev.arp().validCount(), "a new FPM layout starts with an empty ARP cache");
    }

    @Test
    void queryAnswersTheModelsLimitsAsIrdmaParsesThem() {
        long q = d.alloc(FpmQueryBuffer.SIZE);
        assertFalse(d.queryFpm(q).error());
        // ctrl.c irdma_sc_parse_fpm_query_buf reads these.
        FpmQueryBuffer b = new FpmQueryBuffer().wrap(d.store(), d.off(q));
        assertEquals(FpmCheck.ACCEPTED, b.validate());
        assertEquals(HmcLimits.MAX_PE_SDS, b.maxPeSds());
        assertEquals(0, b.firstPeSdIndex());
        assertEquals(4096, b.maxCount(HmcObjectType.QP));
        assertEquals(512, b.objectSize(HmcObjectType.QP));
        assertEquals(32768, b.maxCount(HmcObjectType.CQ));
        assertEquals(HmcLimits.XF_BLOCK_SIZE, b.blockSize(HmcObjectType.XFFL));
        assertEquals(8, b.objectSize(HmcObjectType.PBLE));
        assertEquals(HmcLimits.MAX_CEQS, b.maxCeqs());
        assertEquals(HmcLimits.HT_MULTIPLIER, b.htMultiplier());
        assertEquals(HmcLimits.TIMER_BUCKET, b.timerBucket());
    }

    @Test
    void commitLaysObjectsOutAndAnswersCountsAndBases() {
        assertFalse(d.queryAndCommit(BareFunction.SMALL).error());
        long end = -1;
        for (HmcObjectType t : HmcObjectType.values()) {
            long base = d.committedBase.get(t);
            assertEquals(0, base % 512, t.name());
            if (d.committedCount.get(t) > 0) {
                assertTrue(base >= end, t + " overlaps the previous type");
                end = base + d.committedCount.get(t) * d.dev.hmc().objectSize(t);
            }
        }
        assertEquals(64, d.committedCount.get(HmcObjectType.QP));
        assertEquals(128, d.committedCount.get(HmcObjectType.CQ));
        assertEquals(1, d.committedCount.get(HmcObjectType.APBVT_ENTRY));
        assertEquals(0, d.committedCount.get(HmcObjectType.SRQ));
        assertEquals(32, d.dev.arp().limit());
    }

    @Test
    void aCountAboveTheMaximumIsRefusedAndNothingIsCommitted() {
        Map<HmcObjectType, Long> big = new EnumMap<>(BareFunction.SMALL);
        big.put(HmcObjectType.QP, HmcLimits.maxCount(HmcObjectType.QP) + 1);
        BareFunction.Completion c = d.queryAndCommit(big);
        assertTrue(c.error());
        assertEquals(CqpFault.INDEX_OUT_OF_RANGE.minor(), c.minor());
        assertFalse(d.dev.hmc().committed());
        assertTrue(d.commitFpm(BareFunction.UNMAPPED).error());
        // Another HMC function's id is not ours.
        long b = d.alloc(FpmCommitBuffer.SIZE);
        d.post((o, v) -> CqpWqeWriter.commitFpm(d.store(), o, 5, b, false, v));
        assertEquals(CqpFault.INVALID_FIELD.errCodes(), d.reg(Gen2Register.CQPERRCODES));
    }

    @Test
    void objectIndexResolvesThroughSdAndPdToTheBackingPage() {
        d.queryAndCommit(BareFunction.SMALL);
        assertFalse(d.backHmcPaged().error());
        long qpBase = d.committedBase.get(HmcObjectType.QP);
        long offset = qpBase + 5 * 512;
        // Walk the tree as the driver built it: SD 0's PD page, then the PD's backing page.
        assertTrue(d.dev.hmc().sdValid(0));
        long pdPage = d.sdPdPages.get(0);
        long pd = d.store().readLong(d.off(pdPage) + 8 * (offset / 4096));
        long expected = PageDescriptor.backingPage(pd) + offset % 4096;
        assertEquals(expected, d.dev.hmc().resolve(HmcObjectType.QP, 5));
        assertEquals(HmcFault.INDEX_OUT_OF_RANGE, d.dev.hmc().locate(HmcObjectType.QP, 64));
        assertEquals(HmcFault.INDEX_OUT_OF_RANGE, d.dev.hmc().lastFault());
        assertEquals(HmcFault.NOT_COMMITTED, d.dev.hmc().locate(HmcObjectType.SRQ, 0));
        assertEquals(HmcFault.NOT_COMMITTED, d.dev.hmc().lastFault());
    }

    @Test
    void pdCacheHoldsUntilPfhmcPdinv() {
        d.queryAndCommit(BareFunction.SMALL);
        long pdPage = d.alloc(4096);
        long page0 = d.alloc(4096);
        PageDescriptor.write(d.store(), d.off(pdPage), 0, PageDescriptor.encode(page0));
        assertFalse(d.updateSds(new long[] {SegmentDescriptor.command(0)},
                new long[] {SegmentDescriptor.setData(pdPage, false)}, 1).error());
        assertEquals(page0, d.dev.hmc().resolve(HmcObjectType.QP, 0));
        long page1 = d.alloc(4096);
        PageDescriptor.write(d.store(), d.off(pdPage), 0, PageDescriptor.encode(page1));
        assertEquals(page0, d.dev.hmc().resolve(HmcObjectType.QP, 0), "cached until invalidated");
        d.write(Gen2Register.PFHMC_PDINV, Gen2Registers.pdInvalidate(0, 0));
        assertEquals(page1, d.dev.hmc().resolve(HmcObjectType.QP, 0));
        // A PD never written is invalid.
        assertEquals(HmcFault.PD_INVALID, d.dev.hmc().locate(HmcObjectType.QP, 8));
        assertEquals(HmcFault.PD_INVALID, d.dev.hmc().lastFault());
    }

    @Test
    void directSdMapsTwoMegabytesContiguously() {
        d.queryAndCommit(BareFunction.SMALL);
        long page = d.alloc(SegmentDescriptor.DIRECT_BP_SIZE);
        assertEquals(0, page % SegmentDescriptor.DIRECT_BP_SIZE);
        assertFalse(d.updateSds(new long[] {SegmentDescriptor.command(0)},
                new long[] {SegmentDescriptor.setData(page, true)}, 1).error());
        long cqBase = d.committedBase.get(HmcObjectType.CQ);
        assertEquals(page + cqBase + 3 * 64, d.dev.hmc().resolve(HmcObjectType.CQ, 3));
        // Clearing the SD (irdma_clr_sd_entry) makes it unresolvable.
        assertFalse(d.updateSds(new long[] {SegmentDescriptor.command(0)},
                new long[] {SegmentDescriptor.clearData(true)}, 1).error());
        assertEquals(HmcFault.SD_INVALID, d.dev.hmc().locate(HmcObjectType.CQ, 3));
        assertEquals(HmcFault.SD_INVALID, d.dev.hmc().lastFault());
    }

    @Test
    void updateSdsUsesTheBufferBeyondThreeEntriesAndRejectsBadOnes() {
        d.queryAndCommit(BareFunction.SMALL);
        long[] cmds = new long[5];
        long[] data = new long[5];
        for (int i = 0; i < 5; i++) {
            cmds[i] = SegmentDescriptor.command(i);
            data[i] = SegmentDescriptor.setData(d.alloc(4096), false);
        }
        assertFalse(d.updateSds(cmds, data, 5).error());
        for (int i = 0; i < 5; i++) {
            assertTrue(d.dev.hmc().sdValid(i), "SD " + i);
        }
        assertTrue(d.updateSds(new long[] {SegmentDescriptor.command(200)},
                new long[] {SegmentDescriptor.setData(d.alloc(4096), false)}, 1).error());
        assertEquals(CqpFault.INDEX_OUT_OF_RANGE.errCodes(), d.reg(Gen2Register.CQPERRCODES));
        BareFunction.Completion c = d.updateSds(
                new long[] {SegmentDescriptor.command(1) & ~SegmentDescriptor.CMD_WRITE},
                new long[] {SegmentDescriptor.setData(d.alloc(4096), false)}, 1);
        assertTrue(c.error());
        assertEquals(CqpFault.INVALID_FIELD.errCodes(), d.reg(Gen2Register.CQPERRCODES));
    }

    @Test
    void objectsWithoutBackingAnswerHmcNotReadyAndSetTheErrorRegisters() {
        d.queryAndCommit(BareFunction.SMALL);
        d.createCcqWithoutHmc();
        int info = d.reg(Gen2Register.PFHMC_ERRORINFO);
        assertNotEquals(0, info & 1 << 31);
        assertEquals(HmcObjectType.CQ.ordinal(), (info >>> 16) & 0xff);
        assertEquals(HmcFault.SD_INVALID.ordinal(), info & 0xff);
        assertEquals(CqpFault.HMC_NOT_READY.errCodes(), d.reg(Gen2Register.CQPERRCODES));
        d.write(Gen2Register.PFHMC_ERRORINFO, 0);
        assertEquals(0, d.reg(Gen2Register.PFHMC_ERRORINFO));
    }
}
