package dev.irdmaemu.driver.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.driver.PbleResource;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.hmc.PageDescriptor;
import dev.irdmaemu.fw.hmc.SegmentDescriptor;
import dev.irdmaemu.fw.sim.SimScheduler;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The PBLE pool grows chunk by chunk as pble.c's does: bring-up backs the first chunk (irdma_hmc_init_pble), and
 * a registration that finds no room makes irdma_get_pble add the next one (add_pble_prm: a new direct SD for a whole
 * SD of PBLEs, a paged SD with a page per PD for a tail smaller than an SD, each newly valid SD programmed with its
 * own Update PE SDs). Freed PBLEs go back to the pool, which keeps its chunks; past the object's last PBLE the
 * registration fails with -ENOMEM and nothing is taken.
 */
class PbleGrowthTest {
    private static final long RAM_BASE = 0x8000_0000L;
    /** PBLEs in one SD: 2 MiB / 8 bytes. */
    private static final int SD_PBLES = 1 << 18;
    /** One MR's pages: a quarter of an SD's PBLEs. */
    private static final int MR_PAGES = 1 << 16;

    private record Up(ScriptedDevice device, IrdmaDriver driver, HostRam ram, IrdmaVerbs verbs)
            implements AutoCloseable {
        @Override
        public void close() {
            ram.close();
        }
    }

    /** The PBLE object alone from an SD boundary: two whole SDs of PBLEs and a quarter SD (128 pages) after them. */
    private static Up up() {
        SimScheduler scheduler = new SimScheduler(9);
        HostRam ram = new HostRam(new HostMemory(), RAM_BASE, 48L << 20);
        ScriptedDevice device = new ScriptedDevice(ram);
        device.pbleAtSdBoundary(2L * SD_PBLES + MR_PAGES);
        IrdmaDriver driver = new IrdmaDriver(ram, scheduler);
        device.interrupts(driver.interruptSink());
        driver.bind(device);
        driver.bringUp();
        device.ops.clear();
        return new Up(device, driver, ram, new IrdmaVerbs(driver));
    }

    /** {@code n} page addresses alternating between two pages that are not adjacent (not a contiguous region). */
    private static long[] pages(Up u, int n) {
        long a = u.ram().allocate(4096);
        long gap = u.ram().allocate(4096);
        long b = u.ram().allocate(4096);
        u.ram().free(gap, 4096);
        long[] p = new long[n];
        for (int i = 0; i < n; i++) {
            p[i] = (i & 1) == 0 ? a : b;
        }
        return p;
    }

    private static MemoryRegion register(Up u, ProtectionDomain pd, long[] pages) {
        return u.verbs().registerPages(pd, 0x1000_0000L, pages, (long) pages.length * 4096, Access.LOCAL_WRITE);
    }

