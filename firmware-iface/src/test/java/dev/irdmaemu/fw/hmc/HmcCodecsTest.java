package dev.irdmaemu.fw.hmc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

class HmcCodecsTest {

    private static BytesStore<?, ?> heap(int n) {
        return BytesStore.wrap(new byte[n]);
    }

    /** hmc.h enum irdma_hmc_rsrc_type, in order. */
    @Test
    void objectTypesAreKernelOrder() {
        String[] kernel = {"QP", "CQ", "SRQ", "HTE", "ARP", "APBVT_ENTRY", "MR", "XF", "XFFL", "Q1", "Q1FL", "TIMER",
            "FSIMC", "FSIAV", "PBLE", "RRF", "RRFFL", "HDR", "MD", "OOISC", "OOISCFFL"};
        assertEquals(kernel.length, HmcObjectType.values().length, "IRDMA_HMC_IW_MAX");
        for (int i = 0; i < kernel.length; i++) {
            assertEquals(kernel[i], HmcObjectType.of(i).name());
        }
        assertNull(HmcObjectType.of(21));
        assertEquals(HmcObjectType.Gen2Use.GEN3_ONLY, HmcObjectType.SRQ.gen2Use());
        assertEquals(HmcObjectType.Gen2Use.IWARP_ONLY, HmcObjectType.OOISCFFL.gen2Use());
    }

    /**
     * irdma_sc_parse_fpm_query_buf offsets: 0 SD info, 8 QP, 16 CQ, 24 SRQ, 32 HTE, 40 ARP, 48 MR, 56 XF, 64 XFFL,
     * 72 Q1, 80 Q1FL, 88 TIMER, 96 FSIMC, 104 FSIAV, 112 PBLE, 120 misc, 128 RRF, 136 RRFFL, 144 HDR, 152 MD,
     * 160 OOISC, 168 OOISCFFL. irdma_sc_cfg_iw_fpm: the same for the commit buffer shifted by 8 up to ARP, APBVT
     * (RSVD) at 40, then the same offsets.
     */
    @Test
    void bufferOffsets() {
        int[] query = {8, 16, 24, 32, 40, -1, 48, 56, 64, 72, 80, 88, 96, 104, 112, 128, 136, 144, 152, 160, 168};
        int[] commit = {0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 128, 136, 144, 152, 160, 168};
        for (HmcObjectType t : HmcObjectType.values()) {
            assertEquals(query[t.ordinal()], t.queryOffset(), t.name());
            assertEquals(commit[t.ordinal()], t.commitOffset(), t.name());
        }
    }

    /** A query buffer as the device writes it, read the way irdma_sc_parse_fpm_query_buf reads it. */
    @Test
    void queryBufferKnownBytes() {
        BytesStore<?, ?> s = heap(256);
        s.writeLong(8, 0L);
        FpmQueryBuffer.clear(s, 8);
        FpmQueryBuffer.writeSdInfo(s, 8, 1, 6000);
        FpmQueryBuffer.writeObject(s, 8, HmcObjectType.QP, 16384, 9); // 512-byte QP contexts
        FpmQueryBuffer.writeObject(s, 8, HmcObjectType.XFFL, 1000, 2);
        FpmQueryBuffer.writeObject(s, 8, HmcObjectType.Q1FL, 1000, 4);
        FpmQueryBuffer.writeObject(s, 8, HmcObjectType.PBLE, 0x10_0000, 99); // no size field
        FpmQueryBuffer.writeObject(s, 8, HmcObjectType.APBVT_ENTRY, 5, 5); // not in the buffer: no effect
        FpmQueryBuffer.writeMisc(s, 8, 256, 3, 0x1234, 0);
        // IRDMA_QUERY_FPM_FIRST_PE_SD_INDEX 13:0, MAX_PE_SDS 44:32
        assertEquals(1L | 6000L << 32, s.readLong(8));
        assertEquals(16384L | 9L << 32, s.readLong(8 + 8));
        assertEquals(1000L | 2L << 32, s.readLong(8 + 64));
        assertEquals(0x10_0000L, s.readLong(8 + 112));
        // MAX_CEQS 9:0, HTMULTIPLIER 19:16, TIMERBUCKET 47:32
        assertEquals(256L | 3L << 16 | 0x1234L << 32, s.readLong(8 + 120));
        FpmQueryBuffer q = new FpmQueryBuffer().wrap(s, 8);
        assertEquals(FpmCheck.ACCEPTED, q.validate());
        assertEquals(1, q.firstPeSdIndex());
        assertEquals(6000, q.maxPeSds());
        assertEquals(16384, q.maxCount(HmcObjectType.QP));
        assertEquals(512, q.objectSize(HmcObjectType.QP));
        assertEquals(4, q.objectSize(HmcObjectType.XFFL), "free lists: 4-byte objects");
        assertEquals(2, q.blockSize(HmcObjectType.XFFL));
        assertEquals(8, q.objectSize(HmcObjectType.PBLE));
        assertEquals(1, q.maxCount(HmcObjectType.APBVT_ENTRY), "gen2: one APBVT of 8192 bytes");
        assertEquals(8192, q.objectSize(HmcObjectType.APBVT_ENTRY));
        assertEquals(256, q.maxCeqs());
        assertEquals(3, q.htMultiplier());
        assertEquals(0x1234, q.timerBucket());
    }

