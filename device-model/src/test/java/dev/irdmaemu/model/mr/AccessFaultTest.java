package dev.irdmaemu.model.mr;

import static dev.irdmaemu.model.mr.MemoryRegions.LOCAL_READ;
import static dev.irdmaemu.model.mr.MemoryRegions.LOCAL_WRITE;
import static dev.irdmaemu.model.mr.MemoryRegions.OK;
import static dev.irdmaemu.model.mr.MemoryRegions.REMOTE_READ;
import static dev.irdmaemu.model.mr.MemoryRegions.REMOTE_WRITE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.hmc.PbleLayout;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.SqWqe;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every refusal of the data path, of Fast Register and of invalidation, each with its AE code and counter, and
 * for writes the proof that nothing moved: the region's pages and the guard page after each are compared byte
 * for byte before and after.
 */
class AccessFaultTest {
    static final int PD = 3;
    static final int RW = LOCAL_WRITE | REMOTE_READ | REMOTE_WRITE;
    static final long VA = 0x6000_0000_0100L;
    static final long LEN = 4 * 4096 - 0x100;

    private final StagOps d = new StagOps();
    private long[] pages;
    private int stag;
    private final byte[] data = RegistrationTest.pattern(6000, 11);

    @BeforeEach
    void register() {
        pages = d.scatteredPages(4);
        for (long p : pages) {
            d.fill(p, 2 * StagOps.PAGE, 0xa5);
        }
        stag = d.stag(12, 0x2f, 0x61);
        assertFalse(d.registerLevel1(stag, PD, VA, LEN, RW, pages).error());
    }

    @AfterEach
    void close() {
        d.close();
    }

    private byte[][] snapshot() {
        byte[][] s = new byte[pages.length][];
        for (int i = 0; i < pages.length; i++) {
            s[i] = d.read(pages[i], (int) (2 * StagOps.PAGE));
        }
        return s;
    }

    /** A write that must be refused with {@code ae}, leaving the pages and guards as they were. */
    private void refusedWrite(AeCode ae, AccessFault why, int s, long to, int len, int access, int pd) {
        byte[][] before = snapshot();
        long count = d.mrs.failures(why);
        assertEquals(ae.code(), d.mrs.write(s, to, BytesStore.wrap(data), 0, len, access, pd), why.name());
        assertEquals(count + 1, d.mrs.failures(why), why.name());
        assertEquals(why, d.mrs.lastAccessFault());
        byte[][] after = snapshot();
        for (int i = 0; i < pages.length; i++) {
            assertArrayEquals(before[i], after[i], why + ": page " + i + " or its guard changed");
        }
        byte[] out = new byte[Math.max(len, 1)];
        assertEquals(ae.code(), d.mrs.read(s, to, BytesStore.wrap(out), 0, len, access, pd), why.name());
        assertEquals(ae.code(), d.mrs.check(s, to, len, access, pd), why.name());
    }

    @Test
    void stagZeroIsForThePrivilegedOnly() {
        refusedWrite(AeCode.STAG_ZERO_INVALID, AccessFault.STAG_ZERO, 0, VA, 8, REMOTE_WRITE, PD);
        // the privileged path: physical addresses, checked the same way
        long buf = d.alloc(4096);
        assertEquals(OK, d.mrs.writePhysical(buf + 10, BytesStore.wrap(data), 0, 100));
        assertArrayEquals(java.util.Arrays.copyOf(data, 100), d.read(buf + 10, 100));
        byte[] back = new byte[100];
        assertEquals(OK, d.mrs.readPhysical(buf + 10, BytesStore.wrap(back), 0, 100));
        assertArrayEquals(java.util.Arrays.copyOf(data, 100), back);
        long end = StagOps.RAM_BASE + StagOps.RAM_SIZE;
        byte[] tail = d.read(end - 50, 50);
        assertEquals(AeCode.LCE_QP_CATASTROPHIC.code(), d.mrs.writePhysical(end - 50, BytesStore.wrap(data), 0, 100));
        assertArrayEquals(tail, d.read(end - 50, 50), "a refused physical write wrote the mapped part");
    }

