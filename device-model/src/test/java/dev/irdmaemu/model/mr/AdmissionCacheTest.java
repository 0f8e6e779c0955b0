package dev.irdmaemu.model.mr;

import static dev.irdmaemu.model.mr.MemoryRegions.LOCAL_WRITE;
import static dev.irdmaemu.model.mr.MemoryRegions.OK;
import static dev.irdmaemu.model.mr.MemoryRegions.REMOTE_READ;
import static dev.irdmaemu.model.mr.MemoryRegions.REMOTE_WRITE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.SqWqe;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The data path remembers the last STag it admitted (with its PD and rights) so that a stream of accesses through
 * one region skips the entry's checks: every case here makes an access that fills that memory, changes the entry
 * under it, and repeats an access that must now see the change, as a table without the memory would.
 */
class AdmissionCacheTest {
    static final int PD = 3;
    static final int RW = LOCAL_WRITE | REMOTE_READ | REMOTE_WRITE;
    static final long VA = 0x6000_0000_0100L;
    static final long LEN = 3 * 4096 - 0x100;

    private final StagOps d = new StagOps();
    private final byte[] data = RegistrationTest.pattern(200, 7);
    private long[] pages;
    private int stag;

    @BeforeEach
    void register() {
        pages = d.scatteredPages(3);
        stag = d.stag(12, 0x2f, 0x61);
        assertFalse(d.registerLevel1(stag, PD, VA, LEN, RW, pages).error());
        admitted(stag, VA + 100, PD);
    }

    @AfterEach
    void close() {
        d.close();
    }

    private int write(int s, long to, int len, int access, int pd) {
        return d.mrs.write(s, to, BytesStore.wrap(data), 0, len, access, pd);
    }

    /** A write that succeeds, so the table remembers {@code s}, and lands where the page list says. */
    private void admitted(int s, long to, int pd) {
        assertEquals(OK, write(s, to, 64, REMOTE_WRITE, pd));
    }

    /** Refused with {@code ae} by a write and by a check, one after the other (the second one on a remembered STag). */
    private void refused(AeCode ae, int s, long to, int len, int access, int pd) {
        assertEquals(ae.code(), write(s, to, len, access, pd));
        assertEquals(ae.code(), d.mrs.check(s, to, len, access, pd));
    }

    @Test
    void anInvalidatedStagIsRefusedRightAfterAnAccess() {
        assertEquals(OK, d.mrs.invalidate(stag, PD, true));
        refused(AeCode.AMP_INVALID_STAG, stag, VA + 100, 64, REMOTE_WRITE, PD);
    }

    @Test
    void aDeregisteredStagIsRefusedRightAfterAnAccess() {
        assertFalse(d.dealloc(stag, PD, true).error());
        refused(AeCode.AMP_UNALLOCATED_STAG, stag, VA + 100, 64, REMOTE_WRITE, PD);
    }

    @Test
    void aReRegisteredIndexAnswersWithItsNewKeyPdLengthAndPages() {
        assertFalse(d.dealloc(stag, PD, true).error());
        long[] other = d.scatteredPages(2);
        int next = d.stag(12, 0x2f, 0x62);
        assertFalse(d.registerLevel1(next, PD + 1, VA, 4096, RW, other).error());
        refused(AeCode.AMP_BAD_STAG_KEY, stag, VA + 100, 64, REMOTE_WRITE, PD);
        refused(AeCode.AMP_BAD_PD, next, VA + 100, 64, REMOTE_WRITE, PD);
        admitted(next, VA + 100, PD + 1);
        assertArrayEquals(java.util.Arrays.copyOf(data, 64), d.read(other[0] + 0x100 + 100, 64),
                "the write went to the new page list");
        refused(AeCode.AMP_BOUNDS_VIOLATION, next, VA + 4096, 64, REMOTE_WRITE, PD + 1);
    }

    @Test
    void aFastRegisteredNewKeyMovesTheRegion() {
        int s = d.stag(40, 0x1f0, 0x10);
        assertFalse(d.allocStag(s, PD, 3 * 4096).error());
        long[] frPages = d.scatteredPages(3);
        long first = d.level1(frPages);
        long va = 0x7700_0000_0000L;
        SqWqe w = d.fastRegisterWqe(s, va, 3 * 4096, RW, first, frPages[0], true);
        assertEquals(OK, d.mrs.fastRegister(w, PD));
        admitted(s, va + 8, PD);
        assertEquals(OK, d.mrs.invalidate(s, PD, false));
        refused(AeCode.AMP_INVALID_STAG, s, va + 8, 64, REMOTE_WRITE, PD);
        int next = s & ~0xff | 0x11;
        long va2 = 0x7800_0000_0000L;
        SqWqe w2 = d.fastRegisterWqe(next, va2, 4096, LOCAL_WRITE | REMOTE_WRITE, first, frPages[0], false);
        assertEquals(OK, d.mrs.fastRegister(w2, PD));
        refused(AeCode.AMP_BAD_STAG_KEY, s, va + 8, 64, REMOTE_WRITE, PD);
        admitted(next, va2 + 8, PD);
        refused(AeCode.AMP_BOUNDS_VIOLATION, next, va + 8, 64, REMOTE_WRITE, PD);
        refused(AeCode.AMP_BOUNDS_VIOLATION, next, va2 + 4090, 64, REMOTE_WRITE, PD);
    }

    @Test
    void anotherPdOrOtherRightsAreCheckedAfterAnAdmission() {
        refused(AeCode.AMP_BAD_PD, stag, VA + 100, 64, REMOTE_WRITE, PD + 1);
        admitted(stag, VA + 100, PD);
        int local = d.stag(14, 1, 1);
        assertFalse(d.registerLevel1(local, PD, VA, LEN, LOCAL_WRITE, pages).error());
        assertEquals(OK, write(local, VA + 100, 64, LOCAL_WRITE, PD));
        refused(AeCode.AMP_RIGHTS_VIOLATION, local, VA + 100, 64, REMOTE_WRITE, PD);
        assertEquals(OK, write(local, VA + 100, 64, LOCAL_WRITE, PD));
    }

    @Test
    void everyAccessChecksItsOwnOffsetAndLength() {
        refused(AeCode.AMP_BOUNDS_VIOLATION, stag, VA + LEN - 10, 64, REMOTE_WRITE, PD);
        admitted(stag, VA + LEN - 64, PD);
        refused(AeCode.AMP_BOUNDS_VIOLATION, stag, VA - 1, 8, REMOTE_WRITE, PD);
        admitted(stag, VA, PD);
        refused(AeCode.AMP_TO_WRAP, stag, -16L, 64, REMOTE_WRITE, PD);
        assertEquals(OK, write(stag, VA + 7, 0, REMOTE_WRITE, PD), "zero length: the STag only");
        admitted(stag, VA + 200, PD);
    }

    @Test
    void twoStagsInTurnEachLandInTheirOwnPages() {
        long[] other = d.scatteredPages(1);
        int second = d.stag(15, 2, 2);
        assertFalse(d.registerPhysical(second, PD, other[0], 4096, 0x9000, RW).error());
        for (int i = 0; i < 4; i++) {
            data[0] = (byte) i;
            admitted(stag, VA + 100 + i, PD);
            data[0] = (byte) (100 + i);
            admitted(second, 0x9000 + 10 * i, PD);
            assertEquals((byte) i, d.read(pages[0] + 0x100 + 100 + i, 1)[0]);
            assertEquals((byte) (100 + i), d.read(other[0] + 10 * i, 1)[0]);
        }
    }
}
