package dev.irdmaemu.model.ice;

import static dev.irdmaemu.fw.reg.IceRegister.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.AllocFreeRes;
import dev.irdmaemu.fw.aq.AqLayout.DriverVer;
import dev.irdmaemu.fw.aq.AqLayout.GetLinkStatus;
import dev.irdmaemu.fw.aq.AqLayout.GetPhyCaps;
import dev.irdmaemu.fw.aq.AqLayout.GetVer;
import dev.irdmaemu.fw.aq.AqLayout.ListCaps;
import dev.irdmaemu.fw.aq.AqLayout.ManageMacRead;
import dev.irdmaemu.fw.aq.AqLayout.SetMacCfg;
import dev.irdmaemu.fw.aq.AqLayout.ShadowRam;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceKind;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Probe step A of ice.ko against the model (e810-probe-facts §1.1 - §1.3 A), each reply checked the way ice parses
 * it.
 */
class IceProbeStepATest {
    static final long MAC = 0x00_1B_21_AB_CD_EFL;
    static final int MSIX = 64;

    HostRam ram;
    IceFirmware fw;
    IceLikeDriver drv;
    RecordingTraceSink sink;
    final List<Integer> raised = new java.util.ArrayList<>();
    int pfResetHooks;

    @BeforeEach
    void setUp() {
        ram = new HostRam(new HostMemory(), 0x1_0000_0000L, 8L << 20);
        sink = new RecordingTraceSink();
        Trace trace = new Trace(new SimScheduler(1)).enable(sink, TraceKind.AQ, TraceKind.INTERRUPT);
        fw = new IceFirmware(0, ram.memory(), raised::add, trace, MSIX, MAC);
        fw.onPfReset(() -> pfResetHooks++);
        drv = new IceLikeDriver(ram, fw);
    }

    @AfterEach
    void tearDown() {
        ram.close();
    }

    /** §1.1: the registers before the admin queue, in ice_probe / ice_init_hw order, and the PF reset. */
    void preAqRegisters() {
        assertEquals(0, fw.read32(GL_MNG_FWSM) & 0x2, "not in recovery mode");
        assertEquals(0, fw.read32(GL_MNG_FWSM) & GL_MNG_FWSM_FW_LOADING_M);
        assertEquals(0, fw.read32(PF_FUNC_RID) & PF_FUNC_RID_FUNC_NUM_M);
        assertEquals(0, fw.read32(GLGEN_RSTAT) & GLGEN_RSTAT_DEVSTATE_M);
        assertEquals(0x33B, fw.read32(GLNVM_ULD) & 0x33B);
        assertTrue((fw.read32(GLNVM_ULD) & GLNVM_ULD_PE_DONE_M) != 0);
        fw.write32(PFGEN_CTRL, fw.read32(PFGEN_CTRL) | PFGEN_CTRL_PFSWR_M);
        assertEquals(0, fw.read32(PFGEN_CTRL) & PFGEN_CTRL_PFSWR_M, "PFSWR self-clears");
        assertEquals(1, pfResetHooks);
        fw.read32(GL_PWR_MODE_CTL);
    }