    @Test
    void stagIndexBeyondTheCommittedCount() {
        d.recommitMrs(256); // 14 index bits, 256 of them committed
        assertEquals(14, d.mrs.indexBits());
        refusedWrite(AeCode.AMP_BAD_STAG_INDEX, AccessFault.BAD_STAG_INDEX, d.stag(256, 0x2f, 0x61), 0, 8,
                REMOTE_WRITE, PD);
        refusedWrite(AeCode.AMP_BAD_STAG_INDEX, AccessFault.BAD_STAG_INDEX, d.stag(0x3fff, 0, 1), 0, 8,
                REMOTE_WRITE, PD);
        // a Fast Register and an invalidation name the index the same way
        refusedFastRegister(AeCode.AMP_BAD_STAG_INDEX, AccessFault.BAD_STAG_INDEX,
                d.fastRegisterWqe(d.stag(300, 0x11, 1), 0x3000_0000L, LEN, RW, 0, pages[0], true), PD);
        assertEquals(AeCode.AMP_BAD_STAG_INDEX.code(), d.mrs.invalidate(d.stag(1000, 0, 1), PD, false));
    }

    @Test
    void unallocatedStag() {
        refusedWrite(AeCode.AMP_UNALLOCATED_STAG, AccessFault.UNALLOCATED_STAG, d.stag(13, 0x2f, 0x61), VA, 8,
                REMOTE_WRITE, PD);
    }

    @Test
    void keyAndDriverKeyMustMatch() {
        refusedWrite(AeCode.AMP_BAD_STAG_KEY, AccessFault.BAD_STAG_KEY, stag ^ 0x01, VA, 8, REMOTE_WRITE, PD);
        refusedWrite(AeCode.AMP_BAD_STAG_KEY, AccessFault.BAD_STAG_KEY, d.stag(12, 0x2e, 0x61), VA, 8, REMOTE_WRITE,
                PD);
    }

    @Test
    void invalidatedStag() {
        assertEquals(OK, d.mrs.invalidate(stag, PD, false));
        refusedWrite(AeCode.AMP_INVALID_STAG, AccessFault.INVALID_STAG, stag, VA, 8, REMOTE_WRITE, PD);
        // an unbound memory window is never a valid target either
        int mw = d.stag(20, 0x2f, 0x00);
        assertFalse(d.allocWindow(mw, PD, true).error());
        assertTrue(d.mrs.window(20));
        refusedWrite(AeCode.AMP_INVALID_STAG, AccessFault.INVALID_STAG, mw, VA, 8, REMOTE_WRITE, PD);
    }

    @Test
    void anotherProtectionDomain() {
        refusedWrite(AeCode.AMP_BAD_PD, AccessFault.BAD_PD, stag, VA, 8, REMOTE_WRITE, PD + 1);
    }

    @Test
    void rightsTheRegionDoesNotGrant() {
        int ro = d.stag(14, 1, 1);
        assertFalse(d.registerLevel1(ro, PD, VA, LEN, REMOTE_READ, pages).error());
        refusedWrite(AeCode.AMP_RIGHTS_VIOLATION, AccessFault.RIGHTS_VIOLATION, ro, VA, 8, REMOTE_WRITE, PD);
        refusedWrite(AeCode.AMP_RIGHTS_VIOLATION, AccessFault.RIGHTS_VIOLATION, ro, VA, 8, LOCAL_WRITE, PD);
        int local = d.stag(15, 1, 1);
        assertFalse(d.registerLevel1(local, PD, VA, LEN, LOCAL_WRITE, pages).error());
        refusedWrite(AeCode.AMP_RIGHTS_VIOLATION, AccessFault.RIGHTS_VIOLATION, local, VA, 8, REMOTE_READ, PD);
        assertEquals(OK, d.mrs.check(local, VA, 8, LOCAL_READ | LOCAL_WRITE, PD));
    }

