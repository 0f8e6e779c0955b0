package dev.irdmaemu.driver.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.CqpException;
import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.hmc.PageDescriptor;
import dev.irdmaemu.fw.hmc.SegmentDescriptor;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.fw.sim.SimScheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The driver's HMC backing against hmc.c / pble.c, as the device sees it: direct 2 MiB SDs for every object but
 * PBLE, Update PE SDs with at most 11 entries (three in the WQE, the rest in the CQP's SD buffer at the WQE index's
 * 128-byte slot), and the PBLE object's first chunk in each of pble.c's three ways.
 */
class HmcBackingTest {
    private static final long RAM_BASE = 0x8000_0000L;

    /** A driver brought up on a scripted device configured by {@code setup}. */
    private record Up(ScriptedDevice device, IrdmaDriver driver, HostRam ram) implements AutoCloseable {
        @Override
        public void close() {
            ram.close();
        }
    }

    private static Up up(Consumer<ScriptedDevice> setup) {
        SimScheduler scheduler = new SimScheduler(5);
        HostRam ram = new HostRam(new HostMemory(), RAM_BASE, 32L << 20);
        ScriptedDevice device = new ScriptedDevice(ram);
        setup.accept(device);
        IrdmaDriver driver = new IrdmaDriver(ram, scheduler);
        device.interrupts(driver.interruptSink());
        driver.bind(device);
        driver.bringUp();
        return new Up(device, driver, ram);
    }

    /** Every SD entry the Update PE SDs ops carried, in order: {command, data}. */
    private static List<long[]> sdEntries(Up u, List<ScriptedDevice.Op> sdOps) {
        List<long[]> out = new ArrayList<>();
        for (ScriptedDevice.Op op : sdOps) {
            CqpWqe w = op.wqe();
            assertEquals(CqpWqe.SD_INLINE_MAX + CqpWqe.SD_BUFFER_MAX, 11);
            assertTrue(w.sdTotalCount() <= 11, "at most IRDMA_MAX_SD_ENTRIES per op");
            for (int i = 0; i < w.sdInlineCount(); i++) {
                out.add(new long[] {w.sdEntryCommand(i), w.sdEntryData(i)});
            }
            if (w.sdBufferEntryCount() > 0) {
                assertEquals(3, w.sdInlineCount(), "the buffer only once the WQE's three are used");
                long buf = w.sdBufferAddress();
                // ctrl.c cqp_sds_wqe_fill: the WQE index's 128-byte slot of the CQP's SD buffer
                int index = u.device().ops.indexOf(op);
                assertEquals(0, (buf - index * 128L) % 4096, "slot of WQE " + index + " at 0x" + Long.toHexString(buf));
                for (int i = 0; i < w.sdBufferEntryCount(); i++) {
                    long o = u.ram().offsetOf(buf) + 16L * i;
                    out.add(new long[] {u.ram().store().readLong(o), u.ram().store().readLong(o + 8)});
                }
            }
        }
        return out;
    }

    private static List<ScriptedDevice.Op> sdOpsBefore(Up u, CqpOpcode until) {
        List<ScriptedDevice.Op> l = new ArrayList<>();
        for (ScriptedDevice.Op op : u.device().ops) {
            if (op.opcode() == until) {
                break;
            }
            if (op.opcode() == CqpOpcode.UPDATE_PE_SDS) {
                l.add(op);
            }
        }
        return l;
    }