    /** The -EINVAL cases of irdma_sc_parse_fpm_query_buf. */
    @Test
    void queryBufferChecks() {
        BytesStore<?, ?> s = heap(200);
        FpmQueryBuffer q = new FpmQueryBuffer();
        assertEquals(FpmCheck.MISSING_BLOCK_SIZE, q.wrap(s, 0).validate(), "no Q1BLOCKSIZE");
        assertEquals(84, q.failedAt());
        FpmQueryBuffer.writeObject(s, 0, HmcObjectType.Q1FL, 0, 1);
        assertEquals(FpmCheck.ACCEPTED, q.wrap(s, 0).validate());
        FpmQueryBuffer.writeObject(s, 0, HmcObjectType.XF, 10, 4);
        assertEquals(FpmCheck.MISSING_BLOCK_SIZE, q.wrap(s, 0).validate(), "XF objects, no XFBLOCKSIZE");
        FpmQueryBuffer.writeObject(s, 0, HmcObjectType.XFFL, 10, 1);
        FpmQueryBuffer.writeObject(s, 0, HmcObjectType.RRFFL, 10, 0);
        assertEquals(FpmCheck.MISSING_BLOCK_SIZE, q.wrap(s, 0).validate());
        FpmQueryBuffer.writeObject(s, 0, HmcObjectType.RRFFL, 10, 8);
        FpmQueryBuffer.writeObject(s, 0, HmcObjectType.MR, 10, 64);
        assertEquals(FpmCheck.OBJECT_SIZE_TOO_LARGE, q.wrap(s, 0).validate());
        assertEquals(0, q.objectSize(HmcObjectType.MR));
        assertEquals(FpmCheck.TRUNCATED, q.wrap(s, 8).validate());
    }

