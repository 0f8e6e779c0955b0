package dev.irdmaemu.model.ice;

import static dev.irdmaemu.fw.reg.IceRegister.CTL_CAUSE_ENA_M;
import static dev.irdmaemu.fw.reg.IceRegister.PFINT_OICR;
import static dev.irdmaemu.fw.reg.IceRegister.PFINT_OICR_CTL;
import static dev.irdmaemu.fw.reg.IceRegister.PFINT_OICR_ENA;
import static dev.irdmaemu.fw.reg.IceRegister.PFINT_OICR_SWINT_M;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.pci.PciRegs;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.E810PhysicalFunction;
import dev.irdmaemu.model.pci.E810PciFunction;
import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.model.trace.Trace;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The interrupt test of {@code ethtool -t DEV offline} (ice_ethtool.c ice_intr_test): ice writes GLINT_DYN_CTL of
 * its OICR vector with SWINT_TRIG, SW_ITR_INDX 3 and INTENA_MSK, and passes when ice_misc_intr counted a PFINT_OICR
 * SWINT cause within 1-2 ms. A software trigger on another vector sets no OICR cause; after a function reset the
 * trigger still reaches the ice block (the RDMA block's interrupt controller is rebuilt by it).
 */
class SelfTestInterruptTest {
    private static final int OICR_VECTOR = 0;
    private static final int SELF_TEST_WRITE = (int) (Gen2Registers.GLINT_DYN_CTL_SW_ITR_INDX
            | Gen2Registers.GLINT_DYN_CTL_INTENA_MSK | Gen2Registers.GLINT_DYN_CTL_SWINT_TRIG);

    private final SimScheduler scheduler = new SimScheduler(7);
    private final List<Integer> msix = new ArrayList<>();
    private HostRam ram;
    private E810PciFunction pci;

    @BeforeEach
    void setUp() {
        ram = new HostRam(new HostMemory(), 0x1_0000_0000L, 1L << 20);
        E810PhysicalFunction pf = new E810PhysicalFunction(scheduler, ram.memory(), new Trace(scheduler),
                new LatencyTable(), 0, 0x00_1B_21_AB_CD_EFL, msix::add);
        pci = pf.pci();
        pci.configWrite(PciRegs.COMMAND, 2, PciRegs.COMMAND_MEMORY | PciRegs.COMMAND_MASTER);
        pci.configWrite(E810PciFunction.MSIX_CAP + PciRegs.MSIX_FLAGS, 2, 0x8000);
    }

    @AfterEach
    void tearDown() {
        ram.close();
    }

    private void armOicrVector() {
        pci.barWrite(0, PFINT_OICR_ENA, 4, PFINT_OICR_SWINT_M);
        pci.barWrite(0, PFINT_OICR_CTL, 4, CTL_CAUSE_ENA_M | OICR_VECTOR);
        pci.barWrite(0, Gen2Register.GLINT_DYN_CTL.at(OICR_VECTOR), 4, Gen2Registers.dynCtlEnable(0));
    }

    @Test
    void aSoftwareTriggerOnTheOicrVectorFiresItWithTheSwintCause() {
        armOicrVector();
        pci.barWrite(0, Gen2Register.GLINT_DYN_CTL.at(OICR_VECTOR), 4, SELF_TEST_WRITE);
        scheduler.runUntilIdle(2_000_000L);
        assertEquals(List.of(OICR_VECTOR), msix, "the misc vector fired within 2 ms");
        assertTrue((pci.barRead(0, PFINT_OICR, 4) & PFINT_OICR_SWINT_M) != 0, "ice_misc_intr sees SWINT");
        assertEquals(0, pci.barRead(0, PFINT_OICR, 4), "PFINT_OICR clears on read");
    }

    @Test
    void aSoftwareTriggerOnAnotherVectorSetsNoOicrCause() {
        armOicrVector();
        pci.barWrite(0, Gen2Register.GLINT_DYN_CTL.at(3), 4, SELF_TEST_WRITE);
        scheduler.runUntilIdle(2_000_000L);
        assertEquals(0, pci.barRead(0, PFINT_OICR, 4));
    }

    @Test
    void theTriggerStillReachesTheIceBlockAfterAFunctionLevelReset() {
        pci.functionLevelReset();
        pci.configWrite(PciRegs.COMMAND, 2, PciRegs.COMMAND_MEMORY | PciRegs.COMMAND_MASTER);
        pci.configWrite(E810PciFunction.MSIX_CAP + PciRegs.MSIX_FLAGS, 2, 0x8000);
        armOicrVector();
        pci.barWrite(0, Gen2Register.GLINT_DYN_CTL.at(OICR_VECTOR), 4, SELF_TEST_WRITE);
        scheduler.runUntilIdle(2_000_000L);
        assertTrue((pci.barRead(0, PFINT_OICR, 4) & PFINT_OICR_SWINT_M) != 0);
    }
}
