package dev.irdmaemu.model.lan;

import static dev.irdmaemu.fw.lan.LanRegister.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.lan.RxPacketType;
import dev.irdmaemu.fw.pci.PciRegs;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.fw.reg.IceRegister;
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
 * The LAN rings on the assembled PF, driven only through BAR0: a frame the port does not give the RDMA block lands
 * in ice's Rx ring and its vector reaches the MSI-X transport through the shared GLINT_DYN_CTL; a PF reset takes
 * the queues down; a Tx MDD event raises PFINT_OICR MAL_DETECT.
 */
class E810LanPathTest {
    private static final int RX_VECTOR = 3;

    private final SimScheduler scheduler = new SimScheduler(7);
    private final List<Integer> msix = new ArrayList<>();
    private HostRam ram;
    private E810PhysicalFunction pf;
    private E810PciFunction pci;
    private IceLanDriver drv;

    @BeforeEach
    void setUp() {
        ram = new HostRam(new HostMemory(), 0x1_0000_0000L, 8L << 20);
        pf = new E810PhysicalFunction(scheduler, ram.memory(), new Trace(scheduler), new LatencyTable(), 0,
                0x00_1B_21_AB_CD_EFL, msix::add);
        pci = pf.pci();
        pci.configWrite(PciRegs.COMMAND, 2, PciRegs.COMMAND_MEMORY | PciRegs.COMMAND_MASTER);
        pci.configWrite(E810PciFunction.MSIX_CAP + PciRegs.MSIX_FLAGS, 2, 0x8000);
        drv = new IceLanDriver(ram, pci.bar0());
    }

    @AfterEach
    void tearDown() {
        ram.close();
    }

    @Test
    void aFrameFromTheWireReachesIcesRxRingAndItsVector() {
        assertTrue(drv.setupRx(0, 64, 2048, RX_VECTOR), "QENA_STAT through BAR0");
        drv.postRx(32);
        pci.barWrite(0, Gen2Register.GLINT_DYN_CTL.at(RX_VECTOR), 4, Gen2Registers.dynCtlEnable(0));
        byte[] frame = LanRig.icmpEcho(56);
        pf.rdma().port().receive(LanRig.store(frame), 0, frame.length);
        scheduler.runUntilIdle(1_000_000_000L);
        IceLanDriver.Received r = drv.receive();
        assertNotNull(r, "the frame was written back");
        assertArrayEquals(frame, r.bytes());
        assertEquals(RxPacketType.IPV4_ICMP, r.ptype());
        assertEquals(List.of(RX_VECTOR), msix);
    }

    @Test
    void aPfSoftwareResetTakesTheLanQueuesDown() {
        assertTrue(drv.setupRx(0, 64, 2048, RX_VECTOR));
        pci.barWrite(0, IceRegister.PFGEN_CTRL, 4, IceRegister.PFGEN_CTRL_PFSWR_M);
        assertEquals(0, pci.barRead(0, QRX_CTRL, 4) & QRX_CTRL_QENA_STAT_M);
        assertFalse(pf.lan().rx().enabled(0));
    }

    @Test
    void aTxDoorbellWithoutAddTxqsIsCountedAndAnRxTailBeyondTheRingRaisesMalDetect() {
        pci.barWrite(0, QTX_COMM_DBELL, 4, 1);
        assertEquals(1, pf.lan().counters().txBadDoorbell());
        assertTrue(drv.setupRx(0, 64, 2048, RX_VECTOR));
        pci.barWrite(0, IceRegister.PFINT_OICR_ENA, 4, IceRegister.PFINT_OICR_MAL_DETECT_M);
        pci.barWrite(0, QRX_TAIL, 4, 100);
        assertNotEquals(0, pci.barRead(0, GL_MDET_RX, 4) & GL_MDET_VALID_M);
        assertNotEquals(0, pci.barRead(0, IceRegister.PFINT_OICR, 4) & IceRegister.PFINT_OICR_MAL_DETECT_M);
    }
}