    /** irdma_sc_decode_fpm_commit: base = (quadword >> 32) * 512; count QPCNT 20:0, gen2 CQCNT 19:0, else (u32). */
    @Test
    void commitBufferKnownBytes() {
        BytesStore<?, ?> s = heap(208);
        FpmCommitBuffer.writeRequest(s, 0, HmcObjectType.QP, 4096);
        assertEquals(4096, new FpmCommitBuffer().wrap(s, 0).requestedCount(HmcObjectType.QP));
        FpmCommitBuffer.writeCommitted(s, 0, HmcObjectType.QP, 4096, 0);
        FpmCommitBuffer.writeCommitted(s, 0, HmcObjectType.CQ, 0x1f_ffff, 0x20_0000); // CQCNT keeps 20 bits
        FpmCommitBuffer.writeCommitted(s, 0, HmcObjectType.MR, 0x1_0000, 0x40_0200);
        assertEquals(4096L, s.readLong(0));
        assertEquals(0xf_ffffL | (0x20_0000L / 512) << 32, s.readLong(8));
        assertEquals(0x1_0000L | (0x40_0200L / 512) << 32, s.readLong(48));
        s.writeLong(40, 0x1234_5678L | 9L << 32);
        FpmCommitBuffer c = new FpmCommitBuffer().wrap(s, 0);
        assertEquals(FpmCheck.ACCEPTED, c.validate());
        assertEquals(4096, c.committedCount(HmcObjectType.QP));
        assertEquals(0xf_ffff, c.committedCount(HmcObjectType.CQ));
        assertEquals(0x20_0000, c.base(HmcObjectType.CQ));
        assertEquals(0x40_0200, c.base(HmcObjectType.MR));
        assertEquals(1, c.committedCount(HmcObjectType.APBVT_ENTRY), "gen2 forces one APBVT");
        assertEquals(9 * 512, c.base(HmcObjectType.APBVT_ENTRY));
        assertThrows(IllegalArgumentException.class,
                () -> FpmCommitBuffer.writeCommitted(s, 0, HmcObjectType.MR, 1, 100));
        // sd_cnt: size >> 21, plus one for a remainder
        assertEquals(0, FpmCommitBuffer.sdCount(0));
        assertEquals(1, FpmCommitBuffer.sdCount(1));
        assertEquals(1, FpmCommitBuffer.sdCount(0x20_0000));
        assertEquals(2, FpmCommitBuffer.sdCount(0x20_0001));
    }

    /** hmc.c irdma_set_sd_entry / irdma_clr_sd_entry with the irdma.h IRDMA_PFHMC_SD* masks. */
    @Test
    void segmentDescriptorKnownValues() {
        assertEquals(0x8000_8007L, SegmentDescriptor.command(7)); // idx | BIT(15) | PMSDWR BIT(31)
        // pa | PMSDBPCOUNT(512) at 11:2 | PMSDTYPE (bit 1: 0 paged, 1 direct) | PMSDVALID bit 0
        assertEquals(0x1234_5000L | 0x800L | 1L, SegmentDescriptor.setData(0x1234_5000L, false));
        assertEquals(0x4020_0000L | 0x800L | 2L | 1L, SegmentDescriptor.setData(0x4020_0000L, true));
        assertEquals(0x800L | 2L, SegmentDescriptor.clearData(true));
        long d = SegmentDescriptor.setData(0x1234_5000L, false);
        assertTrue(SegmentDescriptor.valid(d));
        assertFalse(SegmentDescriptor.direct(d));
        assertEquals(512, SegmentDescriptor.bpCount(d));
        assertEquals(0x1234_5000L, SegmentDescriptor.address(d));
        assertEquals(7, SegmentDescriptor.sdIndex(SegmentDescriptor.command(7)));
        assertTrue(SegmentDescriptor.partSel(SegmentDescriptor.command(7)));
        assertEquals(SdCheck.ACCEPTED, SegmentDescriptor.check(SegmentDescriptor.command(7), d));
        assertEquals(SdCheck.ACCEPTED, SegmentDescriptor.check(SegmentDescriptor.command(7),
                SegmentDescriptor.clearData(false)));
        assertEquals(SdCheck.NOT_A_WRITE, SegmentDescriptor.check(7, d));
        assertEquals(SdCheck.RESERVED_COMMAND_BITS, SegmentDescriptor.check(SegmentDescriptor.command(7) | 1 << 20, d));
        assertEquals(SdCheck.BAD_BP_COUNT, SegmentDescriptor.check(SegmentDescriptor.command(7), 0x1234_5001L));
        assertEquals(SdCheck.MISALIGNED_PAGE, SegmentDescriptor.check(SegmentDescriptor.command(7),
                SegmentDescriptor.setData(0x4010_0000L, true)));
        assertEquals(SdCheck.ADDRESS_ON_CLEAR, SegmentDescriptor.check(SegmentDescriptor.command(7),
                SegmentDescriptor.clearData(false) | 0x5000));
        BytesStore<?, ?> s = heap(32);
        SegmentDescriptor.writeEntry(s, 16, SegmentDescriptor.command(3), d);
        assertEquals(SegmentDescriptor.command(3), s.readLong(16));
        assertEquals(d, s.readLong(24));
    }

