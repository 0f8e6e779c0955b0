package dev.irdmaemu.model.mr;

import static dev.irdmaemu.model.mr.MemoryRegions.LOCAL_READ;
import static dev.irdmaemu.model.mr.MemoryRegions.LOCAL_WRITE;
import static dev.irdmaemu.model.mr.MemoryRegions.OK;
import static dev.irdmaemu.model.mr.MemoryRegions.REMOTE_READ;
import static dev.irdmaemu.model.mr.MemoryRegions.REMOTE_WRITE;
import static dev.irdmaemu.model.mr.MemoryRegions.ZERO_BASED;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.model.trace.RecordingTraceSink.Recorded;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Registrations as irdma makes them (level-1 and two-level PBLs, a physical buffer, VA-based and zero-based, the
 * all-memory DMA region, Alloc STag + Fast Register) and accesses through them: every byte must land at the
 * guest-physical address the page list names, read back from host memory directly.
 */
class RegistrationTest {
    static final int PD = 7;
    static final int RW = LOCAL_WRITE | REMOTE_READ | REMOTE_WRITE;
    private final StagOps d = new StagOps();

    @AfterEach
    void close() {
        d.close();
    }

    static byte[] pattern(int len, int seed) {
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }

    /** Where region byte {@code rel} (counted from the first byte, fbo included by the caller) lives. */
    static long gpaOf(long[] pages, long regionOffset) {
        return pages[(int) (regionOffset / StagOps.PAGE)] + regionOffset % StagOps.PAGE;
    }

    private void assertLanded(long[] pages, long regionOffset, byte[] data) {
        for (int i = 0; i < data.length; i++) {
            long gpa = gpaOf(pages, regionOffset + i);
            assertEquals(data[i], d.store().readByte(d.off(gpa)), "byte " + i + " at 0x" + Long.toHexString(gpa));
        }
    }

    private byte[] readBack(int stag, long to, int len, int access) {
        byte[] out = new byte[len];
        assertEquals(OK, d.mrs.read(stag, to, BytesStore.wrap(out), 0, len, access, PD));
        return out;
    }

    @Test
    void level1VaBasedRegionPlacesAcrossPageBoundaries() {
        long[] pages = d.scatteredPages(5);
        long va = 0x7f12_3456_7234L; // fbo 0x234
        long fbo = va & 0xfff;
        long len = 5 * 4096 - fbo - 100;
        int stag = d.stag(3, 0x155, 0x9c);
        assertFalse(d.registerLevel1(stag, PD, va, len, RW, pages).error());
        assertTrue(d.mrs.registered(3));
        assertEquals(1, d.mrs.liveCount());

        byte[] data = pattern(9000, 1);
        long to = va + 3000; // pages 0..3: crosses three boundaries
        assertEquals(OK, d.mrs.write(stag, to, BytesStore.wrap(data), 0, data.length, REMOTE_WRITE, PD));
        assertLanded(pages, fbo + 3000, data);
        assertArrayEquals(data, readBack(stag, to, data.length, REMOTE_READ));
        // the last byte of the region
        byte[] last = {0x5a};
        assertEquals(OK, d.mrs.write(stag, va + len - 1, BytesStore.wrap(last), 0, 1, LOCAL_WRITE, PD));
        assertEquals(0x5a, d.store().readByte(d.off(gpaOf(pages, fbo + len - 1))));
        assertEquals(OK, d.mrs.check(stag, va, len, REMOTE_WRITE | REMOTE_READ | LOCAL_READ, PD));
    }

    @Test
    void twoLevelRegionCrossesALeaf() {
        long[] pages = d.scatteredPages(600); // 2 root entries, leaves of 512 and 88
        long va = 0x5500_0000_0000L;
        long len = 600L * 4096;
        int stag = d.stag(200, 0x3ff, 0x01);
        assertFalse(d.registerLevel2(stag, PD, va, len, RW, pages).error());
        byte[] data = pattern(3 * 4096 + 10, 7);
        long to = va + 510L * 4096 + 5; // pages 510, 511 | 512, 513: the second leaf starts at 512
        assertEquals(OK, d.mrs.write(stag, to, BytesStore.wrap(data), 0, data.length, REMOTE_WRITE, PD));
        assertLanded(pages, 510L * 4096 + 5, data);
        assertArrayEquals(data, readBack(stag, to, data.length, LOCAL_READ));
        byte[] tail = pattern(16, 3);
        assertEquals(OK, d.mrs.write(stag, va + len - 16, BytesStore.wrap(tail), 0, 16, REMOTE_WRITE, PD));
        assertLanded(pages, len - 16, tail);
    }

