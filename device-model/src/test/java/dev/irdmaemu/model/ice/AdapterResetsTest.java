package dev.irdmaemu.model.ice;

import static dev.irdmaemu.fw.reg.IceRegister.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.ReqRes;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.DdpPackageFile;
import dev.irdmaemu.fw.aq.PkgBuffer;
import dev.irdmaemu.fw.aq.VsiCommand;
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
import java.util.Arrays;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Core, global and EMP resets on the assembled PF, driven as ice drives them (ice_common.c ice_reset and
 * ice_check_reset, ice_main.c ice_misc_intr): GLGEN_RTRIG self-clears, GLGEN_RSTAT and GLNVM_ULD end ice's polls,
 * PFINT_OICR GRST reaches the misc vector, and the reset clears what it clears (queues, VSIs, the RDMA block, the
 * downloaded package) while the NVM and the port's link stay. A driver that triggers a reset in the middle of its
 * work gets a disabled admin queue, never an exception.
 */
class AdapterResetsTest {
    private static final long MAC = 0x00_1B_21_AB_CD_EFL;
    static final int OICR_VECTOR = 0;

    private final SimScheduler scheduler = new SimScheduler(11);
    private final List<Integer> msix = new ArrayList<>();
    private HostRam ram;
    private E810PhysicalFunction pf;
    private E810PciFunction pci;
    private IceLikeDriver drv;

    @BeforeEach
    void setUp() {
        ram = new HostRam(new HostMemory(), 0x1_0000_0000L, 8L << 20);
        pf = new E810PhysicalFunction(scheduler, ram.memory(), new Trace(scheduler), new LatencyTable(), 0, MAC,
                msix::add);
        pci = pf.pci();
        pci.configWrite(PciRegs.COMMAND, 2, PciRegs.COMMAND_MEMORY | PciRegs.COMMAND_MASTER);
        pci.configWrite(E810PciFunction.MSIX_CAP + PciRegs.MSIX_FLAGS, 2, 0x8000);
        drv = new IceLikeDriver(ram, pci.bar0());
        assertTrue(drv.initAdminQueue());
    }

    @AfterEach
    void tearDown() {
        ram.close();
    }

    private int reg(int offset) {
        return (int) pci.barRead(0, offset, 4);
    }

    private void write(long offset, long value) {
        pci.barWrite(0, offset, 4, value);
    }

    /** ice_ena_misc_vector: GRST among the OICR causes, the OICR cause on vector 0, the vector enabled. */
    private void enableMiscVector() {
        write(PFINT_OICR_ENA, PFINT_OICR_GRST_M | PFINT_OICR_MAL_DETECT_M);
        write(PFINT_OICR_CTL, OICR_VECTOR | CTL_CAUSE_ENA_M);
        write(Gen2Register.GLINT_DYN_CTL.at(OICR_VECTOR), Gen2Registers.dynCtlEnable(0));
    }

    /**
     * ice_check_reset: DEVSTATE polled every 100 ms for (GRSTDEL + 10) rounds, then GLNVM_ULD every 10 ms for
     * ICE_PF_RESET_WAIT_COUNT (300) rounds. Answers the rounds the first poll took, or -1 when a poll ran out.
     */
    private int checkReset() {
        int timeout = (reg(GLGEN_RSTCTL) & GLGEN_RSTCTL_GRSTDEL_M) + 10;
        int cnt;
        for (cnt = 0; cnt < timeout; cnt++) {
            scheduler.runFor(100_000_000L);
            if ((reg(GLGEN_RSTAT) & GLGEN_RSTAT_DEVSTATE_M) == 0) {
                break;
            }
        }
        if (cnt == timeout) {
            return -1;
        }
        int mask = IceFirmware.ULD_ALL_DONE;
        for (int i = 0; i < 300; i++) {
            if ((reg(GLNVM_ULD) & mask) == mask) {
                return cnt;
            }
            scheduler.runFor(10_000_000L);
        }
        return -1;
    }

    private int addVsi() {
        AqDescriptor d = IceLikeDriver.command(AqOpcode.ADD_VSI);
        d.flags(d.flags() | AqDescriptor.RD);
        IceLikeDriver.Reply r = drv.send(d, null, VsiCommand.PROPS_SIZE);
        assertEquals(AqError.OK, r.retval());
        return r.desc().paramU16(VsiCommand.RESP_VSI_NUM);
    }