    /** hmc.c irdma_add_pd_table_entry writes pa | 0x1 at rel_pd_idx of the PD page; irdma_remove_pd_bp writes 0. */
    @Test
    void pageDescriptors() {
        BytesStore<?, ?> page = heap(4096);
        PageDescriptor.write(page, 0, 511, PageDescriptor.encode(0xabc_d000L));
        assertEquals(0xabc_d001L, page.readLong(511 * 8));
        long pd = PageDescriptor.read(page, 0, 511);
        assertTrue(PageDescriptor.valid(pd));
        assertEquals(0xabc_d000L, PageDescriptor.backingPage(pd));
        assertTrue(PageDescriptor.wellFormed(pd));
        assertTrue(PageDescriptor.wellFormed(0));
        assertFalse(PageDescriptor.wellFormed(0xabc_d003L));
        assertFalse(PageDescriptor.wellFormed(0xabc_d000L), "an address without the valid bit");
        assertEquals(0, PageDescriptor.read(page, 0, 512));
        assertEquals(0, PageDescriptor.read(page, 8, 511), "past the store");
        assertEquals(0, PageDescriptor.read(null, 0, 0));
        assertEquals(-1, PageDescriptor.entryOffset(-1));
        assertEquals(3, PageDescriptor.sdIndexOf(512 * 3 + 7));
        assertEquals(7, PageDescriptor.relativeIndexOf(512 * 3 + 7));
        assertThrows(IllegalArgumentException.class, () -> PageDescriptor.write(page, 0, 512, 1));
    }

    @Property(tries = 300)
    void queryBufferRoundTrip(@ForAll @IntRange(max = (1 << 14) - 1) int first,
                              @ForAll @IntRange(max = (1 << 13) - 1) int max,
                              @ForAll @Size(21) List<@LongRange(max = 0xffff_ffffL) Long> countList,
                              @ForAll("querySizes") List<Long> sizeList, @ForAll @IntRange(max = 1023) int ceqs,
                              @ForAll @IntRange(max = 15) int htMultiplier, @ForAll @IntRange(max = 15) int maxIrd) {
        assertEquals(21, HmcObjectType.values().length, "one count and size per type");
        long[] counts = longs(countList);
        long[] sizes = longs(sizeList);
        BytesStore<?, ?> s = heap(200);
        FpmQueryBuffer.clear(s, 0);
        FpmQueryBuffer.writeSdInfo(s, 0, first, max);
        for (HmcObjectType t : HmcObjectType.values()) {
            FpmQueryBuffer.writeObject(s, 0, t, counts[t.ordinal()], sizes[t.ordinal()]);
        }
        FpmQueryBuffer.writeMisc(s, 0, ceqs, htMultiplier, 7, maxIrd);
        FpmQueryBuffer q = new FpmQueryBuffer().wrap(s, 0);
        assertEquals(FpmCheck.ACCEPTED, q.validate());
        assertEquals(first, q.firstPeSdIndex());
        assertEquals(max, q.maxPeSds());
        assertEquals(ceqs, q.maxCeqs());
        assertEquals(7, q.timerBucket());
        for (HmcObjectType t : HmcObjectType.values()) {
            switch (t.queryEncoding()) {
                case COUNT_AND_LOG2_SIZE -> {
                    assertEquals(counts[t.ordinal()], q.maxCount(t), t.name());
                    assertEquals(1L << sizes[t.ordinal()], q.objectSize(t), t.name());
                }
                case FREE_LIST -> {
                    assertEquals(counts[t.ordinal()], q.maxCount(t), t.name());
                    assertEquals(sizes[t.ordinal()], q.blockSize(t), t.name());
                }
                case COUNT_ONLY -> assertEquals(counts[t.ordinal()], q.maxCount(t), t.name());
                case DRIVER_FIXED -> assertEquals(1, q.maxCount(t));
            }
        }
    }