    @Test
    void everyObjectButPbleGetsDirectSdsElevenPerOp() {
        try (Up u = up(d -> { })) {
            List<ScriptedDevice.Op> sdOps = sdOpsBefore(u, CqpOpcode.SHMC_PAGES_ALLOCATED);
            List<long[]> entries = sdEntries(u, sdOps);
            assertTrue(entries.size() > 3, "more SDs than the WQE holds: " + entries.size());
            int previous = -1;
            for (long[] e : entries) {
                int sd = SegmentDescriptor.sdIndex(e[0]);
                assertTrue(sd > previous, "SDs in order, each once");
                previous = sd;
                assertTrue(SegmentDescriptor.isWrite(e[0]) && SegmentDescriptor.partSel(e[0]));
                assertTrue(SegmentDescriptor.valid(e[1]) && SegmentDescriptor.direct(e[1]));
                assertEquals(SegmentDescriptor.MAX_BP_COUNT, SegmentDescriptor.bpCount(e[1]));
                assertEquals(0, SegmentDescriptor.address(e[1]) % SegmentDescriptor.DIRECT_BP_SIZE, "2 MiB aligned");
                assertEquals(SegmentDescriptor.address(e[1]), u.driver().hmc().sdAddress(sd).orElseThrow());
                assertTrue(u.driver().hmc().sdDirect(sd));
            }
            assertTrue(u.driver().hmc().fpmSizing().ok());
            assertEquals(1024, u.driver().hmc().committedCount(HmcObjectType.QP));
            // the QP object's first context resolves into SD 0's 2 MiB page
            assertEquals(u.driver().hmc().sdAddress(0).orElseThrow(),
                    u.driver().hmc().address(u.driver().hmc().committedBase(HmcObjectType.QP)).orElseThrow());
        }
    }

    /** Bring-up on a device set up by {@code setup} that must fail: the exception, the RAM closed. */
    private static CqpException refused(Consumer<ScriptedDevice> setup, List<ScriptedDevice.Op> opsSeen) {
        SimScheduler scheduler = new SimScheduler(5);
        try (HostRam ram = new HostRam(new HostMemory(), RAM_BASE, 32L << 20)) {
            ScriptedDevice device = new ScriptedDevice(ram);
            setup.accept(device);
            IrdmaDriver driver = new IrdmaDriver(ram, scheduler);
            device.interrupts(driver.interruptSink());
            driver.bind(device);
            CqpException e = assertThrows(CqpException.class, driver::bringUp);
            opsSeen.addAll(device.ops);
            assertFalse(driver.isUp());
            return e;
        }
    }

    @Test
    void aQueryAnswerIrdmaRefusesEndsBringUpBeforeTheCommit() {
        List<ScriptedDevice.Op> ops = new ArrayList<>();
        CqpException e = refused(ScriptedDevice::zeroQ1BlockSize, ops);
        assertEquals(CqpException.Kind.BAD_FPM, e.kind());
        assertEquals("QUERY_FPM_VAL", e.op());
        assertEquals(CqpOpcode.QUERY_FPM_VAL, ops.get(ops.size() - 1).opcode(), "nothing after the query");
    }

    @Test
    void aCommitAnswerBeyondTheQueriedSdsIsRefusedBeforeAnySdIsBacked() {
        List<ScriptedDevice.Op> ops = new ArrayList<>();
        CqpException e = refused(d -> d.commitLastObjectAt(1L << 30), ops);
        assertEquals(CqpException.Kind.BAD_FPM, e.kind());
        assertEquals("COMMIT_FPM_VAL", e.op());
        assertTrue(ops.stream().noneMatch(o -> o.opcode() == CqpOpcode.UPDATE_PE_SDS), "no SD backed");
    }

    @Test
    void aPbleObjectStartingInABackedSdReusesIt() {
        try (Up u = up(d -> { })) {
            long base = u.driver().hmc().committedBase(HmcObjectType.PBLE);
            int sd = (int) (base / SegmentDescriptor.DIRECT_BP_SIZE);
            assertTrue(base % SegmentDescriptor.DIRECT_BP_SIZE != 0, "the scripted layout puts PBLE mid-SD");
            assertTrue(u.driver().hmc().sdDirect(sd));
            // no Update PE SDs after the CEQ: the chunk lives in the SD irdma_create_hmc_objs backed
            assertEquals(sdOpsBefore(u, CqpOpcode.SHMC_PAGES_ALLOCATED).size(), u.device().ops(CqpOpcode.UPDATE_PE_SDS)
                    .size());
            // the chunk runs from the first 4 KiB boundary to the SD's end
            long end = (sd + 1L) * SegmentDescriptor.DIRECT_BP_SIZE;
            assertEquals((end - base) / 8, u.driver().hmc().pbleBackedCount());
            assertEquals(u.driver().hmc().sdAddress(sd).orElseThrow() + end - 8
                    - (long) sd * SegmentDescriptor.DIRECT_BP_SIZE,
                    u.driver().hmc().address(end - 8).orElseThrow());
        }
    }