    @Test
    void aWriteOfMorePagesThanThePieceCacheIsCheckedWholeFirst() {
        long[] pages = d.scatteredPages(48);
        long va = 0x2000_0000_0800L;
        int stag = d.stag(90, 0x1, 0x2);
        assertFalse(d.registerLevel1(stag, PD, va, 47L * 4096, RW, pages).error());
        byte[] data = pattern(45 * 4096, 13);
        assertEquals(OK, d.mrs.write(stag, va + 100, BytesStore.wrap(data), 0, data.length, REMOTE_WRITE, PD));
        assertLanded(pages, 0x800 + 100, data);
        assertArrayEquals(data, readBack(stag, va + 100, data.length, REMOTE_READ));

        // the same list with page 44 outside host memory: refused before the first byte moves
        long[] bad = pages.clone();
        bad[44] = 0x7_0000_0000L;
        int other = d.stag(91, 0x1, 0x3);
        assertFalse(d.registerLevel1(other, PD, va, 47L * 4096, RW, bad).error());
        byte[] before = d.read(pages[0] + 0x800, 4096 - 0x800);
        byte[] zeros = new byte[data.length];
        assertEquals(AeCode.LCE_QP_CATASTROPHIC.code(),
                d.mrs.write(other, va, BytesStore.wrap(zeros), 0, zeros.length, REMOTE_WRITE, PD));
        assertArrayEquals(before, d.read(pages[0] + 0x800, 4096 - 0x800));
        assertLanded(pages, 0x800 + 100, data);
    }

    @Test
    void physicalBufferAsForTheLsmm() {
        // cm.c: irdma_reg_phys_mr(pd, ietf_mem.pa, buf_len, IB_ACCESS_LOCAL_WRITE, &ietf_mem.va), no PBL
        long pa = d.alloc(2 * 4096);
        long va = 0xffff_8880_1234_5000L;
        int stag = d.stag(9, 0x2aa, 0x33);
        assertFalse(d.registerPhysical(stag, PD, pa, 6000, va, LOCAL_WRITE).error());
        byte[] data = pattern(40, 9);
        assertEquals(OK, d.mrs.write(stag, va + 4080, BytesStore.wrap(data), 0, 40, LOCAL_WRITE, PD));
        assertArrayEquals(data, d.read(pa + 4080, 40));
        assertArrayEquals(data, readBack(stag, va + 4080, 40, LOCAL_READ));
        assertEquals(AeCode.AMP_RIGHTS_VIOLATION.code(),
                d.mrs.write(stag, va, BytesStore.wrap(data), 0, 1, REMOTE_WRITE, PD));
    }

    @Test
    void zeroBasedRegionStartsAtTheFirstByteOffset() {
        long[] pages = d.scatteredPages(3);
        long va = 0x1000_0800L; // ctrl.c: quadword 0 is va & (page - 1) = 0x800 for a zero-based region
        long len = 2 * 4096;
        int stag = d.stag(17, 0, 0x44);
        assertFalse(d.registerLevel1(stag, PD, va, len, RW | ZERO_BASED, pages).error());
        byte[] data = pattern(100, 5);
        long to = 4096 - 0x800 - 30; // tagged offsets count from 0: this crosses into page 1
        assertEquals(OK, d.mrs.write(stag, to, BytesStore.wrap(data), 0, 100, REMOTE_WRITE, PD));
        assertLanded(pages, 0x800 + to, data);
        assertArrayEquals(data, readBack(stag, to, 100, REMOTE_READ));
        // the VA means nothing to a zero-based region
        assertEquals(AeCode.AMP_BOUNDS_VIOLATION.code(), d.mrs.check(stag, va, 1, REMOTE_READ, PD));
        assertEquals(OK, d.mrs.check(stag, len - 1, 1, REMOTE_READ, PD));
    }