    @Property(tries = 300)
    void commitBufferRoundTrip(@ForAll("commitCounts") List<Long> countList,
                               @ForAll @Size(21) List<@LongRange(max = 0xffff_ffffL) Long> baseBlocks) {
        BytesStore<?, ?> s = heap(208);
        long[] counts = longs(countList);
        long[] bases = new long[counts.length];
        for (HmcObjectType t : HmcObjectType.values()) {
            bases[t.ordinal()] = baseBlocks.get(t.ordinal()) * 512;
            FpmCommitBuffer.writeCommitted(s, 0, t, counts[t.ordinal()], bases[t.ordinal()]);
        }
        FpmCommitBuffer c = new FpmCommitBuffer().wrap(s, 0);
        assertEquals(FpmCheck.ACCEPTED, c.validate());
        for (HmcObjectType t : HmcObjectType.values()) {
            assertEquals(t == HmcObjectType.APBVT_ENTRY ? 1 : counts[t.ordinal()], c.committedCount(t), t.name());
            assertEquals(bases[t.ordinal()], c.base(t), t.name());
        }
    }

    @Property(tries = 300)
    void sdEntriesRoundTrip(@ForAll @IntRange(max = 0x7fff) int index, @ForAll long page, @ForAll boolean direct,
                            @ForAll boolean set) {
        long addr = page & (direct ? 0xffff_ffff_ffe0_0000L : 0xffff_ffff_ffff_f000L);
        long cmd = SegmentDescriptor.command(index);
        long data = set ? SegmentDescriptor.setData(addr, direct) : SegmentDescriptor.clearData(direct);
        assertEquals(SdCheck.ACCEPTED, SegmentDescriptor.check(cmd, data));
        assertEquals(index, SegmentDescriptor.sdIndex(cmd));
        assertEquals(set, SegmentDescriptor.valid(data));
        assertEquals(direct, SegmentDescriptor.direct(data));
        assertEquals(set ? addr : 0, SegmentDescriptor.address(data));
    }

    @Property(tries = 500)
    void randomBytesNeverThrow(@ForAll @Size(max = 260) byte[] bytes, @ForAll @IntRange(min = -4, max = 270) int off,
                               @ForAll @IntRange(min = -4, max = 300) int len, @ForAll long cmd, @ForAll long data,
                               @ForAll int rel) {
        BytesStore<?, ?> s = BytesStore.wrap(bytes);
        FpmQueryBuffer q = new FpmQueryBuffer().wrap(s, off, len);
        FpmCommitBuffer c = new FpmCommitBuffer().wrap(s, off, len);
        assertNotNull(q.validate());
        assertNotNull(c.validate());
        for (HmcObjectType t : HmcObjectType.values()) {
            q.maxCount(t);
            q.objectSize(t);
            q.blockSize(t);
            c.committedCount(t);
            c.base(t);
        }
        q.maxCeqs();
        q.maxIrdEncoding();
        c.scratchBuffer1();
        assertNotNull(SegmentDescriptor.check(cmd, data));
        PageDescriptor.read(s, off, rel);
        assertSame(PageDescriptor.wellFormed(data), PageDescriptor.wellFormed(data));
    }

    private static long[] longs(List<Long> l) {
        return l.stream().mapToLong(Long::longValue).toArray();
    }

    /** Per type: a free-list block size (1 to 2^20) or a log2 object size (0 to 31), as the query encodes it. */
    @Provide
    Arbitrary<List<Long>> querySizes() {
        return Combinators.combine(Arrays.stream(HmcObjectType.values())
                .map(t -> t.queryEncoding() == HmcObjectType.QueryEncoding.FREE_LIST
                        ? Arbitraries.longs().between(1, 1 << 20) : Arbitraries.longs().between(0, 31))
                .toList()).as(l -> l);
    }

    /** Per type: a committed count, the QP and CQ counts within their 21 and 20 bits, the others any u32. */
    @Provide
    Arbitrary<List<Long>> commitCounts() {
        return Combinators.combine(Arrays.stream(HmcObjectType.values())
                .map(t -> switch (t) {
                    case QP -> Arbitraries.longs().between(0, (1 << 21) - 1);
                    case CQ -> Arbitraries.longs().between(0, (1 << 20) - 1);
                    default -> Arbitraries.longs().between(0, 0xffff_ffffL);
                })
                .toList()).as(l -> l);
    }
}
