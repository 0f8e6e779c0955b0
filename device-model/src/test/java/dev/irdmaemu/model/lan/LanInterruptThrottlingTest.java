package dev.irdmaemu.model.lan;

import static dev.irdmaemu.fw.lan.LanRegister.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.pci.PciRegs;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.E810PhysicalFunction;
import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.model.pci.E810PciFunction;
import dev.irdmaemu.model.trace.Trace;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Interrupt throttling on the assembled PF, driven through BAR0 as ice drives it: GLINT_ITR(i, vector) written by
 * __ice_write_itr (usecs >> 1), QINT_RQCTL naming ITR index 0 (ICE_RX_ITR), GLINT_DYN_CTL re-armed after each
 * interrupt with ice_buildreg_itr(ICE_ITR_NONE, 0) (ice_enable_interrupt), GLINT_RATE from ice_write_intrl
 * (usecs / 4 | INTRL_ENA). Frames arrive on simulated time; the "driver" re-arms after each MSI-X message, as NAPI
 * does once its poll completes.
 */
class LanInterruptThrottlingTest {
    private static final int V = 5;
    private static final int REARM = (int) (Gen2Registers.GLINT_DYN_CTL_INTENA | Gen2Registers.GLINT_DYN_CTL_CLEARPBA)
            | Gen2Registers.ITR_NONE << 3;

    private final SimScheduler scheduler = new SimScheduler(3);
    private final List<Long> msix = new ArrayList<>();
    private HostRam ram;
    private E810PhysicalFunction pf;
    private E810PciFunction pci;
    private IceLanDriver drv;
    private final byte[] frame = LanRig.icmpEcho(32);

    @BeforeEach
    void setUp() {
        ram = new HostRam(new HostMemory(), 0x1_0000_0000L, 16L << 20);
        pf = new E810PhysicalFunction(scheduler, ram.memory(), new Trace(scheduler), new LatencyTable(), 0,
                0x00_1B_21_AB_CD_EFL, v -> msix.add(scheduler.now()));
        pci = pf.pci();
        pci.configWrite(PciRegs.COMMAND, 2, PciRegs.COMMAND_MEMORY | PciRegs.COMMAND_MASTER);
        pci.configWrite(E810PciFunction.MSIX_CAP + PciRegs.MSIX_FLAGS, 2, 0x8000);
        drv = new IceLanDriver(ram, pci.bar0());
        assertTrue(drv.setupRx(0, 256, 2048, V));
        drv.postRx(255);
    }

    @AfterEach
    void tearDown() {
        ram.close();
    }

    private void rxItrIndex(int index) {
        pci.barWrite(0, QINT_RQCTL, 4, V | index << QINT_ITR_INDX_S | QINT_CAUSE_ENA_M);
    }

    private void itr(int index, int usecs) {
        pci.barWrite(0, Gen2Registers.GLINT_ITR + (long) index * Gen2Registers.GLINT_ITR_INDEX_STRIDE + V * 4L, 4,
                (usecs & 0x1FFE) >> 1);
    }

    private void arm() {
        pci.barWrite(0, Gen2Register.GLINT_DYN_CTL.at(V), 4, REARM);
    }

    /** {@code n} frames {@code spacingNanos} apart, re-arming after each interrupt; then runs {@code tailNanos}. */
    private void burst(int n, long spacingNanos, long tailNanos) {
        long start = scheduler.now();
        int seen = msix.size();
        for (int i = 0; i < n; i++) {
            scheduler.runUntil(start + i * spacingNanos);
            if (msix.size() != seen) {
                seen = msix.size();
                arm();
            }
            pf.rdma().port().receive(LanRig.store(frame), 0, frame.length);
        }
        long end = scheduler.now() + tailNanos;
        while (scheduler.now() < end) {
            scheduler.runUntil(Math.min(end, scheduler.now() + 1_000));
            if (msix.size() != seen) {
                seen = msix.size();
                arm();
            }
        }
    }

    private int drained() {
        int n = 0;
        while (drv.receive() != null) {
            n++;
        }
        return n;
    }

    @Test
    void withItr50usAHundredFramesInTenMicrosecondsRaiseTwoInterruptsNotAHundred() {
        itr(0, 50);
        assertEquals(25, pci.barRead(0, Gen2Registers.GLINT_ITR + V * 4L, 4), "50 us in 2 us units");
        rxItrIndex(0);
        arm();
        burst(100, 100, 200_000);
        assertEquals(100, drained(), "every frame written back at once: only the interrupt waits");
        assertEquals(2, msix.size(), "one at the burst's start, one when the 50 us interval ends: " + msix);
        assertTrue(msix.get(1) - msix.get(0) >= 50_000, "the second waits out the interval: " + msix);
        assertEquals(99, pf.rdma().interrupts().throttledCauses());
    }

    @Test
    void withoutItrEachFrameRaisesItsOwnInterruptAsBefore() {
        itr(0, 50);
        rxItrIndex(Gen2Registers.ITR_NONE); // ITR index 3: no ITR, whatever GLINT_ITR holds
        arm();
        burst(100, 10_000, 20_000);
        assertEquals(100, drained());
        assertEquals(100, msix.size());
        assertEquals(0, pf.rdma().interrupts().throttledCauses());
    }

    @Test
    void aZeroIntervalDoesNotThrottle() {
        itr(0, 0);
        rxItrIndex(0);
        arm();
        burst(50, 10_000, 20_000);
        assertEquals(50, msix.size());
    }