    @Test
    void aPbleObjectAtAnSdBoundaryWithAWholeSdOfEntriesTakesANewDirectSd() {
        try (Up u = up(d -> d.pbleAtSdBoundary(1 << 18))) {
            long base = u.driver().hmc().committedBase(HmcObjectType.PBLE);
            assertEquals(0, base % SegmentDescriptor.DIRECT_BP_SIZE);
            int sd = (int) (base / SegmentDescriptor.DIRECT_BP_SIZE);
            ScriptedDevice.Op last = u.device().last(CqpOpcode.UPDATE_PE_SDS);
            int at = u.device().ops.indexOf(last);
            assertEquals(CqpOpcode.CREATE_CEQ, u.device().ops.get(at - 1).opcode(), "after CEQ 0 (hw.c order)");
            assertEquals(CqpOpcode.CREATE_AEQ, u.device().ops.get(at + 1).opcode(), "before the AEQ");
            CqpWqe w = last.wqe();
            assertEquals(1, w.sdTotalCount());
            assertEquals(sd, SegmentDescriptor.sdIndex(w.sdEntryCommand(0)));
            assertTrue(SegmentDescriptor.direct(w.sdEntryData(0)));
            assertEquals(0, SegmentDescriptor.address(w.sdEntryData(0)) % SegmentDescriptor.DIRECT_BP_SIZE);
            assertEquals(PageDescriptor.PDS_PER_SD * 512L, u.driver().hmc().pbleBackedCount());
            assertTrue(u.device().pdInvalidations.isEmpty());
        }
    }

    @Test
    void aPbleObjectSmallerThanAnSdGetsAPagedSdWithPdsAndInvalidations() {
        // 64 Ki PBLEs are 512 KiB: 128 pages, fewer than an SD's 512, so pble.c irdma_get_type picks a paged SD
        try (Up u = up(d -> d.pbleAtSdBoundary(1 << 16))) {
            long base = u.driver().hmc().committedBase(HmcObjectType.PBLE);
            int sd = (int) (base / SegmentDescriptor.DIRECT_BP_SIZE);
            ScriptedDevice.Op last = u.device().last(CqpOpcode.UPDATE_PE_SDS);
            CqpWqe w = last.wqe();
            assertEquals(1, w.sdTotalCount());
            assertEquals(sd, SegmentDescriptor.sdIndex(w.sdEntryCommand(0)));
            assertFalse(SegmentDescriptor.direct(w.sdEntryData(0)), "paged");
            assertFalse(u.driver().hmc().sdDirect(sd));
            long pdPage = SegmentDescriptor.address(w.sdEntryData(0));
            assertEquals(pdPage, u.driver().hmc().sdAddress(sd).orElseThrow());
            // a PD per 4 KiB page, each followed by PFHMC_PDINV for (SD, PD) (hmc.c irdma_add_pd_table_entry)
            assertEquals(128, u.device().pdInvalidations.size());
            for (int pd = 0; pd < 128; pd++) {
                long entry = u.ram().store().readLong(u.ram().offsetOf(pdPage) + 8L * pd);
                assertTrue(PageDescriptor.valid(entry), "PD " + pd);
                assertEquals(PageDescriptor.backingPage(entry),
                        u.driver().hmc().address(base + 4096L * pd).orElseThrow());
                int inv = u.device().pdInvalidations.get(pd);
                assertEquals(sd, Gen2Registers.pdInvalidateSdIndex(inv));
            }
            assertEquals(0, u.ram().store().readLong(u.ram().offsetOf(pdPage) + 8L * 128), "nothing past the object");
            assertEquals(128L * 512, u.driver().hmc().pbleBackedCount());
            // the PDs were written before the SD was given to the device, and the PBLEs resolve through them
            assertTrue(u.device().pdInvalidationsBeforeLastSdUpdate);
        }
    }
}