    @Test
    void taggedOffsetWrapsAtTwoToTheSixtyFour() {
        // a region at the top of the address space: VA + length - 1 = 2^64 - 1 does not wrap
        long top = -0x4000L;
        int hi = d.stag(16, 0, 0x16);
        assertFalse(d.registerLevel1(hi, PD, top, 0x4000, RW, pages).error());
        byte[] last = {1, 2, 3, 4};
        assertEquals(OK, d.mrs.write(hi, -4L, BytesStore.wrap(last), 0, 4, REMOTE_WRITE, PD));
        assertArrayEquals(last, d.read(pages[3] + 4092, 4));
        refusedWrite(AeCode.AMP_TO_WRAP, AccessFault.TO_WRAP, hi, -4L, 5, REMOTE_WRITE, PD);
        refusedWrite(AeCode.AMP_TO_WRAP, AccessFault.TO_WRAP, stag, -16L, 4096, REMOTE_WRITE, PD);
    }

    @Test
    void boundsBeforeAfterAndAcrossTheEnd() {
        refusedWrite(AeCode.AMP_BOUNDS_VIOLATION, AccessFault.BOUNDS_VIOLATION, stag, VA - 1, 8, REMOTE_WRITE, PD);
        refusedWrite(AeCode.AMP_BOUNDS_VIOLATION, AccessFault.BOUNDS_VIOLATION, stag, VA + LEN, 1, REMOTE_WRITE, PD);
        refusedWrite(AeCode.AMP_BOUNDS_VIOLATION, AccessFault.BOUNDS_VIOLATION, stag, VA + LEN - 4000, 4001,
                REMOTE_WRITE, PD);
        refusedWrite(AeCode.AMP_BOUNDS_VIOLATION, AccessFault.BOUNDS_VIOLATION, stag, 0, 8, REMOTE_WRITE, PD);
        assertEquals(OK, d.mrs.check(stag, VA + LEN - 4000, 4000, REMOTE_WRITE, PD));
    }

    @Test
    void zeroLengthChecksOnlyTheStag() {
        // MemoryRegions#check: a zero-length tagged message does not validate the offset
        assertEquals(OK, d.mrs.write(stag, 0, BytesStore.wrap(data), 0, 0, REMOTE_WRITE, PD));
        assertEquals(OK, d.mrs.check(stag, -1L, 0, REMOTE_WRITE, PD));
        refusedWrite(AeCode.AMP_BAD_PD, AccessFault.BAD_PD, stag, VA, 0, REMOTE_WRITE, PD + 1);
    }

    @Test
    void aPageOutsideHostMemoryFailsTheWholeWrite() {
        long[] bad = {pages[0], 0x7_0000_0000L, pages[2]};
        int s = d.stag(30, 0, 0x30);
        assertFalse(d.registerLevel1(s, PD, 0x10_0000, 3 * 4096, RW, bad).error());
        // pages 0 and 1: page 0 is good, page 1 is not mapped; nothing is written to page 0
        refusedWrite(AeCode.LCE_QP_CATASTROPHIC, AccessFault.DMA_FAULT, s, 0x10_0000 + 4000, 200, REMOTE_WRITE, PD);
        assertEquals(OK, d.mrs.check(s, 0x10_0000, 4096, REMOTE_WRITE, PD));
    }

    @Test
    void aLeafThatDoesNotResolveFailsAtAccessTime() {
        // two levels: the root resolves (checked at registration), the leaf's HMC page is taken away afterwards
        long root = d.allocPbles(1);
        d.allocPbles(PbleLayout.PBLE_PER_PAGE); // the leaf lands in another 4 KiB HMC page
        long leaf = d.allocPbles(pages.length);
        d.writePble(root, leaf);
        for (int i = 0; i < pages.length; i++) {
            d.writePble(leaf + i, pages[i]);
        }
        int s = d.stag(31, 0, 0x31);
        assertFalse(d.register(StagOps.regFields(s, PD, 0x20_0000, 4 * 4096, RW, 3, root, 0)).error());
        byte[] probe = new byte[16];
        assertEquals(OK, d.mrs.read(s, 0x20_0000, BytesStore.wrap(probe), 0, 16, REMOTE_READ, PD));
        d.breakPbleBacking(leaf, 0);
        refusedWrite(AeCode.LCE_QP_CATASTROPHIC, AccessFault.PBLE_FAULT, s, 0x20_0000, 16, REMOTE_WRITE, PD);
        // a leaf index beyond the committed PBLE count
        d.writePble(root, d.pbleCount() - 2);
        int t = d.stag(32, 0, 0x32);
        assertFalse(d.register(StagOps.regFields(t, PD, 0x20_0000, 4 * 4096, RW, 3, root, 0)).error());
        refusedWrite(AeCode.LCE_QP_CATASTROPHIC, AccessFault.PBLE_FAULT, t, 0x20_0000 + 2 * 4096, 16, REMOTE_WRITE,
                PD);
    }