    @Test
    void intrlSpacesTheVectorsInterruptsByItsInterval() {
        rxItrIndex(Gen2Registers.ITR_NONE);
        // ice_write_intrl(q_vector, 20): 20 / ICE_INTRL_GRAN_ABOVE_25 = 5, with INTRL_ENA
        pci.barWrite(0, Gen2Register.GLINT_RATE.at(V), 4, 5 | (int) Gen2Registers.GLINT_RATE_INTRL_ENA);
        assertEquals(5 | 0x40, pci.barRead(0, Gen2Register.GLINT_RATE.at(V), 4));
        arm();
        burst(100, 1_000, 50_000);
        assertEquals(100, drained());
        assertTrue(msix.size() >= 5 && msix.size() <= 6, "about 100 us / 20 us interrupts: " + msix.size());
        for (int i = 1; i < msix.size(); i++) {
            assertTrue(msix.get(i) - msix.get(i - 1) >= 20_000, "spaced by 20 us: " + msix);
        }
    }

    @Test
    void aCauseReleasedByItsTimerWhileTheVectorIsDisarmedStaysPendingUntilIntenaAsBefore() {
        itr(0, 50);
        rxItrIndex(0);
        arm();
        pf.rdma().port().receive(LanRig.store(frame), 0, frame.length);
        scheduler.runUntil(scheduler.now() + 5_000);
        assertEquals(1, msix.size());
        pf.rdma().port().receive(LanRig.store(frame), 0, frame.length); // waits on the ITR timer
        scheduler.runUntil(scheduler.now() + 100_000);
        assertEquals(1, msix.size(), "the driver has not re-armed: the released cause is pending");
        assertTrue(pf.rdma().interrupts().pending(V));
        arm();
        scheduler.runUntil(scheduler.now() + 5_000);
        assertEquals(2, msix.size(), "INTENA fires the pending cause");
        assertFalse(pf.rdma().interrupts().pending(V));
    }

    @Test
    void dynCtlWritesSetAnIntervalSwintTriggersAndIntenaMskKeepsIntena() {
        // ice_buildreg_itr(ICE_IDX_ITR2, 20K = 50 us): INTERVAL lands in GLINT_ITR(2, v); ITR_NONE updates nothing
        pci.barWrite(0, Gen2Register.GLINT_DYN_CTL.at(V), 4, (int) Gen2Registers.GLINT_DYN_CTL_INTENA | 2 << 3
                | 50 << 4);
        assertEquals(25, pci.barRead(0, Gen2Registers.GLINT_ITR + 2L * Gen2Registers.GLINT_ITR_INDEX_STRIDE + V * 4L,
                4));
        arm();
        assertEquals(25, pci.barRead(0, Gen2Registers.GLINT_ITR + 2L * Gen2Registers.GLINT_ITR_INDEX_STRIDE + V * 4L,
                4));
        // ice_set_wb_on_itr: ITR_NONE | INTENA_MSK | WB_ON_ITR leaves the armed vector armed
        pci.barWrite(0, Gen2Register.GLINT_DYN_CTL.at(V), 4, Gen2Registers.ITR_NONE << 3
                | (int) (Gen2Registers.GLINT_DYN_CTL_INTENA_MSK | Gen2Registers.GLINT_DYN_CTL_WB_ON_ITR));
        assertNotEquals(0, pci.barRead(0, Gen2Register.GLINT_DYN_CTL.at(V), 4) & Gen2Registers.GLINT_DYN_CTL_INTENA);
        // SWINT_TRIG: a software interrupt on the vector (ice_enable_interrupt leaving busy poll)
        pci.barWrite(0, Gen2Register.GLINT_DYN_CTL.at(V), 4, REARM | (int) Gen2Registers.GLINT_DYN_CTL_SWINT_TRIG);
        scheduler.runUntil(scheduler.now() + 5_000);
        assertEquals(1, msix.size());
        assertEquals(0, pci.barRead(0, Gen2Register.GLINT_DYN_CTL.at(V), 4) & Gen2Registers.GLINT_DYN_CTL_SWINT_TRIG,
                "SWINT_TRIG does not stick");
    }

    @Test
    void throttlingAllocatesNothingPerCause() {
        long[] fired = new long[1];
        var ic = new dev.irdmaemu.model.eq.InterruptController(scheduler, new Trace(scheduler), v -> fired[0]++, 100);
        ic.writeItr(0, V, 25);
        ic.writeRate(V, 2 | (int) Gen2Registers.GLINT_RATE_INTRL_ENA);
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        Runnable one = () -> {
            ic.vectorCause(V, 0);
            scheduler.runUntil(scheduler.now() + 1_000);
            if ((scheduler.now() / 1_000 & 15) == 0) {
                ic.writeDynCtl(V, REARM);
            }
        };
        for (int i = 0; i < 20_000; i++) {
            one.run();
        }
        long t = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(t);
        for (int i = 0; i < 10_000; i++) {
            one.run();
        }
        long used = threads.getThreadAllocatedBytes(t) - before;
        assertTrue(used < 10_000, "throttled causes allocated " + used + " bytes");
        assertTrue(ic.throttledCauses() > 20_000);
        assertTrue(fired[0] > 500 && fired[0] < 700, "one per 50 us over 30 ms: " + fired[0]);
    }
}