    @Test
    void allMemoryRegionUsesPhysicalAddresses() {
        // verbs.c irdma_get_dma_mr: irdma_reg_phys_mr(pd, 0, 0, acc, &kva 0, true): length 0, no PBL, address 0
        int stag = d.stag(1, 0x12, 0x77);
        assertFalse(d.registerPhysical(stag, PD, 0, 0, 0, LOCAL_WRITE).error());
        long buf = d.alloc(4096);
        byte[] data = pattern(64, 2);
        assertEquals(OK, d.mrs.write(stag, buf + 100, BytesStore.wrap(data), 0, 64, LOCAL_WRITE, PD));
        assertArrayEquals(data, d.read(buf + 100, 64));
        assertEquals(AeCode.LCE_QP_CATASTROPHIC.code(),
                d.mrs.write(stag, 0x7_0000_0000L, BytesStore.wrap(data), 0, 64, LOCAL_WRITE, PD));
        assertEquals(1, d.mrs.failures(AccessFault.DMA_FAULT));
    }

    @Test
    void fastRegisterRemoteWriteLocalInvalidate() {
        long[] pages = d.scatteredPages(3);
        int stag = d.stag(40, 0x1f0, 0x10);
        assertFalse(d.allocStag(stag, PD, 3 * 4096).error());
        assertTrue(d.mrs.inUse(40));
        assertFalse(d.mrs.registered(40));
        byte[] data = pattern(50, 4);
        // allocated, not valid until fast-registered
        assertEquals(AeCode.AMP_INVALID_STAG.code(),
                d.mrs.write(stag, 0x2000, BytesStore.wrap(data), 0, 50, REMOTE_WRITE, PD));

        long va = 0x7700_0000_0000L;
        long first = d.level1(pages);
        SqWqe w = d.fastRegisterWqe(stag, va, 3 * 4096, RW, first, pages[0], true);
        assertEquals(OK, d.mrs.fastRegister(w, PD));
        assertTrue(d.mrs.registered(40));
        assertEquals(OK, d.mrs.write(stag, va + 4090, BytesStore.wrap(data), 0, 50, REMOTE_WRITE, PD));
        assertLanded(pages, 4090, data);

        // a second Fast Register of a valid STag is refused
        assertEquals(AeCode.AMP_FASTREG_VALID_STAG.code(), d.mrs.fastRegister(w, PD));
        assertEquals(OK, d.mrs.invalidate(stag, PD, false));
        assertEquals(AeCode.AMP_INVALID_STAG.code(),
                d.mrs.write(stag, va, BytesStore.wrap(data), 0, 50, REMOTE_WRITE, PD));
        assertEquals(OK, d.mrs.invalidate(stag, PD, false), "invalidating an invalid STag is no error");

        // ib_update_fast_reg_key: the same index with a new consumer key; the old key no longer matches
        int next = stag & ~0xff | 0x11;
        SqWqe w2 = d.fastRegisterWqe(next, va, 4096, LOCAL_WRITE | REMOTE_WRITE, first, pages[0], false);
        assertEquals(OK, d.mrs.fastRegister(w2, PD));
        assertEquals(AeCode.AMP_BAD_STAG_KEY.code(),
                d.mrs.write(stag, va, BytesStore.wrap(data), 0, 50, REMOTE_WRITE, PD));
        assertEquals(OK, d.mrs.write(next, va + 8, BytesStore.wrap(data), 0, 50, REMOTE_WRITE, PD));
        assertLanded(pages, 8, data);
        // one page, chunk 0: the page's own address was the PBL address; the region ends with that page
        assertEquals(AeCode.AMP_BOUNDS_VIOLATION.code(),
                d.mrs.write(next, va + 4090, BytesStore.wrap(data), 0, 50, REMOTE_WRITE, PD));
        assertEquals(2, d.mrs.fastRegistrations());
    }

