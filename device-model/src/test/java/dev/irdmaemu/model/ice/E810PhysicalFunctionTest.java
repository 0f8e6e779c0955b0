package dev.irdmaemu.model.ice;

import static dev.irdmaemu.fw.reg.IceRegister.CTL_CAUSE_ENA_M;
import static dev.irdmaemu.fw.reg.IceRegister.PFGEN_CTRL;
import static dev.irdmaemu.fw.reg.IceRegister.PFGEN_CTRL_PFSWR_M;
import static dev.irdmaemu.fw.reg.IceRegister.PFINT_FW_CTL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.DdpPackageFile;
import dev.irdmaemu.fw.aq.PkgBuffer;
import dev.irdmaemu.fw.aq.AqLayout;
import dev.irdmaemu.fw.aq.AqLayout.ReqRes;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.pci.PciRegs;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.E810PhysicalFunction;
import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.model.pci.E810PciFunction;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.Trace;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The assembled PF ({@link E810PhysicalFunction}) driven only through BAR0 and configuration space, as ice.ko
 * drives it: the admin queue answers through the PCI function's dispatcher, an admin queue event reaches the MSI-X
 * transport through the one GLINT_DYN_CTL array, PFSWR resets the RDMA block too, and a finished package download
 * makes the next probe's global config lock request answer "done".
 */
class E810PhysicalFunctionTest {
    private static final long MAC = 0x00_1B_21_AB_CD_EFL;
    private static final int FW_VECTOR = 5;

    private final SimScheduler scheduler = new SimScheduler(7);
    private final Trace trace = new Trace(scheduler).enableAll(new RecordingTraceSink());
    private final List<Integer> msix = new ArrayList<>();
    private HostRam ram;
    private E810PhysicalFunction pf;
    private E810PciFunction pci;
    private IceLikeDriver drv;

