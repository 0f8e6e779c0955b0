package dev.irdmaemu.model.ice;

import static dev.irdmaemu.fw.reg.IceRegister.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.ManageMacRead;
import dev.irdmaemu.fw.aq.AqLayout.ManageMacWrite;
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

    // ---- lock timeouts

    private IceLikeDriver.Reply requestNvm(int access) {
        AqDescriptor d = IceLikeDriver.command(AqOpcode.REQ_RES);
        d.paramU16(ReqRes.RES_ID, ReqRes.RES_ID_NVM).paramU16(ReqRes.ACCESS_TYPE, access);
        return drv.send(d);
    }

    @Test
    void aLockNotReleasedExpiresAfterItsTimeoutOnTheSimulatedClock() {
        IceLikeDriver.Reply first = requestNvm(ReqRes.ACCESS_READ);
        assertEquals(AqError.OK, first.retval());
        assertEquals(ReqRes.NVM_READ_DFLT_TIMEOUT_MS, first.desc().paramU32(ReqRes.TIMEOUT));
        scheduler.runFor(1_000_000_000L);
        IceLikeDriver.Reply busy = requestNvm(ReqRes.ACCESS_READ);
        assertEquals(AqError.EBUSY, busy.retval());
        assertEquals(ReqRes.NVM_READ_DFLT_TIMEOUT_MS - 1000, busy.desc().paramU32(ReqRes.TIMEOUT),
                "the holder's time left, which ice_acquire_res waits out");
        scheduler.runFor((ReqRes.NVM_READ_DFLT_TIMEOUT_MS - 1000) * 1_000_000L);
        assertFalse(pf.ice().locks().held(ReqRes.RES_ID_NVM));
        assertEquals(AqError.OK, requestNvm(ReqRes.ACCESS_WRITE).retval(), "granted after the timeout");
        assertEquals(1, pf.ice().locks().expiredGrants());
    }

    @Test
    void theGlobalConfigLockExpiresToo() {
        assertEquals(ReqRes.GLBL_SUCCESS, AdapterResetsTest.requestGlobalLock(drv));
        assertEquals(ReqRes.GLBL_IN_PROG, AdapterResetsTest.requestGlobalLock(drv));
        scheduler.runFor(ReqRes.GLBL_LOCK_DFLT_TIMEOUT_MS * 1_000_000L);
        assertEquals(ReqRes.GLBL_SUCCESS, AdapterResetsTest.requestGlobalLock(drv));
    }

    @Test
    void withoutAClockALockNeverExpires() {
        ResourceLocks locks = new ResourceLocks();
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong();
        AqBenchLocks bench = new AqBenchLocks(locks);
        assertEquals(AqError.OK, bench.request(ReqRes.RES_ID_CHNG_LOCK));
        assertEquals(AqError.EBUSY, bench.request(ReqRes.RES_ID_CHNG_LOCK));
        locks.clock(now::get);
        assertEquals(AqError.OK, bench.request(ReqRes.RES_ID_NVM));
        now.addAndGet(ReqRes.NVM_READ_DFLT_TIMEOUT_MS * 1_000_000L - 1);
        assertEquals(AqError.EBUSY, bench.request(ReqRes.RES_ID_NVM));
        now.incrementAndGet();
        assertEquals(AqError.OK, bench.request(ReqRes.RES_ID_NVM), "expires exactly at its timeout");
    }

    /** Sends req_res straight to the handlers, on a clock the test moves. */
    private static final class AqBenchLocks {
        private final java.util.Map<Integer, AqCommandHandler> handlers = new java.util.HashMap<>();
        private final AqDescriptor desc = IceLikeDriver.command(AqOpcode.REQ_RES);

        AqBenchLocks(ResourceLocks locks) {
            locks.registerWith(handlers::put);
        }

        int request(int id) {
            desc.clear().opcode(AqOpcode.REQ_RES).paramU16(ReqRes.RES_ID, id)
                    .paramU16(ReqRes.ACCESS_TYPE, ReqRes.ACCESS_READ);
            return handlers.get(AqOpcode.REQ_RES).handle(desc, null);
        }
    }

    // ---- manage_mac_write

    private IceLikeDriver.Reply writeMac(long mac, int flags) {
        AqDescriptor d = IceLikeDriver.command(AqOpcode.MANAGE_MAC_WRITE);
        d.paramU8(ManageMacWrite.FLAGS, flags);
        for (int i = 0; i < 6; i++) {
            d.paramU8(ManageMacWrite.MAC + i, (int) (mac >>> 8 * (5 - i)) & 0xff);
        }
        return drv.send(d);
    }

    /** manage_mac_read's LAN address, as ice_aq_manage_mac_read takes it from the response buffer. */
    private long readMac() {
        AqDescriptor d = IceLikeDriver.command(AqOpcode.MANAGE_MAC_READ);
        IceLikeDriver.Reply r = drv.send(d, null, 2 * ManageMacRead.RESP_SIZE);
        assertTrue(r.ok(), "retval " + r.retval());
        long mac = 0;
        for (int i = 0; i < 6; i++) {
            mac = mac << 8 | r.buf().readUnsignedByte(ManageMacRead.RESP_MAC + i);
        }
        return mac;
    }

    @Test
    void manageMacWriteSetsTheAddressManageMacReadReports() {
        assertEquals(MAC, readMac());
        // ice_set_mac_address: flags = ICE_AQC_MAN_MAC_UPDATE_LAA_WOL
        assertTrue(writeMac(LAA, ManageMacWrite.UPDATE_LAA_WOL).ok());
        assertEquals(LAA, readMac());
        assertEquals(LAA, pf.ice().port().lanMac());
        assertEquals(MAC, pf.ice().port().permanentMac(), "the permanent address is the NVM's");
        // a reloaded ice resets the PF first: the LAA was not written to survive it
        pci.barWrite(0, PFGEN_CTRL, 4, PFGEN_CTRL_PFSWR_M);
        reinitAdminQueue();
        assertEquals(MAC, readMac());
    }

    @Test
    void anLaaWrittenToSurviveAPfResetDoesAndACoreResetClearsIt() {
        // ice_setup_mc_magic_wake on unload with WoL on
        assertTrue(writeMac(LAA, ManageMacWrite.WR_MC_MAG_EN | ManageMacWrite.UPDATE_LAA_WOL
                | ManageMacWrite.WR_WOL_LAA_PFR_KEEP).ok());
        pci.barWrite(0, PFGEN_CTRL, 4, PFGEN_CTRL_PFSWR_M);
        reinitAdminQueue();
        assertEquals(LAA, readMac());
        pci.barWrite(0, GLGEN_RTRIG, 4, GLGEN_RTRIG_CORER_M);
        scheduler.runFor(AdapterResets.WINDOW_NANOS);
        reinitAdminQueue();
        assertEquals(MAC, readMac());
    }

    @Test
    void aResetInTheMiddleOfAMacChangeLeavesThePermanentAddress() {
        pci.barWrite(0, GLGEN_RTRIG, 4, GLGEN_RTRIG_CORER_M);
        assertTrue(writeMac(LAA, ManageMacWrite.UPDATE_LAA_WOL).ok(), "the queue still runs in the warning window");
        scheduler.runFor(AdapterResets.WINDOW_NANOS);
        reinitAdminQueue();
        assertEquals(MAC, readMac(), "the reset that followed cleared it");
    }

    @Test
    void badMacWritesAreAnsweredEinvalAndChangeNothing() {
        AqDescriptor withBuffer = IceLikeDriver.command(AqOpcode.MANAGE_MAC_WRITE);
        withBuffer.paramU8(ManageMacWrite.FLAGS, ManageMacWrite.UPDATE_LAA_WOL);
        for (int i = 0; i < 6; i++) {
            withBuffer.paramU8(ManageMacWrite.MAC + i, (int) (LAA >>> 8 * (5 - i)) & 0xff);
        }
        withBuffer.flags(withBuffer.flags() | AqDescriptor.RD);
        assertEquals(AqError.EINVAL, drv.send(withBuffer, new byte[8], 8).retval(), "a buffer");
        assertEquals(AqError.EINVAL, writeMac(LAA, ManageMacWrite.UPDATE_LAA_WOL | 1 << 2).retval(), "bit 2");
        assertEquals(AqError.EINVAL, writeMac(LAA, 2 << ManageMacWrite.WR_S).retval(), "update type 2");
        assertEquals(AqError.EINVAL, writeMac(0x01_00_5E_00_00_01L, ManageMacWrite.UPDATE_LAA).retval(),
                "multicast");
        assertEquals(AqError.EINVAL, writeMac(0, ManageMacWrite.UPDATE_LAA).retval(), "zero");
        assertEquals(MAC, readMac());
        assertEquals(0, pf.ice().port().macWrites());
    }
}