    @Test
    void registeringPastTheFirstChunkAddsADirectSdWithItsOwnUpdateAndFreedPblesAreReused() {
        try (Up u = up()) {
            PbleResource pool = u.driver().hmc().pbles();
            long base = u.driver().hmc().committedBase(HmcObjectType.PBLE);
            int firstSd = (int) (base / SegmentDescriptor.DIRECT_BP_SIZE);
            assertEquals(1, pool.chunks(), "bring-up backs one chunk");
            assertEquals(SD_PBLES, pool.capacity(), "the first chunk is the object's first SD");
            assertFalse(u.driver().hmc().sdValid(firstSd + 1), "the next SD is not backed before it is needed");
            long bytesBefore = u.driver().hmc().bytesAllocated();

            ProtectionDomain pd = u.verbs().allocatePd();
            long[] pages = pages(u, MR_PAGES);
            List<MemoryRegion> mrs = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                mrs.add(register(u, pd, pages));
            }
            assertEquals(SD_PBLES, pool.inUse(), "four regions fill the first chunk");
            assertEquals(0, u.device().ops(CqpOpcode.UPDATE_PE_SDS).size(), "no SD added while the chunk had room");

            // the fifth finds no room: add_pble_prm backs the next SD (a whole one: direct) and programs it
            MemoryRegion fifth = register(u, pd, pages);
            mrs.add(fifth);
            assertEquals(2, pool.chunks());
            assertEquals(1, pool.chunksAdded());
            assertEquals(2 * SD_PBLES, pool.capacity());
            List<ScriptedDevice.Op> sdOps = u.device().ops(CqpOpcode.UPDATE_PE_SDS);
            assertEquals(1, sdOps.size(), "one Update PE SDs for the new chunk");
            CqpWqe w = sdOps.get(0).wqe();
            assertEquals(1, w.sdTotalCount());
            assertEquals(firstSd + 1, SegmentDescriptor.sdIndex(w.sdEntryCommand(0)));
            assertTrue(SegmentDescriptor.direct(w.sdEntryData(0)));
            assertEquals(u.driver().hmc().sdAddress(firstSd + 1).orElseThrow(),
                    SegmentDescriptor.address(w.sdEntryData(0)));
            int at = u.device().ops.indexOf(sdOps.get(0));
            assertEquals(CqpOpcode.REG_MR, u.device().ops.get(at + 1).opcode(), "the SD first, then the region");
            // the region lives in the new chunk, and the device reads its pages through the new SD
            assertEquals(SD_PBLES, fifth.firstPbleIndex());
            assertEquals(1, fifth.pbleLevel());
            CqpWqe reg = u.device().last(CqpOpcode.REG_MR).wqe();
            assertEquals(SD_PBLES, reg.stagFirstPmPblIndex());
            for (int i : new int[] {0, 1, MR_PAGES - 1}) {
                assertEquals(pages[i], pool.read(SD_PBLES + i), "PBLE " + (SD_PBLES + i));
            }
            assertEquals(u.driver().hmc().sdAddress(firstSd + 1).orElseThrow() + 8L * (MR_PAGES - 1),
                    u.driver().hmc().address(base + 8L * (SD_PBLES + MR_PAGES - 1)).orElseThrow());
            assertEquals(bytesBefore + SegmentDescriptor.DIRECT_BP_SIZE, u.driver().hmc().bytesAllocated());

            // freed PBLEs return to the pool; registering as much again needs no new SD
            for (MemoryRegion mr : mrs) {
                u.verbs().deregister(mr);
            }
            assertEquals(0, pool.inUse(), "every PBLE back");
            for (int i = 0; i < 5; i++) {
                mrs.set(i, register(u, pd, pages));
            }
            assertEquals(1, u.device().ops(CqpOpcode.UPDATE_PE_SDS).size(), "the pool kept its chunks");
            assertEquals(2, pool.chunks());
            assertEquals(5 * MR_PAGES, pool.inUse());
        }
    }

    @Test
    void theTailSmallerThanAnSdIsAPagedChunkAndPastTheObjectARegistrationIsNoMemoryWithNothingTaken() {
        try (Up u = up()) {
            PbleResource pool = u.driver().hmc().pbles();
            long base = u.driver().hmc().committedBase(HmcObjectType.PBLE);
            int firstSd = (int) (base / SegmentDescriptor.DIRECT_BP_SIZE);
            ProtectionDomain pd = u.verbs().allocatePd();
            long[] pages = pages(u, MR_PAGES);
            List<MemoryRegion> mrs = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                mrs.add(register(u, pd, pages));
            }
            assertEquals(2, pool.chunks());
            int pdInvBefore = u.device().pdInvalidations.size();
            // the ninth needs the object's last quarter SD: 128 pages, a paged SD with a PD each
            MemoryRegion ninth = register(u, pd, pages);
            mrs.add(ninth);
            assertEquals(3, pool.chunks());
            assertEquals(2 * SD_PBLES + MR_PAGES, pool.capacity());
            assertEquals(2 * SD_PBLES, ninth.firstPbleIndex());
            ScriptedDevice.Op last = u.device().last(CqpOpcode.UPDATE_PE_SDS);
            CqpWqe w = last.wqe();
            assertEquals(firstSd + 2, SegmentDescriptor.sdIndex(w.sdEntryCommand(0)));
            assertFalse(SegmentDescriptor.direct(w.sdEntryData(0)), "a tail smaller than an SD is paged");
            assertEquals(pdInvBefore + MR_PAGES / 512, u.device().pdInvalidations.size(), "a PFHMC_PDINV per PD");
            long pdPage = SegmentDescriptor.address(w.sdEntryData(0));
            long entry = u.ram().store().readLong(u.ram().offsetOf(pdPage) + 8L * 127);
            assertTrue(PageDescriptor.valid(entry));
            assertEquals(pages[MR_PAGES - 1], pool.read(2 * SD_PBLES + MR_PAGES - 1));
            assertEquals(2, u.device().ops(CqpOpcode.UPDATE_PE_SDS).size(),
                    "one Update PE SDs per chunk added after bring-up");

            // the object is used up: add_pble_prm has fewer than a page of PBLEs left (-ENOMEM)
            int ops = u.device().ops.size();
            int mrsBefore = u.verbs().mrsInUse();
            int inUse = pool.inUse();
            long bytes = u.driver().hmc().bytesAllocated();
            VerbsException e = assertThrows(VerbsException.class, () -> register(u, pd, pages));
            assertEquals(VerbsException.Kind.NO_MEMORY, e.kind());
            VerbsException small = assertThrows(VerbsException.class, () -> register(u, pd, pages(u, 2)));
            assertEquals(VerbsException.Kind.NO_MEMORY, small.kind());
            assertEquals(ops, u.device().ops.size(), "no CQP op for a refused registration");
            assertEquals(mrsBefore, u.verbs().mrsInUse(), "no STag taken");
            assertEquals(inUse, pool.inUse(), "no PBLE taken");
            assertEquals(bytes, u.driver().hmc().bytesAllocated(), "no backing allocated");
            assertEquals(3, pool.chunks());
            assertTrue(pool.failures() >= 2);

            // one region freed makes room again, without a new chunk
            u.verbs().deregister(mrs.remove(0));
            mrs.add(register(u, pd, pages));
            assertEquals(2, u.device().ops(CqpOpcode.UPDATE_PE_SDS).size());
            for (MemoryRegion mr : mrs) {
                u.verbs().deregister(mr);
            }
            assertEquals(0, pool.inUse());
            assertEquals(0, u.verbs().mrsInUse());
        }
    }
}
