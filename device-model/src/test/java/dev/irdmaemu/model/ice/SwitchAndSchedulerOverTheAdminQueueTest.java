package dev.irdmaemu.model.ice;

import static dev.irdmaemu.fw.reg.IceRegister.PFGEN_CTRL;
import static dev.irdmaemu.fw.reg.IceRegister.PFGEN_CTRL_PFSWR_M;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.DdpPackageFile;
import dev.irdmaemu.fw.aq.PkgBuffer;
import dev.irdmaemu.fw.aq.PkgInfoList;
import dev.irdmaemu.fw.aq.SchedElement;
import dev.irdmaemu.fw.aq.SchedGroup;
import dev.irdmaemu.fw.aq.SwitchConfigElement;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The switch, scheduler and DDP handlers installed on branch aqcore's IceFirmware and driven through its ATQ
 * (descriptors and buffers in guest memory, doorbell on ATQT, completion on ATQH), as ice.ko drives them:
 * get_sw_cfg, get_dflt_topo, the real package's 128 download_pkg commands and get_pkg_info_list, then a PF reset.
 */
class SwitchAndSchedulerOverTheAdminQueueTest {
    private HostRam ram;
    private IceFirmware fw;
    private IceSwitchAndScheduler sw;
    private IceLikeDriver drv;

    @BeforeEach
    void setUp() {
        ram = new HostRam(new HostMemory(), 0x1_0000_0000L, 8L << 20);
        Trace trace = new Trace(new SimScheduler(1)).enable(new RecordingTraceSink(), TraceKind.AQ);
        List<Integer> raised = new ArrayList<>();
        fw = new IceFirmware(0, ram.memory(), raised::add, trace, 64, 0x00_1B_21_AB_CD_EFL);
        sw = new IceSwitchAndScheduler(0, 0);
        sw.install(fw::register);
        fw.onPfReset(sw::resetPf);
        drv = new IceLikeDriver(ram, fw);
        assertTrue(drv.initAdminQueue());
    }

    @AfterEach
    void tearDown() {
        ram.close();
    }

    @Test
    void probeCommandsAndTheRealPackageThroughTheRing() {
        IceLikeDriver.Reply r = drv.send(IceLikeDriver.command(AqOpcode.GET_SW_CFG), null, 2048);
        assertTrue(r.ok(), "get_sw_cfg retval " + r.retval());
        assertEquals(SwitchConfigElement.SIZE, r.bufLen());
        SwitchConfigElement e = new SwitchConfigElement().wrap(r.buf(), 0);
        assertEquals(SwitchConfigElement.TYPE_PHYS_PORT, e.type());

        AqDescriptor topo = IceLikeDriver.command(AqOpcode.GET_DFLT_TOPO);
        topo.paramU8(SchedGroup.PARAM_TOPO_PORT, 0);
        r = drv.send(topo, null, 4096);
        assertTrue(r.ok());
        assertEquals(1, r.desc().paramU8(SchedGroup.PARAM_TOPO_BRANCHES));
        SchedGroup g = new SchedGroup().wrap(r.buf(), 0, SchedGroup.TOPO_BRANCH_SIZE);
        assertEquals(TxScheduler.LAYERS, g.numElems());
        assertEquals(SchedElement.TYPE_ENTRY_POINT,
                new SchedElement().wrap(r.buf(), g.elementAt(TxScheduler.ENTRY_POINT_LAYER)).elemType());

        byte[] file = IcePackageFile.load();
        DdpPackageFile pkg = new DdpPackageFile().wrap(BytesStore.wrap(file), 0, file.length);
        assertEquals(DdpPackageFile.Status.ACCEPTED, pkg.validate());
        List<IcePackageFile.Hunk> plan = IcePackageFile.downloadPlan(pkg);
        for (IcePackageFile.Hunk h : plan) {
            AqDescriptor d = IceLikeDriver.command(AqOpcode.DOWNLOAD_PKG);
            d.flags(d.flags() | AqDescriptor.RD);
            d.paramU8(0, h.last ? DdpPackageLoader.LAST_BUF : 0);
            r = drv.send(d, Arrays.copyOfRange(file, (int) h.offset, (int) h.offset + PkgBuffer.SIZE), PkgBuffer.SIZE);
            assertEquals(AqError.OK, r.retval(), "download_pkg at file offset " + h.offset);
        }
        r = drv.send(IceLikeDriver.command(AqOpcode.GET_PKG_INFO_LIST), null, PkgInfoList.sizeFor(4));
        assertTrue(r.ok());
        PkgInfoList list = new PkgInfoList().wrap(r.buf(), 0, r.bufLen());
        IcePackageFile.Metadata meta = IcePackageFile.metadata(pkg);
        int active = -1;
        for (int i = 0; i < list.count(); i++) {
            if (list.active(i)) {
                active = i;
            }
        }
        assertTrue(active >= 0);
        byte[] name = new byte[PkgInfoList.NAME_SIZE];
        list.name(active, name);
        assertArrayEquals(meta.name, name);
        assertEquals(meta.version, list.version(active));

        // PFSWR: the firmware's PF reset hook puts the scheduler back to its default tree; the package stays.
        fw.write32(PFGEN_CTRL, fw.read32(PFGEN_CTRL) | PFGEN_CTRL_PFSWR_M);
        assertEquals(TxScheduler.LAYERS, sw.scheduler().size());
        assertTrue(sw.ddp().packageDownloaded());
    }
}