    @BeforeEach
    void setUp() {
        ram = new HostRam(new HostMemory(), 0x1_0000_0000L, 8L << 20);
        pf = new E810PhysicalFunction(scheduler, ram.memory(), trace, new LatencyTable(), 0, MAC, msix::add);
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

    @Test
    void theAdminQueueAnswersThroughBar0() {
        IceLikeDriver.Reply r = drv.send(IceLikeDriver.command(AqOpcode.GET_VER));
        assertTrue(r.ok(), "get_ver retval " + r.retval());
        assertEquals(1, r.desc().paramU8(AqLayout.GetVer.API_MAJOR));
    }

    @Test
    void anAdminQueueEventRaisesTheFirmwareVectorThroughTheSharedDynCtl() {
        pci.barWrite(0, PFINT_FW_CTL, 4, CTL_CAUSE_ENA_M | FW_VECTOR);
        pf.ice().postEvent(AqOpcode.GET_LINK_STATUS, null, null, 0, 0);
        scheduler.runUntilIdle(1_000_000_000L);
        assertEquals(List.of(), msix, "GLINT_DYN_CTL(5) is not enabled yet: the cause waits");

        pci.barWrite(0, Gen2Register.GLINT_DYN_CTL.at(FW_VECTOR), 4, Gen2Registers.dynCtlEnable(0));
        scheduler.runUntilIdle(1_000_000_000L);
        assertEquals(List.of(FW_VECTOR), msix);
    }

    @Test
    void pfSoftwareResetAlsoResetsTheRdmaBlock() {
        long before = pf.rdma().resets();
        pci.barWrite(0, PFGEN_CTRL, 4, PFGEN_CTRL_PFSWR_M);
        assertEquals(0, pci.barRead(0, PFGEN_CTRL, 4) & PFGEN_CTRL_PFSWR_M, "PFSWR clears itself");
        assertEquals(before + 1, pf.rdma().resets());
        assertEquals(0x80, pci.barRead(0, Gen2Register.GLPE_CPUSTATUS0.offset(), 4));
    }

    /**
     * The injected CQP fault is armed on the RDMA block's engine of the moment; the PF software reset that irdma's
     * timeout leads to (through ice) makes the block anew, disarmed, with nothing withheld yet.
     */
    @Test
    void aWithheldCompletionArmedOnThePfIsGoneAfterThePfSoftwareReset() {
        pf.withholdNextCqpCompletion(CqpOpcode.MANAGE_APBVT);
        assertTrue(pf.rdma().cqp().withholdArmed());
        pci.barWrite(0, PFGEN_CTRL, 4, PFGEN_CTRL_PFSWR_M);
        assertFalse(pf.rdma().cqp().withholdArmed(), "disarmed by the PF reset");
        assertEquals(0, pf.rdma().cqp().withheldCompletions());
    }

    @Test
    void aFunctionLevelResetResetsTheRdmaBlockOnce() {
        long before = pf.rdma().resets();
        pci.functionLevelReset();
        assertEquals(before + 1, pf.rdma().resets());
        // the firmware's PF reset still reaches the RDMA block afterwards
        pci.configWrite(PciRegs.COMMAND, 2, PciRegs.COMMAND_MEMORY | PciRegs.COMMAND_MASTER);
        pci.barWrite(0, PFGEN_CTRL, 4, PFGEN_CTRL_PFSWR_M);
        assertEquals(before + 2, pf.rdma().resets());
    }

    @Test
    void aFinishedDownloadMakesTheGlobalConfigLockDone() {
        assertEquals(ReqRes.GLBL_SUCCESS, requestGlobalLock());
        byte[] file = IcePackageFile.load();
        DdpPackageFile pkg = new DdpPackageFile().wrap(BytesStore.wrap(file), 0, file.length);
        for (IcePackageFile.Hunk h : IcePackageFile.downloadPlan(pkg)) {
            AqDescriptor d = IceLikeDriver.command(AqOpcode.DOWNLOAD_PKG);
            d.flags(d.flags() | AqDescriptor.RD);
            d.paramU8(0, h.last ? DdpPackageLoader.LAST_BUF : 0);
            IceLikeDriver.Reply r = drv.send(d, Arrays.copyOfRange(file, (int) h.offset,
                    (int) h.offset + PkgBuffer.SIZE), PkgBuffer.SIZE);
            assertEquals(AqError.OK, r.retval());
        }
        AqDescriptor release = IceLikeDriver.command(AqOpcode.RELEASE_RES);
        release.paramU16(ReqRes.RES_ID, ReqRes.RES_ID_GLBL_LOCK);
        drv.send(release);
        // ice's next probe (a reload, after its PF reset) finds the package loaded
        pci.barWrite(0, PFGEN_CTRL, 4, PFGEN_CTRL_PFSWR_M);
        drv = new IceLikeDriver(ram, pci.bar0());
        assertTrue(drv.initAdminQueue());
        assertEquals(ReqRes.GLBL_DONE, requestGlobalLock());
        // a function-level reset keeps what is adapter-wide: the package stays loaded (issue 29)
        pci.functionLevelReset();
        pci.configWrite(PciRegs.COMMAND, 2, PciRegs.COMMAND_MEMORY | PciRegs.COMMAND_MASTER);
        drv = new IceLikeDriver(ram, pci.bar0());
        assertTrue(drv.initAdminQueue());
        assertEquals(ReqRes.GLBL_DONE, requestGlobalLock());
        assertTrue(pf.switchAndScheduler().ddp().packageDownloaded());
        // the transport's device reset (a machine reset) returns the firmware to power-on: the lock can be taken
        pci.reset();
        pci.configWrite(PciRegs.COMMAND, 2, PciRegs.COMMAND_MEMORY | PciRegs.COMMAND_MASTER);
        drv = new IceLikeDriver(ram, pci.bar0());
        assertTrue(drv.initAdminQueue());
        assertEquals(ReqRes.GLBL_SUCCESS, requestGlobalLock());
    }

    private int requestGlobalLock() {
        AqDescriptor d = IceLikeDriver.command(AqOpcode.REQ_RES);
        d.paramU16(ReqRes.RES_ID, ReqRes.RES_ID_GLBL_LOCK).paramU16(ReqRes.ACCESS_TYPE, ReqRes.ACCESS_WRITE)
                .paramU32(ReqRes.TIMEOUT, 3000);
        IceLikeDriver.Reply r = drv.send(d);
        assertTrue(r.ok(), "req_res retval " + r.retval());
        return r.desc().paramU16(ReqRes.STATUS);
    }
}