    @Test
    void remoteInvalidateNeedsRemoteRights() {
        long[] pages = d.scatteredPages(1);
        int local = d.stag(50, 0, 0x01);
        int remote = d.stag(51, 0, 0x02);
        assertFalse(d.registerLevel1(local, PD, 0x1000, 4096, LOCAL_WRITE, pages).error());
        assertFalse(d.registerLevel1(remote, PD, 0x1000, 4096, REMOTE_READ, pages).error());
        assertEquals(AeCode.AMP_INVALIDATE_NO_REMOTE_ACCESS_RIGHTS.code(), d.mrs.invalidate(local, PD, true));
        assertTrue(d.mrs.registered(50));
        assertEquals(OK, d.mrs.invalidate(local, PD, false));
        assertEquals(OK, d.mrs.invalidate(remote, PD, true));
        assertFalse(d.mrs.registered(51));
        assertEquals(AeCode.AMP_INVALID_STAG.code(), d.mrs.check(remote, 0x1000, 8, REMOTE_READ, PD));
    }

    @Test
    void deallocateFreesTheIndex() {
        long[] pages = d.scatteredPages(1);
        int stag = d.stag(60, 0x3, 0x09);
        assertFalse(d.registerLevel1(stag, PD, 0x8000, 4096, RW, pages).error());
        assertFalse(d.dealloc(stag, PD, true).error());
        assertFalse(d.mrs.inUse(60));
        assertEquals(0, d.mrs.liveCount());
        assertEquals(AeCode.AMP_UNALLOCATED_STAG.code(), d.mrs.check(stag, 0x8000, 8, REMOTE_READ, PD));
        // the index is free for a new registration with another driver key
        int again = d.stag(60, 0x4, 0x0a);
        assertFalse(d.registerLevel1(again, PD, 0x8000, 4096, RW, pages).error());
        assertEquals(AeCode.AMP_BAD_STAG_KEY.code(), d.mrs.check(stag, 0x8000, 8, REMOTE_READ, PD));
        assertEquals(OK, d.mrs.check(again, 0x8000, 8, REMOTE_READ, PD));
    }

    @Test
    void driverKeyBitsSitAboveTheCommittedIndexBits() {
        // hw.c irdma_initialize_hw_rsrc: max(order(MR count), 14) index bits; the driver commits the model's
        // 32768 MRs (irdma_cfg_fpm_val takes the Query FPM maximum), so 15 and the driver key starts at bit 23
        assertEquals(32768, d.mrCount());
        assertEquals(15, d.mrs.indexBits());
        assertEquals(5, d.mrs.indexOf(0x1ff << 15 | 5));
        int stag = d.stag(5, 0x1ff, 0xee);
        assertEquals(0xff80_05eeL, stag & 0xffff_ffffL);
        assertFalse(d.registerLevel1(stag, PD, 0, 4096, RW, d.scatteredPages(1)).error());
        assertEquals(stag, d.mrs.stagAt(5));
    }

    @Test
    void registrationsInvalidationsAndRefusalsAreTraced() {
        long[] pages = d.scatteredPages(2);
        int stag = d.stag(70, 1, 2);
        assertFalse(d.registerLevel1(stag, PD, 0x4000, 8192, RW, pages).error());
        assertEquals(AeCode.AMP_BAD_PD.code(), d.mrs.check(stag, 0x4000, 4, REMOTE_READ, PD + 1));
        assertEquals(OK, d.mrs.invalidate(stag, PD, true));
        List<Recorded> mr = d.sink.of(TraceKind.MR);
        assertEquals(3, mr.size());
        assertEquals("register", mr.get(0).get("action"));
        assertEquals("0x" + Integer.toHexString(stag), mr.get(0).get("stag"));
        assertEquals("1", mr.get(0).get("chunk"));
        assertEquals("refused", mr.get(1).get("action"));
        assertEquals("BAD_PD", mr.get(1).get("reason"));
        assertEquals("0x105", mr.get(1).get("ae"));
        assertEquals("remote_invalidate", mr.get(2).get("action"));
        assertEquals(1, d.mrs.failures(AccessFault.BAD_PD));
        assertTrue(d.dev.summary().contains("MR: 1 registered, 0 fast-registered, 1 invalidated, 1 refused"));
    }
}