    private void downloadPackage() {
        byte[] file = IcePackageFile.load();
        DdpPackageFile pkg = new DdpPackageFile().wrap(BytesStore.wrap(file), 0, file.length);
        assertEquals(ReqRes.GLBL_SUCCESS, requestGlobalLock(drv));
        for (IcePackageFile.Hunk h : IcePackageFile.downloadPlan(pkg)) {
            AqDescriptor d = IceLikeDriver.command(AqOpcode.DOWNLOAD_PKG);
            d.flags(d.flags() | AqDescriptor.RD);
            d.paramU8(0, h.last ? DdpPackageLoader.LAST_BUF : 0);
            IceLikeDriver.Reply r = drv.send(d, Arrays.copyOfRange(file, (int) h.offset,
                    (int) h.offset + PkgBuffer.SIZE), PkgBuffer.SIZE);
            assertEquals(AqError.OK, r.retval());
        }
        assertTrue(pf.switchAndScheduler().ddp().packageDownloaded());
    }

    static int requestGlobalLock(IceLikeDriver d) {
        AqDescriptor c = IceLikeDriver.command(AqOpcode.REQ_RES);
        c.paramU16(ReqRes.RES_ID, ReqRes.RES_ID_GLBL_LOCK).paramU16(ReqRes.ACCESS_TYPE, ReqRes.ACCESS_WRITE)
                .paramU32(ReqRes.TIMEOUT, 3000);
        IceLikeDriver.Reply r = d.send(c);
        assertTrue(r.ok(), "req_res retval " + r.retval());
        return r.desc().paramU16(ReqRes.STATUS);
    }

    @Test
    void aCoreResetWarnsClearsItsTriggerAndEndsIcesPolls() {
        enableMiscVector();
        assertEquals(0, reg(GLGEN_RSTAT), "active, RESET_TYPE POR");
        // ice_reset: val |= rd32(GLGEN_RTRIG); wr32(GLGEN_RTRIG, val)
        write(GLGEN_RTRIG, reg(GLGEN_RTRIG) | GLGEN_RTRIG_CORER_M);
        assertEquals(GLGEN_RTRIG_CORER_M, reg(GLGEN_RTRIG), "the trigger reads set while the reset is under way");
        assertNotEquals(0, reg(GLGEN_RSTAT) & GLGEN_RSTAT_DEVSTATE_M);
        assertNotEquals(IceFirmware.ULD_ALL_DONE, reg(GLNVM_ULD) & IceFirmware.ULD_ALL_DONE);
        assertEquals(0, checkReset(), "DEVSTATE is active again at ice's first poll");
        assertEquals(0, reg(GLGEN_RTRIG), "self-cleared");
        assertEquals(AdapterResets.Kind.CORER.resetType(),
                (reg(GLGEN_RSTAT) & GLGEN_RSTAT_RESET_TYPE_M) >>> GLGEN_RSTAT_RESET_TYPE_S);
        assertEquals(List.of(OICR_VECTOR), msix, "the warning reached the misc vector");
        assertEquals(PFINT_OICR_GRST_M, reg(PFINT_OICR) & PFINT_OICR_GRST_M, "GRST waits for ice_misc_intr");
        assertEquals(0, reg(PFINT_OICR), "read to clear");
        assertEquals(1, pf.ice().adapterResets().count());
    }

    @Test
    void aGlobalResetAndAnEmpResetReportTheirKinds() {
        write(GLGEN_RTRIG, GLGEN_RTRIG_GLOBR_M);
        assertEquals(0, checkReset());
        assertEquals(AdapterResets.Kind.GLOBR.resetType() << GLGEN_RSTAT_RESET_TYPE_S, reg(GLGEN_RSTAT));
        pf.ice().adapterResets().trigger(AdapterResets.Kind.EMPR);
        assertEquals(0, checkReset());
        assertEquals(AdapterResets.Kind.EMPR.resetType() << GLGEN_RSTAT_RESET_TYPE_S, reg(GLGEN_RSTAT));
        assertEquals(2, pf.ice().adapterResets().count());
    }

    @Test
    void aTriggerDuringTheWindowJoinsTheResetUnderWay() {
        write(GLGEN_RTRIG, GLGEN_RTRIG_CORER_M);
        write(GLGEN_RTRIG, GLGEN_RTRIG_GLOBR_M);
        assertEquals(0, checkReset());
        assertEquals(1, pf.ice().adapterResets().count());
        assertEquals(AdapterResets.Kind.GLOBR, pf.ice().adapterResets().last(), "the larger kind wins");
        assertEquals(0, reg(GLGEN_RTRIG));
    }

