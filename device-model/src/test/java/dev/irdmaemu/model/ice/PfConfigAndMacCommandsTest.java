package dev.irdmaemu.model.ice;

import static dev.irdmaemu.fw.reg.IceRegister.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.ReqRes;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.VsiCommand;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.pci.PciRegs;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.E810PhysicalFunction;
import dev.irdmaemu.model.pci.E810PciFunction;
import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.model.trace.Trace;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The firmware commands and resets of issue 29 on the assembled PF, each with what a hostile driver gets: clear_pf_cfg
 * (ice_common.c ice_clear_pf_cfg), what an FLR keeps (ice_ddp.c: the package and the global config lock are the
 * adapter's), resource lock timeouts on the simulated clock (ice_aq_req_res), and manage_mac_write (ice_main.c
 * ice_set_mac_address).
 */
class PfConfigAndMacCommandsTest {
    private static final long MAC = 0x00_1B_21_AB_CD_EFL;
    private static final long LAA = 0x02_00_00_00_00_2AL;

    private final SimScheduler scheduler = new SimScheduler(5);
    private HostRam ram;
    private E810PhysicalFunction pf;
    private E810PciFunction pci;
    private IceLikeDriver drv;

    @BeforeEach
    void setUp() {
        ram = new HostRam(new HostMemory(), 0x1_0000_0000L, 8L << 20);
        pf = new E810PhysicalFunction(scheduler, ram.memory(), new Trace(scheduler), new LatencyTable(), 0, MAC,
                v -> { });
        pci = pf.pci();
        pci.configWrite(PciRegs.COMMAND, 2, PciRegs.COMMAND_MEMORY | PciRegs.COMMAND_MASTER);
        drv = new IceLikeDriver(ram, pci.bar0());
        assertTrue(drv.initAdminQueue());
    }

    @AfterEach
    void tearDown() {
        ram.close();
    }

    private void reinitAdminQueue() {
        pci.configWrite(PciRegs.COMMAND, 2, PciRegs.COMMAND_MEMORY | PciRegs.COMMAND_MASTER);
        drv = new IceLikeDriver(ram, pci.bar0());
        assertTrue(drv.initAdminQueue());
    }

    private int addVsi() {
        AqDescriptor d = IceLikeDriver.command(AqOpcode.ADD_VSI);
        d.flags(d.flags() | AqDescriptor.RD);
        IceLikeDriver.Reply r = drv.send(d, null, VsiCommand.PROPS_SIZE);
        assertEquals(AqError.OK, r.retval());
        return r.desc().paramU16(VsiCommand.RESP_VSI_NUM);
    }

    private String pfConfig() {
        IceSwitchAndScheduler s = pf.switchAndScheduler();
        return "vsis=" + s.vsis().allocated() + " rules=" + s.switchRules().lookupRuleCount() + " txqs="
                + s.txQueues().queueCount() + " nodes=" + s.scheduler().nodes().size();
    }

    // ---- clear_pf_cfg

    @Test
    void clearPfCfgClearsThePfsSwitchAndSchedulerAndKeepsThePackage() {
        String clean = pfConfig();
        addVsi();
        addVsi();
        assertEquals(2, pf.switchAndScheduler().vsis().allocated());
        IceLikeDriver.Reply r = drv.send(IceLikeDriver.command(AqOpcode.CLEAR_PF_CFG));
        assertTrue(r.ok(), "retval " + r.retval());
        assertEquals(clean, pfConfig());
        assertTrue(drv.sqAlive(), "the admin queue itself stays up");
        assertTrue(drv.send(IceLikeDriver.command(AqOpcode.GET_VER)).ok());
        // the VSI numbers are free again: the next add gets the first one
        assertEquals(addVsi(), addVsi() - 1);
    }

    @Test
    void clearPfCfgWithABufferIsRefusedAndClearsNothing() {
        addVsi();
        String before = pfConfig();
        AqDescriptor d = IceLikeDriver.command(AqOpcode.CLEAR_PF_CFG);
        d.flags(d.flags() | AqDescriptor.RD);
        IceLikeDriver.Reply r = drv.send(d, new byte[16], 16);
        assertEquals(AqError.EINVAL, r.retval());
        assertEquals(before, pfConfig());
    }

    @Test
    void clearPfCfgAfterAPfResetInTheMiddleFindsNothingLeft() {
        addVsi();
        pci.barWrite(0, PFGEN_CTRL, 4, PFGEN_CTRL_PFSWR_M);
        reinitAdminQueue();
        assertTrue(drv.send(IceLikeDriver.command(AqOpcode.CLEAR_PF_CFG)).ok());
        assertEquals(0, pf.switchAndScheduler().vsis().allocated());
    }

    // ---- FLR

    @Test
    void anFlrForgetsThePfsStateButKeepsTheAdaptersGlobalLockState() {
        addVsi();
        pf.ice().locks().globalConfigDone(); // a package download finished earlier
        pci.functionLevelReset();
        reinitAdminQueue();
        assertEquals(0, pf.switchAndScheduler().vsis().allocated(), "per-PF state is forgotten");
        assertEquals(ReqRes.GLBL_DONE, AdapterResetsTest.requestGlobalLock(drv), "ICE_DDP_PKG_ALREADY_LOADED");
        assertTrue(pf.ice().locks().globalConfigIsDone());
    }
}
