package dev.irdmaemu.model.lan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.pci.PciRegs;
import dev.irdmaemu.fw.reg.IceRegister;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.E810Holdings;
import dev.irdmaemu.model.E810Holdings.Kind;
import dev.irdmaemu.model.E810Holdings.Side;
import dev.irdmaemu.model.E810PhysicalFunction;
import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.model.pci.E810PciFunction;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.ws.WorkSchedulerTree;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link E810Holdings}: what the assembled PF reports it holds for its drivers, each kind on its driver's side, and
 * that a PF software reset (what ice's unload ends with) and an FLR leave nothing of either.
 */
class E810HoldingsTest {
    private final SimScheduler scheduler = new SimScheduler(7);
    private HostRam ram;
    private E810PhysicalFunction pf;
    private E810PciFunction pci;
    private IceLanDriver drv;

    @BeforeEach
    void setUp() {
        ram = new HostRam(new HostMemory(), 0x1_0000_0000L, 8L << 20);
        pf = new E810PhysicalFunction(scheduler, ram.memory(), new Trace(scheduler), new LatencyTable(), 0,
                0x00_1B_21_AB_CD_EFL, v -> { });
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
    void aFunctionAtPowerOnHoldsNothing() {
        E810Holdings h = pf.holdings();
        assertEquals(0, h.total(Side.RDMA), h::toString);
        assertEquals(0, h.total(Side.LAN), h::toString);
        assertEquals(Map.of(), h.held(Side.RDMA));
        assertTrue(h.toString().startsWith("rdma[cqp=0 ceqs=0 aeq=0 cqs=0 qps=0"), h::toString);
    }

    @Test
    void eachObjectCountsOnItsDriversSideAndAPfResetLeavesNothing() {
        assertTrue(drv.setupRx(0, 64, 2048, 3));
        assertTrue(pf.rdma().apbvt().add(4791));
        pf.rdma().arp().set(0, 0x02_00_5E_00_00_02L, false);
        assertEquals(WorkSchedulerTree.Result.OK, pf.rdma().workScheduler().add(0, 0, false, true, 1, 0, 0, 1));
        E810Holdings h = pf.holdings();
        assertEquals(1, h.count(Kind.RX_QUEUES), h::toString);
        assertEquals(1, h.count(Kind.APBVT_PORTS), h::toString);
        assertEquals(1, h.count(Kind.WS_NODES), h::toString);
        assertEquals(1, h.count(Kind.ARP_ENTRIES), h::toString);
        assertEquals(Map.of(Kind.APBVT_PORTS, 1, Kind.ARP_ENTRIES, 1, Kind.WS_NODES, 1), h.held(Side.RDMA));
        assertEquals(Map.of(Kind.RX_QUEUES, 1), h.held(Side.LAN));
        E810Holdings before = pf.holdings();
        assertEquals(h, before, "two snapshots of an unchanged function are equal");

        // ice_deinit_dev: the PF reset that ends ice's unload
        pci.barWrite(0, IceRegister.PFGEN_CTRL, 4, IceRegister.PFGEN_CTRL_PFSWR_M);
        E810Holdings after = pf.holdings();
        assertEquals(0, after.total(Side.RDMA), after::toString);
        assertEquals(0, after.total(Side.LAN), after::toString);
        assertEquals("apbvt 1->0 arp 1->0 ws_nodes 1->0 rxqs 1->0", before.differences(after));
    }

    @Test
    void aFunctionLevelResetLeavesNothing() {
        assertTrue(drv.setupRx(0, 64, 2048, 3));
        assertTrue(pf.rdma().apbvt().add(4791));
        pci.functionLevelReset();
        E810Holdings h = pf.holdings();
        assertEquals(0, h.total(Side.RDMA) + h.total(Side.LAN), h::toString);
    }
}