    @Test
    void callerBufferOutsideItsStoreIsTheCallersBug() {
        byte[] small = new byte[8];
        assertThrows(IllegalArgumentException.class,
                () -> d.mrs.write(stag, VA, BytesStore.wrap(small), 4, 8, REMOTE_WRITE, PD));
        assertThrows(IllegalArgumentException.class,
                () -> d.mrs.read(stag, VA, BytesStore.wrap(small), 0, 9, REMOTE_READ, PD));
    }

    // ------------------------------------------------------------------ Fast Register

    private int allocated(int index) {
        int s = d.stag(index, 0x11, 0x22);
        assertFalse(d.allocStag(s, PD, 4 * 4096).error());
        return s;
    }

    private void refusedFastRegister(AeCode ae, AccessFault why, SqWqe w, int pd) {
        long count = d.mrs.failures(why);
        assertEquals(ae.code(), d.mrs.fastRegister(w, pd), why.name());
        assertEquals(count + 1, d.mrs.failures(why));
    }

    @Test
    void fastRegisterRefusals() {
        int s = allocated(40);
        long first = d.level1(pages);
        long va = 0x3000_0000L;
        refusedFastRegister(AeCode.AMP_BAD_PD, AccessFault.BAD_PD,
                d.fastRegisterWqe(s, va, LEN, RW, first, pages[0], true), PD + 1);
        refusedFastRegister(AeCode.AMP_UNALLOCATED_STAG, AccessFault.UNALLOCATED_STAG,
                d.fastRegisterWqe(d.stag(41, 0x11, 1), va, LEN, RW, first, pages[0], true), PD);
        refusedFastRegister(AeCode.AMP_BAD_STAG_KEY, AccessFault.BAD_STAG_KEY,
                d.fastRegisterWqe(d.stag(40, 0x12, 0x22), va, LEN, RW, first, pages[0], true), PD);
        // remote write without local write (IRDMA_ACCESS_FLAGS_REMOTEWRITE_ONLY)
        refusedFastRegister(AeCode.AMP_FASTREG_INVALID_RIGHTS, AccessFault.FASTREG_INVALID_RIGHTS,
                d.fastRegisterWqe(s, va, LEN, REMOTE_WRITE, first, pages[0], true), PD);
        refusedFastRegister(AeCode.AMP_FASTREG_INVALID_RIGHTS, AccessFault.FASTREG_INVALID_RIGHTS,
                d.fastRegisterWqe(s, va, LEN, RW | MemoryRegions.BIND_WINDOW, first, pages[0], true), PD);
        refusedFastRegister(AeCode.AMP_FASTREG_INVALID_LENGTH, AccessFault.FASTREG_INVALID_LENGTH,
                d.fastRegisterWqe(s, va, 0, RW, first, pages[0], true), PD);
        refusedFastRegister(AeCode.AMP_FASTREG_INVALID_LENGTH, AccessFault.FASTREG_INVALID_LENGTH,
                d.fastRegisterWqe(s, -4096L, 8192, RW, first, pages[0], true), PD);
        SqWqe hps = d.fastRegisterWqe(s, va, LEN, RW, first, pages[0], true);
        d.rewriteLastHeader(0, 3L << 46); // host page size code 3
        refusedFastRegister(AeCode.AMP_FASTREG_INVALID_PBL_HPS_CFG, AccessFault.FASTREG_INVALID_PBL_HPS_CFG, hps, PD);
        SqWqe chunk2 = d.fastRegisterWqe(s, va, LEN, RW, first, pages[0], true);
        d.rewriteLastHeader(3L << 44, 2L << 44);
        refusedFastRegister(AeCode.AMP_FASTREG_INVALID_PBL_HPS_CFG, AccessFault.FASTREG_INVALID_PBL_HPS_CFG, chunk2,
                PD);
        // the PBL address is not the list's first page; the list runs past the committed PBLEs
        refusedFastRegister(AeCode.AMP_FASTREG_PBLE_MISMATCH, AccessFault.FASTREG_PBLE_MISMATCH,
                d.fastRegisterWqe(s, va, LEN, RW, first, pages[1], true), PD);
        refusedFastRegister(AeCode.AMP_FASTREG_PBLE_MISMATCH, AccessFault.FASTREG_PBLE_MISMATCH,
                d.fastRegisterWqe(s, va, LEN, RW, d.pbleCount() - 2, pages[0], true), PD);
        SqWqe nop = new SqWqe().wrap(d.store(), d.off(d.alloc(32)), 32);
        nop.writeNop(true, true);
        refusedFastRegister(AeCode.WQE_UNEXPECTED_OPCODE, AccessFault.NOT_FAST_REGISTER, nop, PD);
        assertFalse(d.mrs.registered(40), "no refused Fast Register made the STag valid");
        assertEquals(OK, d.mrs.fastRegister(d.fastRegisterWqe(s, va, LEN, RW, first, pages[0], true), PD));
        refusedFastRegister(AeCode.AMP_FASTREG_VALID_STAG, AccessFault.FASTREG_VALID_STAG,
                d.fastRegisterWqe(s, va, LEN, RW, first, pages[0], true), PD);
        // of a window, and of a region allocated without remote access
        int mw = d.stag(42, 0x11, 0);
        assertFalse(d.allocWindow(mw, PD, false).error());
        refusedFastRegister(AeCode.AMP_FASTREG_MW_STAG, AccessFault.FASTREG_MW_STAG,
                d.fastRegisterWqe(mw, va, LEN, RW, first, pages[0], true), PD);
    }