    @Test
    void aCoreResetClearsThePfsQueuesVsisRdmaBlockAndPackage() {
        downloadPackage();
        addVsi();
        assertEquals(1, pf.switchAndScheduler().vsis().allocated());
        write(PFINT_FW_CTL, 3 | CTL_CAUSE_ENA_M);
        long rdmaResets = pf.rdma().resets();
        int nvmWord = pf.ice().nvm().srWord(0);

        write(GLGEN_RTRIG, GLGEN_RTRIG_CORER_M);
        assertEquals(0, checkReset());

        for (int r : new int[] {PF_FW_ATQLEN, PF_FW_ARQLEN, PF_FW_ATQBAL, PF_FW_ARQBAL, PFINT_FW_CTL, PFINT_OICR_ENA,
                PFINT_OICR_CTL}) {
            assertEquals(0, reg(r), "0x" + Integer.toHexString(r));
        }
        assertFalse(drv.sqAlive(), "ice_check_sq_alive fails until ice_init_all_ctrlq");
        assertEquals(0, pf.switchAndScheduler().vsis().allocated());
        assertEquals(rdmaResets + 1, pf.rdma().resets());
        assertFalse(pf.switchAndScheduler().ddp().packageDownloaded(), "ice_rebuild loads the package again");
        assertEquals(nvmWord, pf.ice().nvm().srWord(0), "the NVM stays");
        assertTrue(pf.ice().linkUp(), "the cable is still in");
        // ice_rebuild: the queues come up again and the global config lock is free for the new download
        drv = new IceLikeDriver(ram, pci.bar0());
        assertTrue(drv.initAdminQueue());
        assertEquals(ReqRes.GLBL_SUCCESS, requestGlobalLock(drv));
    }

    @Test
    void aResetInTheMiddleOfTheDriversWorkLeavesTheQueueDisabled() {
        assertEquals(IceLikeDriver.OK, drv.acquireNvm());
        write(GLGEN_RTRIG, GLGEN_RTRIG_CORER_M);
        // the driver did not stop its admin queue (no ice_shutdown_all_ctrlq): a command posted in the window is
        // still answered; once the reset is done, the queue is gone and the NVM lock with it
        assertTrue(drv.send(IceLikeDriver.command(AqOpcode.GET_VER)).ok());
        scheduler.runFor(AdapterResets.WINDOW_NANOS);
        assertEquals(IceLikeDriver.TIMEOUT, drv.send(IceLikeDriver.command(AqOpcode.GET_VER)).status(),
                "the disabled queue executes nothing: ice_sq_send_cmd times out");
        assertEquals(0, reg(PF_FW_ATQH));
        assertFalse(pf.ice().locks().held(ReqRes.RES_ID_NVM));
    }

    @Test
    void thePfsOfOneAdapterResetTogether() {
        List<Integer> msix1 = new ArrayList<>();
        E810PhysicalFunction pf1 = new E810PhysicalFunction(scheduler, ram.memory(), new Trace(scheduler),
                new LatencyTable(), 1, MAC + 1, msix1::add);
        pf1.sameAdapterAs(pf);
        long before = pf1.rdma().resets();
        write(GLGEN_RTRIG, GLGEN_RTRIG_CORER_M);
        assertEquals(0, checkReset());
        assertEquals(before + 1, pf1.rdma().resets());
        assertEquals(AdapterResets.Kind.CORER.resetType() << GLGEN_RSTAT_RESET_TYPE_S,
                pf1.pci().barRead(0, GLGEN_RSTAT, 4));
    }

    @Test
    void withoutAScheduleTheResetIsDoneAsItIsTriggered() {
        IceFirmware fw = new IceFirmware(0, ram.memory(), v -> { }, new Trace(scheduler), 64, MAC);
        fw.write32(GLGEN_RTRIG, GLGEN_RTRIG_CORER_M);
        assertEquals(0, fw.read32(GLGEN_RTRIG));
        assertEquals(AdapterResets.Kind.CORER.resetType() << GLGEN_RSTAT_RESET_TYPE_S, fw.read32(GLGEN_RSTAT));
        assertEquals(IceFirmware.ULD_ALL_DONE, fw.read32(GLNVM_ULD));
        fw.write32(GLGEN_RTRIG, 1 << 5);
        assertEquals(1, fw.adapterResets().count(), "bits other than CORER and GLOBR start nothing");
    }
}