    @Test
    void probeStepA() {
        preAqRegisters();
        assertTrue(drv.initAdminQueue(), "BAL reads back");
        assertTrue(drv.sqAlive());
        assertEquals(IceLikeDriver.AQ_LEN - 1, fw.read32(PF_FW_ARQT));

        // 1: get_ver, checked by ice_aq_ver_check (api major 1, minor within 2 of 5)
        IceLikeDriver.Reply ver = drv.send(IceLikeDriver.command(AqOpcode.GET_VER));
        assertTrue(ver.ok());
        assertEquals(1, ver.desc().paramU8(GetVer.API_MAJOR));
        assertEquals(5, ver.desc().paramU8(GetVer.API_MINOR));
        assertTrue(ver.desc().paramU8(GetVer.FW_MAJOR) > 0);
        assertEquals(AqDescriptor.DD | AqDescriptor.CMP, ver.desc().flags() & 0x7, "DD|CMP, no ERR");

        // 3, 4: clear_pf_cfg (FATAL), clear_pxe_mode
        assertTrue(drv.send(IceLikeDriver.command(AqOpcode.CLEAR_PF_CFG)).ok());
        IceLikeDriver.Reply pxe = drv.send(IceLikeDriver.command(AqOpcode.CLEAR_PXE_MODE).paramU8(0, 0x2));
        assertTrue(pxe.ok());

        // 5: ice_init_nvm
        int srWords = (1 << ((fw.read32(GLNVM_GENS) & GLNVM_GENS_SR_SIZE_M) >>> GLNVM_GENS_SR_SIZE_S)) * 512;
        assertTrue(srWords * 2 >= 64 * 1024, "SR >= 64 KiB");
        assertTrue((fw.read32(GLNVM_FLA) & GLNVM_FLA_LOCKED_M) != 0, "not blank NVM mode");
        assertEquals(NvmImage.FLASH_SIZE, drv.discoverFlashSize(), "bisection finds the flash size");
        int ctrl = drv.readSrWord(ShadowRam.CTRL_WORD);
        assertEquals(ShadowRam.CTRL_WORD_VALID, (ctrl >>> 6) & 3, "control word valid");
        boolean nvmBank2 = (ctrl & ShadowRam.CTRL_WORD_NVM_BANK) != 0;
        long nvmPtr = pointer(drv.readSrWord(ShadowRam.FIRST_NVM_BANK_PTR));
        long nvmSize = drv.readSrWord(ShadowRam.NVM_BANK_SIZE) * 4096L;
        long oromPtr = pointer(drv.readSrWord(ShadowRam.FIRST_OROM_BANK_PTR));
        long oromSize = drv.readSrWord(ShadowRam.OROM_BANK_SIZE) * 4096L;
        long netlistPtr = pointer(drv.readSrWord(ShadowRam.NETLIST_BANK_PTR));
        boolean netlistBank2 = (ctrl & ShadowRam.CTRL_WORD_NETLIST_BANK) != 0;
        long netlistSize = drv.readSrWord(ShadowRam.NETLIST_BANK_SIZE) * 4096L;
        assertTrue(nvmPtr > 0 && nvmSize > 0 && oromPtr > 0 && netlistPtr > 0);
        long active = nvmPtr + (nvmBank2 ? nvmSize : 0);
        long inactive = nvmPtr + (nvmBank2 ? 0 : nvmSize);
        long activeHdr = cssHeaderWords(active);
        long inactiveHdr = cssHeaderWords(inactive);
        assertTrue(activeHdr > 8 && inactiveHdr > 8);
        long srCopy = active + (activeHdr + 31) / 32 * 32 * 2;
        int starter = drv.readFlashWord(srCopy + ShadowRam.DEV_STARTER_VER * 2L);
        assertEquals(4, starter >>> 12, "NVM major 4");
        assertEquals(0x28, starter & 0xFF);
        long inactiveCopy = inactive + (inactiveHdr + 31) / 32 * 32 * 2;
        assertEquals(NvmImage.INACTIVE_DEV_STARTER_VER,
                drv.readFlashWord(inactiveCopy + ShadowRam.DEV_STARTER_VER * 2L), "the other bank is older");
        long eetrack = (long) drv.readFlashWord(srCopy + ShadowRam.EETRACK_HI * 2L) << 16
                | drv.readFlashWord(srCopy + ShadowRam.EETRACK_LO * 2L);
        assertEquals(NvmImage.EETRACK, eetrack);
        // OROM CIVD scan (soft)
        byte[] orom = drv.readFlatNvm(oromPtr, (int) oromSize, false);
        assertNotNull(orom);
        long combo = -1;
        for (int off = 0; off + 512 <= orom.length; off += 512) {
            if (orom[off] == '$' && orom[off + 1] == 'C' && orom[off + 2] == 'I' && orom[off + 3] == 'V') {
                int sum = 0;
                for (int i = 0; i < 74; i++) {
                    sum += orom[off + i];
                }
                assertEquals(0, sum & 0xFF, "CIVD checksum");
                combo = (orom[off + 5] & 0xFFL) | (orom[off + 6] & 0xFFL) << 8 | (orom[off + 7] & 0xFFL) << 16
                        | (orom[off + 8] & 0xFFL) << 24;
                break;
            }
        }
        assertEquals(NvmImage.OROM_COMBO_VER, combo);
        // netlist (soft)
        long netlist = netlistPtr + (netlistBank2 ? netlistSize : 0);
        assertEquals(ShadowRam.NETLIST_LINK_TOPO_MOD_ID, drv.readFlashWord(netlist));
        assertTrue(drv.readFlashWord(netlist + 4) >= ShadowRam.NETLIST_ID_BLK_SIZE);
        int nodes = drv.readFlashWord(netlist + 6) & 0x3FF;
        assertEquals(NvmImage.NETLIST_MAJOR, drv.readFlashWord(netlist + (6 + 2L * nodes + 2) * 2));
        // PBA through the PFA TLVs (ice_read_pba_string)
        assertEquals(NvmImage.PBA, pba());

        // 6, 7: capabilities
        Map<Integer, long[]> dev = caps(AqOpcode.LIST_DEV_CAPS);
        assertEquals(1, Long.bitCount(dev.get(ListCaps.CAP_VALID_FUNCTIONS)[0]), "one valid function");
        assertEquals(1, dev.get(ListCaps.CAP_RDMA)[0], "RDMA on");
        Map<Integer, long[]> func = caps(AqOpcode.LIST_FUNC_CAPS);
        assertEquals(1, func.get(ListCaps.CAP_RDMA)[0]);
        assertEquals(MSIX, func.get(ListCaps.CAP_MSIX)[0]);
        assertTrue(func.get(ListCaps.CAP_MSIX)[0] >= 2 + 2L * Runtime.getRuntime().availableProcessors());
        assertEquals(9728, func.get(ListCaps.CAP_MAX_MTU)[0]);
        assertTrue(func.get(ListCaps.CAP_RXQS)[0] > 0 && func.get(ListCaps.CAP_TXQS)[0] > 0);
        // FD listed, so that ice_set_pf_caps starts ctrl_vsi_idx at ICE_NO_VSI (see Capabilities): sizes from GLQF_FD_SIZE
        assertEquals(Capabilities.FD_GUARANTEED + Capabilities.FD_BEST_EFFORT, dev.get(ListCaps.CAP_FD)[0]);
        assertTrue(func.containsKey(ListCaps.CAP_FD));
        assertEquals(1, func.get(ListCaps.CAP_TX_SCHED_TOPO_COMP_MODE)[0], "ice_cfg_tx_topo asks get_tx_topo");
        for (Map<Integer, long[]> caps : List.of(dev, func)) {
            assertArrayEquals(new long[] {1, 1, 8}, caps.get(ListCaps.CAP_DCB), "dcb, active_tc_bitmap, maxtc");
        }
        int fdSize = fw.read32(GLQF_FD_SIZE);
        assertEquals(Capabilities.FD_GUARANTEED, fdSize & GLQF_FD_SIZE_FD_GSIZE_M);
        assertEquals(Capabilities.FD_BEST_EFFORT, (fdSize & GLQF_FD_SIZE_FD_BSIZE_M) >>> GLQF_FD_SIZE_FD_BSIZE_S);
        assertArrayEquals(new long[] {0x7, 0, 0}, func.get(ListCaps.CAP_1588), "PF 0 owns and runs timer 0");
        assertEquals(1L << 24 | 1L << 25 | 1L << 3, dev.get(ListCaps.CAP_1588)[0], "DEV_ENA, TMR0_ENA, TMR0_OWND by PF 0");
        for (int omitted : new int[] {ListCaps.CAP_SRIOV,
                ListCaps.CAP_VF, ListCaps.CAP_NVM_MGMT,
                ListCaps.CAP_FW_LAG_SUPPORT, ListCaps.CAP_NAC_TOPOLOGY, ListCaps.CAP_SENSOR_READING}) {
            assertFalse(dev.containsKey(omitted) || func.containsKey(omitted), "cap 0x" + Integer.toHexString(omitted));
        }

        // 15: manage_mac_read, two response slots as ice_init_hw sends it
        IceLikeDriver.Reply mac = drv.send(IceLikeDriver.command(AqOpcode.MANAGE_MAC_READ), null,
                2 * ManageMacRead.RESP_SIZE);
        assertTrue(mac.ok());
        assertTrue((mac.desc().paramU16(ManageMacRead.FLAGS) & ManageMacRead.LAN_ADDR_VALID) != 0);
        assertEquals(1, mac.desc().paramU8(ManageMacRead.NUM_ADDR));
        assertEquals(ManageMacRead.ADDR_TYPE_LAN, mac.buf().readUnsignedByte(ManageMacRead.RESP_ADDR_TYPE));
        long got = 0;
        for (int i = 0; i < 6; i++) {
            got = got << 8 | mac.buf().readUnsignedByte(ManageMacRead.RESP_MAC + i);
        }
        assertEquals(MAC, got);

        // 16: set_mac_cfg
        assertTrue(drv.send(IceLikeDriver.command(AqOpcode.SET_MAC_CFG)
                .paramU16(SetMacCfg.MAX_FRAME_SIZE, 9728)).ok());

        // 17: alloc_res, the FD counter block (ice_alloc_hw_res, btm false)
        byte[] res = new byte[6];
        res[0] = (byte) AllocFreeRes.RES_TYPE_FDIR_COUNTER_BLOCK;
        res[1] = (byte) (AllocFreeRes.RES_TYPE_FLAG_IGNORE_INDEX >>> 8);
        res[2] = 1;
        AqDescriptor alloc = IceLikeDriver.command(AqOpcode.ALLOC_RES).paramU16(AllocFreeRes.NUM_ENTRIES, 1);
        alloc.flags(alloc.flags() | AqDescriptor.RD);
        IceLikeDriver.Reply a = drv.send(alloc, res, res.length);
        assertTrue(a.ok());
        assertEquals(0, a.buf().readUnsignedShort(AllocFreeRes.BUF_ELEM));
        assertEquals(1, fw.resources().inUse(AllocFreeRes.RES_TYPE_FDIR_COUNTER_BLOCK));

        // 18: get_port_options for lane 0 (ice_get_phy_lane_number): active option valid, a speed <= 40G code
        IceLikeDriver.Reply po = drv.send(IceLikeDriver.command(AqOpcode.GET_PORT_OPTIONS).paramU8(0, 0)
                .paramU8(1, 1), null, 16 * 8);
        assertTrue(po.ok());
        assertTrue((po.desc().paramU8(4) & 0x80) != 0);
        assertTrue((po.buf().readUnsignedByte(1) & 0xF) <= 9);

        // 13: get_phy_caps, topology with media
        IceLikeDriver.Reply phy = drv.send(IceLikeDriver.command(AqOpcode.GET_PHY_CAPS)
                .paramU16(GetPhyCaps.PARAM0, GetPhyCaps.REPORT_TOPO_CAP_MEDIA), null, GetPhyCaps.DATA_SIZE);
        assertTrue(phy.ok());
        assertEquals(GetPhyCaps.DATA_SIZE, phy.bufLen());
        assertEquals(GetPhyCaps.PHY_TYPE_LOW_100GBASE_CR4, phy.buf().readLong(GetPhyCaps.DATA_PHY_TYPE_LOW));

        // 14: get_link_status (ice_update_link_info: LSE disabled)
        IceLikeDriver.Reply link = drv.send(IceLikeDriver.command(AqOpcode.GET_LINK_STATUS)
                .paramU16(GetLinkStatus.CMD_FLAGS, GetLinkStatus.LSE_DIS), null, GetLinkStatus.DATA_SIZE_V1);
        assertTrue(link.ok());
        assertEquals(GetLinkStatus.DATA_SIZE_V1, link.bufLen());
        int info = link.buf().readUnsignedByte(GetLinkStatus.DATA_LINK_INFO);
        assertTrue((info & GetLinkStatus.LINK_UP) != 0 && (info & GetLinkStatus.MEDIA_AVAILABLE) != 0);
        assertEquals(GetLinkStatus.LINK_SPEED_100GB, link.buf().readUnsignedShort(GetLinkStatus.DATA_LINK_SPEED));
        assertEquals(9728, link.buf().readUnsignedShort(GetLinkStatus.DATA_MAX_FRAME_SIZE));
        assertEquals(0, link.desc().paramU16(GetLinkStatus.CMD_FLAGS) & GetLinkStatus.LSE_IS_ENABLED);

        // 36: driver_ver (FATAL) with UTS_RELEASE
        byte[] uts = "7.3.4-amd64".getBytes(StandardCharsets.US_ASCII);
        AqDescriptor dv = IceLikeDriver.command(AqOpcode.DRIVER_VER).paramU8(DriverVer.MAJOR, 7)
                .paramU8(DriverVer.MINOR, 3);
        dv.flags(dv.flags() | AqDescriptor.RD);
        assertTrue(drv.send(dv, uts, uts.length).ok());
        assertEquals("7.3.4-amd64", fw.driverVersion());

        // fw log (libie __fwlog_init on PF 0): the 4 KiB query succeeds with 32 modules (FirmwareLog); a buffer
        // too short for them is refused, not a hang
        IceLikeDriver.Reply log = drv.send(IceLikeDriver.command(AqOpcode.FW_LOGS_QUERY), null, 4096);
        assertTrue(log.ok());
        assertEquals(32, log.desc().paramU16(6));
        IceLikeDriver.Reply shortLog = drv.send(IceLikeDriver.command(AqOpcode.FW_LOGS_QUERY), null, 64);
        assertEquals(IceLikeDriver.EIO, shortLog.status());
        assertEquals(AqError.EINVAL, shortLog.retval());

        // every command was traced with its name and retval name
        assertTrue(sink.of(TraceKind.AQ).stream().anyMatch(e -> "get_ver".equals(e.get("op"))
                && "OK".equals(e.get("retval")) && "0".equals(e.get("datalen"))));
        assertTrue(sink.of(TraceKind.AQ).stream().anyMatch(e -> "nvm_read".equals(e.get("op"))
                && "EINVAL".equals(e.get("retval"))));
        assertFalse(fw.locks().held(1), "every NVM read released the lock");
    }