    @Test
    void fastRegisterOfARegisteredRegionIsRefused() {
        refusedFastRegister(AeCode.AMP_FASTREG_VALID_STAG, AccessFault.FASTREG_VALID_STAG,
                d.fastRegisterWqe(stag, VA, LEN, RW, 0, pages[0], true), PD);
    }

    // ------------------------------------------------------------------ invalidation

    @Test
    void invalidationRefusals() {
        assertEquals(AeCode.STAG_ZERO_INVALID.code(), d.mrs.invalidate(0, PD, false));
        assertEquals(AeCode.AMP_UNALLOCATED_STAG.code(), d.mrs.invalidate(d.stag(99, 0x2f, 0x61), PD, false));
        assertEquals(AeCode.AMP_BAD_STAG_KEY.code(), d.mrs.invalidate(stag + 1, PD, false));
        assertEquals(AeCode.AMP_BAD_PD.code(), d.mrs.invalidate(stag, PD + 1, true));
        int local = d.stag(13, 0, 1);
        assertFalse(d.registerLevel1(local, PD, VA, LEN, LOCAL_WRITE, pages).error());
        assertEquals(AeCode.AMP_INVALIDATE_NO_REMOTE_ACCESS_RIGHTS.code(), d.mrs.invalidate(local, PD, true));
        assertEquals(1, d.mrs.failures(AccessFault.INVALIDATE_NO_REMOTE_ACCESS_RIGHTS));
        int type1 = d.stag(21, 0, 0);
        assertFalse(d.allocWindow(type1, PD, false).error());
        assertEquals(AeCode.AMP_INVALIDATE_TYPE1_MW.code(), d.mrs.invalidate(type1, PD, false));
        int type2 = d.stag(22, 0, 0);
        assertFalse(d.allocWindow(type2, PD, true).error());
        assertEquals(OK, d.mrs.invalidate(type2, PD, false));
        assertTrue(d.mrs.registered(12), "no refused invalidation touched the region");
        assertTrue(d.mrs.registered(13));
        assertEquals(1, d.mrs.invalidations(), "only the window was invalidated");
    }
}