    private static long pointer(int word) {
        return (word & ShadowRam.PTR_4KB_UNITS) != 0 ? (word & ~ShadowRam.PTR_4KB_UNITS) * 4096L : word * 2L;
    }

    private long cssHeaderWords(long bank) {
        long lo = drv.readFlashWord(bank + ShadowRam.CSS_HDR_LEN_L * 2L);
        long hi = drv.readFlashWord(bank + ShadowRam.CSS_HDR_LEN_H * 2L);
        return (hi << 16 | lo) * 2 + ShadowRam.AUTH_HEADER_LEN;
    }

    private String pba() {
        int pfa = drv.readSrWord(ShadowRam.PFA_PTR);
        int pfaLen = drv.readSrWord(pfa);
        int next = pfa + 1;
        while (next < pfa + pfaLen - 1) {
            int type = drv.readSrWord(next);
            int len = drv.readSrWord(next + 1);
            if (type == ShadowRam.PBA_BLOCK_PTR) {
                int size = drv.readSrWord(next + 2);
                assertTrue(len >= size);
                StringBuilder s = new StringBuilder();
                for (int i = 0; i < size - 1; i++) {
                    int w = drv.readSrWord(next + 3 + i);
                    s.append((char) (w >>> 8));
                    if ((w & 0xFF) != 0) {
                        s.append((char) (w & 0xFF));
                    }
                }
                return s.toString();
            }
            next += 2 + len;
        }
        return null;
    }

    /** ice_discover_{dev,func}_caps: 4 KiB buffer, count read back, elements by cap id: {number, logical, phys}. */
    private Map<Integer, long[]> caps(int opcode) {
        IceLikeDriver.Reply r = drv.send(IceLikeDriver.command(opcode), null, 4096);
        assertTrue(r.ok());
        long count = r.desc().paramU32(ListCaps.COUNT);
        assertTrue(count > 0 && count * ListCaps.ELEM_SIZE <= r.bufLen());
        Map<Integer, long[]> m = new HashMap<>();
        for (int i = 0; i < count; i++) {
            int at = i * ListCaps.ELEM_SIZE;
            m.put(r.buf().readUnsignedShort(at + ListCaps.ELEM_CAP), new long[] {
                r.buf().readUnsignedInt(at + ListCaps.ELEM_NUMBER),
                r.buf().readUnsignedInt(at + ListCaps.ELEM_LOGICAL_ID),
                r.buf().readUnsignedInt(at + ListCaps.ELEM_PHYS_ID)});
        }
        return m;
    }
}
