package dev.irdmaemu.model.pci;

import static dev.irdmaemu.fw.pci.PciRegs.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The E810 PF's configuration space against include/uapi/linux/pci_regs.h (each capability's layout, the write
 * masks, BAR sizing as pci_read_bases / QEMU's vfio_pci_size_rom do it), FLR and the device reset, the DSN, the
 * BAR0 dispatch between the ice and RDMA blocks, MSI-X, and hostile accesses.
 */
class E810PciFunctionTest {
    private final PciTestRig rig = new PciTestRig();
    private final E810PciFunction pci = rig.pci;

    private int cfg(int offset, int size) {
        return pci.configRead(offset, size);
    }

    // --- header

    @Test
    void theHeaderIdentifiesAnE810CQsfpEthernetFunctionWithoutIntxOrRom() {
        assertEquals(0x8086, cfg(VENDOR_ID, 2));
        assertEquals(0x1592, cfg(DEVICE_ID, 2), "ice_devids.h ICE_DEV_ID_E810C_QSFP");
        assertEquals(0x020000, cfg(CLASS_PROG, 3));
        assertEquals(E810PciFunction.REVISION, cfg(REVISION_ID, 1));
        assertEquals(0, cfg(HEADER_TYPE, 1), "type 0, single function");
        assertEquals(0x8086, cfg(SUBSYSTEM_VENDOR_ID, 2));
        assertEquals(0, cfg(INTERRUPT_PIN, 1), "no INTx (vfio-user-facts §1.5)");
        assertEquals(STATUS_CAP_LIST, cfg(STATUS, 2) & STATUS_CAP_LIST);
        assertEquals(E810PciFunction.PM_CAP, cfg(CAPABILITY_LIST, 1));
        pci.configWrite(ROM_ADDRESS, 4, 0xffff_f800);
        assertEquals(0, cfg(ROM_ADDRESS, 4), "ROM sizing finds no ROM (vfio_pci_size_rom)");
        pci.configWrite(ROM_ADDRESS, 4, 0xfeb0_0001);
        assertEquals(0, cfg(ROM_ADDRESS, 4));
    }

    @Test
    void readOnlyBytesIgnoreWritesAndStatusErrorBitsAreWriteOneToClear() {
        pci.configWrite(VENDOR_ID, 4, 0xffff_ffff);
        pci.configWrite(CLASS_REVISION, 4, 0);
        pci.configWrite(CAPABILITY_LIST, 1, 0x99);
        assertEquals(0x1592_8086, cfg(VENDOR_ID, 4));
        assertEquals(0x0200_0000 | E810PciFunction.REVISION, cfg(CLASS_REVISION, 4));
        assertEquals(0x40, cfg(CAPABILITY_LIST, 1));
        // COMMAND: memory, master, parity, SERR, INTx disable writable; IO (no IO BAR) is not.
        pci.configWrite(COMMAND, 2, 0xffff);
        assertEquals(COMMAND_MEMORY | COMMAND_MASTER | COMMAND_PARITY | COMMAND_SERR | COMMAND_INTX_DISABLE,
                cfg(COMMAND, 2));
        // The device records a received master abort and a detected parity error; writing 1 clears only that bit.
        pci.config().deviceSet(STATUS, 2, cfg(STATUS, 2) | STATUS_REC_MASTER_ABORT | STATUS_DETECTED_PARITY);
        pci.configWrite(STATUS, 2, 0);
        assertEquals(STATUS_REC_MASTER_ABORT | STATUS_DETECTED_PARITY, cfg(STATUS, 2) & 0xff00, "0 leaves them");
        pci.configWrite(STATUS, 2, STATUS_REC_MASTER_ABORT | STATUS_CAP_LIST);
        assertEquals(STATUS_DETECTED_PARITY | STATUS_CAP_LIST, cfg(STATUS, 2), "1 clears; CAP_LIST read-only");
    }

    // --- BARs

    /** pci_read_bases / __pci_read_base: all-ones to both halves, read back, the size is the complement + 1. */
    private long sizeBar64(int bar) {
        int lo = baseAddress(bar);
        int hi = lo + 4;
        pci.configWrite(lo, 4, 0xffff_ffff);
        pci.configWrite(hi, 4, 0xffff_ffff);
        long mask = (cfg(hi, 4) & 0xffff_ffffL) << 32 | (cfg(lo, 4) & 0xffff_fff0L);
        return ~mask + 1;
    }

    @Test
    void bar0And3Are64BitPrefetchableBarsThatSizeToWhatTheTransportReports() {
        for (int bar : new int[] {0, 3}) {
            assertEquals(BASE_ADDRESS_MEM_TYPE_64 | BASE_ADDRESS_MEM_PREFETCH, cfg(baseAddress(bar), 4) & 0xf);
            assertTrue(pci.bar64(bar));
            long size = sizeBar64(bar);
            assertEquals(pci.barSize(bar), size, "BAR" + bar);
            assertEquals(0, size & (size - 1), "a power of two (pci_register_bar asserts it)");
            assertEquals(0xc, cfg(baseAddress(bar), 4) & 0xf, "type bits read-only");
            // The address the BIOS assigns sticks, type bits kept; 0 (QEMU after a reset) leaves the type bits.
            pci.configWrite(baseAddress(bar), 4, 0xf000_0000);
            pci.configWrite(baseAddress(bar) + 4, 4, 0x0000_0038);
            assertEquals(0xf000_000c, cfg(baseAddress(bar), 4));
            assertEquals(0x38, cfg(baseAddress(bar) + 4, 4));
            pci.configWrite(baseAddress(bar), 4, 0);
            assertEquals(0xc, cfg(baseAddress(bar), 4));
        }
        // An address below the BAR's alignment keeps only the bits above the size.
        pci.configWrite(baseAddress(0), 4, 0xfe00_0000);
        assertEquals(0xf800_000c, cfg(baseAddress(0), 4));
        assertEquals(128L << 20, pci.barSize(0));
        assertTrue(pci.barSize(0) > Bar0Dispatcher.DB_PAGE + Bar0Dispatcher.DB_PAGE_SIZE - 1);
        assertEquals(64L << 10, pci.barSize(3));
        for (int bar : new int[] {1, 2, 4, 5}) {
            assertEquals(0, pci.barSize(bar), "upper halves and unused BARs have no region");
        }
        for (int bar : new int[] {2, 5}) {
            pci.configWrite(baseAddress(bar), 4, 0xffff_ffff);
            assertEquals(0, cfg(baseAddress(bar), 4), "unused BAR" + bar + " sizes to 0");
        }
    }

    // --- capabilities

    private record Cap(int at, int id) {
    }

    private List<Cap> standardCaps() {
        List<Cap> caps = new ArrayList<>();
        int at = cfg(CAPABILITY_LIST, 1);
        while (at != 0 && caps.size() < 48) {
            caps.add(new Cap(at, cfg(at + CAP_LIST_ID, 1)));
            at = cfg(at + CAP_LIST_NEXT, 1);
        }
        return caps;
    }

    @Test
    void theCapabilityListIsPmThenMsixThenExpressInOrderWithoutOverlap() {
        List<Cap> caps = standardCaps();
        assertEquals(List.of(new Cap(0x40, CAP_ID_PM), new Cap(0x70, CAP_ID_MSIX), new Cap(0xa0, CAP_ID_EXP)), caps);
        int[] sizes = {PM_SIZEOF, MSIX_CAP_SIZEOF, EXP_CAP_SIZEOF_V2};
        for (int i = 0; i < caps.size(); i++) {
            int end = caps.get(i).at() + sizes[i];
            int limit = i + 1 < caps.size() ? caps.get(i + 1).at() : CFG_SPACE_SIZE;
            assertTrue(end <= limit, "capability at 0x" + Integer.toHexString(caps.get(i).at()) + " overlaps");
            assertEquals(0, caps.get(i).at() & 3, "dword aligned");
        }
        // Extended capabilities from 0x100: AER v2, then the DSN, then the end.
        int h = cfg(EXT_CAP_START, 4);
        assertEquals(EXT_CAP_ID_ERR, extCapId(h));
        assertEquals(2, extCapVersion(h));
        int dsn = extCapNext(h);
        assertTrue(dsn >= EXT_CAP_START + ERR_ENDPOINT_SIZEOF, "AER and DSN do not overlap");
        int d = cfg(dsn, 4);
        assertEquals(EXT_CAP_ID_DSN, extCapId(d));
        assertEquals(1, extCapVersion(d));
        assertEquals(0, extCapNext(d));
    }

    @Test
    void powerManagementIsVersion3WithAWritableStateAndNoD1OrD2() {
        int pm = E810PciFunction.PM_CAP;
        assertEquals(3, cfg(pm + PM_PMC, 2) & 7, "PCI_PM_CAP_VER_MASK: version 3");
        assertEquals(0, cfg(pm + PM_PMC, 2) & 0x0600, "no D1 / D2 support");
        assertEquals(PM_CTRL_NO_SOFT_RESET, cfg(pm + PM_CTRL, 2));
        pci.configWrite(pm + PM_CTRL, 2, PM_D3HOT);
        assertEquals(PM_D3HOT | PM_CTRL_NO_SOFT_RESET, cfg(pm + PM_CTRL, 2));
        pci.configWrite(pm + PM_CTRL, 2, 1);
        assertEquals(PM_D3HOT, cfg(pm + PM_CTRL, 2) & PM_CTRL_STATE_MASK, "D1 refused: the state stays");
        pci.configWrite(pm + PM_CTRL, 2, PM_D0);
        assertEquals(PM_CTRL_NO_SOFT_RESET, cfg(pm + PM_CTRL, 2), "No_Soft_Reset is read-only");
    }

    @Test
    void msixHasItsTableAtBar3OffsetZeroAndThePbaAfterItInsideTheBar() {
        int m = E810PciFunction.MSIX_CAP;
        int flags = cfg(m + MSIX_FLAGS, 2);
        int vectors = (flags & MSIX_FLAGS_QSIZE) + 1;
        assertEquals(pci.msixVectors(), vectors);
        assertTrue(vectors >= 2 + 2 * 16 && vectors <= 2048, "ice's budget fits, QEMU's msix_init limit holds");
        int table = cfg(m + MSIX_TABLE, 4);
        int pba = cfg(m + MSIX_PBA, 4);
        assertEquals(3, table & MSIX_TABLE_BIR);
        assertEquals(3, pba & MSIX_PBA_BIR);
        assertEquals(0, table & ~MSIX_TABLE_BIR);
        long pbaOffset = pba & ~MSIX_PBA_BIR;
        assertTrue(pbaOffset >= (long) vectors * MSIX_ENTRY_SIZE, "table and PBA do not overlap");
        assertTrue(pbaOffset + (vectors + 63) / 64 * 8 <= pci.barSize(3), "the PBA lies inside BAR3");
        // Enable and Function Mask are writable; the size and the BIR / offsets are not.
        pci.configWrite(m + MSIX_FLAGS, 2, 0xffff);
        assertEquals(MSIX_FLAGS_ENABLE | MSIX_FLAGS_MASKALL | (vectors - 1), cfg(m + MSIX_FLAGS, 2));
        pci.configWrite(m + MSIX_TABLE, 4, 0x1234_5670);
        pci.configWrite(m + MSIX_PBA, 4, 0);
        assertEquals(table, cfg(m + MSIX_TABLE, 4));
        assertEquals(pba, cfg(m + MSIX_PBA, 4));
    }

    @Test
    void theExpressCapabilityIsAVersion2EndpointThatCanFlr() {
        int x = E810PciFunction.EXP_CAP;
        int flags = cfg(x + EXP_FLAGS, 2);
        assertEquals(2, flags & EXP_FLAGS_VERS);
        assertEquals(EXP_TYPE_ENDPOINT, (flags & EXP_FLAGS_TYPE) >> 4, "QEMU's setup_pcie_cap wants an endpoint");
        assertTrue((cfg(x + EXP_DEVCAP, 4) & EXP_DEVCAP_FLR) != 0, "pcie_has_flr");
        int devctl = cfg(x + EXP_DEVCTL, 2);
        assertEquals(0, devctl & EXP_DEVCTL_BCR_FLR);
        assertEquals(0, devctl & EXP_DEVCTL_PAYLOAD, "128-byte payload at power-on");
        pci.configWrite(x + EXP_DEVCTL, 2, devctl | 0x20);
        assertEquals(0x20, cfg(x + EXP_DEVCTL, 2) & EXP_DEVCTL_PAYLOAD);
        // Device status errors: write one to clear.
        pci.config().deviceSet(x + EXP_DEVSTA, 2, EXP_DEVSTA_CED | EXP_DEVSTA_URD);
        pci.configWrite(x + EXP_DEVSTA, 2, EXP_DEVSTA_URD);
        assertEquals(EXP_DEVSTA_CED, cfg(x + EXP_DEVSTA, 2));
        // Link: 16 GT/s x16 capable and trained; link status read-only.
        assertEquals(4, cfg(x + EXP_LNKCAP, 4) & 0xf);
        assertEquals(16, (cfg(x + EXP_LNKCAP, 4) >> 4) & 0x3f);
        int lnksta = cfg(x + EXP_LNKSTA, 2);
        assertEquals(4, lnksta & 0xf);
        assertEquals(16, (lnksta >> 4) & 0x3f);
        pci.configWrite(x + EXP_LNKSTA, 2, 0);
        assertEquals(lnksta, cfg(x + EXP_LNKSTA, 2));
        assertTrue((cfg(x + EXP_LNKCAP2, 4) & 0x10) != 0, "16 GT/s in the supported speeds vector");
    }

    @Test
    void eachNicHasItsOwnSerialNumberWherePciGetDsnReadsIt() {
        long mac1 = 0x6c_fe_54_12_34_56L;
        long mac2 = 0x6c_fe_54_12_34_57L;
        PciTestRig other = new PciTestRig(E810PciFunction.serialNumberFromMac(mac2));
        PciTestRig one = new PciTestRig(E810PciFunction.serialNumberFromMac(mac1));
        assertEquals(0x6cfe54ffff123456L, one.pci.serialNumber(), "the MAC as an EUI-64");
        for (PciTestRig r : new PciTestRig[] {one, other}) {
            int dsn = E810PciFunction.DSN_CAP;
            long read = (r.pci.configRead(dsn + 4, 4) & 0xffff_ffffL)
                    | (r.pci.configRead(dsn + 8, 4) & 0xffff_ffffL) << 32;
            assertEquals(r.pci.serialNumber(), read);
            r.pci.configWrite(dsn + 4, 4, 0);
            assertEquals(r.pci.serialNumber() & 0xffff_ffffL, r.pci.configRead(dsn + 4, 4) & 0xffff_ffffL);
        }
        assertNotEquals(one.pci.configRead(E810PciFunction.DSN_CAP + 4, 4),
                other.pci.configRead(E810PciFunction.DSN_CAP + 4, 4));
    }

    // --- resets

    @Test
    void flrThroughDevctlReturnsTheFunctionToPowerOnExceptStickyAndLinkBits() {
        int x = E810PciFunction.EXP_CAP;
        int aer = E810PciFunction.AER_CAP;
        pci.configWrite(COMMAND, 2, COMMAND_MEMORY | COMMAND_MASTER);
        pci.configWrite(E810PciFunction.MSIX_CAP + MSIX_FLAGS, 2, MSIX_FLAGS_ENABLE);
        pci.configWrite(x + EXP_DEVCTL, 2, cfg(x + EXP_DEVCTL, 2) | 0x20);
        pci.configWrite(x + EXP_LNKCTL, 2, EXP_LNKCTL_CCC);
        pci.configWrite(aer + ERR_UNCOR_MASK, 4, 0x0010_0000);
        pci.config().deviceSet(aer + ERR_COR_STATUS, 4, 0x1);
        pci.configWrite(baseAddress(0), 4, 0xfe00_0000);
        // Both blocks hold state.
        pci.barWrite(0, Gen2Register.GLINT_DYN_CTL.at(7), 4, Gen2Registers.dynCtlEnable(0));
        pci.barWrite(0, PciTestRig.PFGEN_CTRL, 4, 0x5a);
        pci.msixBar().write32(16 * 5, 0xfee0_0000);

        // drivers/pci/pci.c pcie_flr: set Initiate FLR, wait, then config reads answer.
        pci.configWrite(x + EXP_DEVCTL, 2, cfg(x + EXP_DEVCTL, 2) | EXP_DEVCTL_BCR_FLR);
        assertNotEquals(0xffff_ffff, cfg(VENDOR_ID, 4), "config space answers after the FLR (pci_dev_wait)");
        assertEquals(1, pci.flrs());
        assertEquals(0, cfg(COMMAND, 2), "memory / bus master off");
        assertEquals(0, cfg(E810PciFunction.MSIX_CAP + MSIX_FLAGS, 2) & MSIX_FLAGS_ENABLE);
        assertEquals(0xc, cfg(baseAddress(0), 4), "BAR address cleared");
        assertEquals(0, cfg(x + EXP_DEVCTL, 2) & EXP_DEVCTL_BCR_FLR, "Initiate FLR reads 0");
        assertEquals(0x20, cfg(x + EXP_DEVCTL, 2) & EXP_DEVCTL_PAYLOAD, "Max_Payload_Size survives an FLR");
        assertEquals(EXP_LNKCTL_CCC, cfg(x + EXP_LNKCTL, 2), "link control survives an FLR");
        assertEquals(0x0010_0000, cfg(aer + ERR_UNCOR_MASK, 4), "RWS survives");
        assertEquals(0x1, cfg(aer + ERR_COR_STATUS, 4), "RW1CS survives");
        assertEquals(0, pci.barRead(0, Gen2Register.GLINT_DYN_CTL.at(7), 4), "the RDMA block is reset");
        assertEquals(1, rig.rdma.resets());
        assertEquals(0x80, pci.barRead(0, Gen2Register.GLPE_CPUSTATUS0.offset(), 4));
        assertEquals(1, rig.ice.resets, "the ice block's reset hook ran");
        assertEquals(0, pci.barRead(0, PciTestRig.PFGEN_CTRL, 4));
        assertEquals(0, pci.msixBar().read32(16 * 5));
        assertTrue(pci.msixBar().masked(5), "table entries masked again");
        RecordingTraceSink.Recorded flr = rig.sink.of(TraceKind.PCI_CONFIG).stream()
                .filter(e -> "initiate_flr".equals(e.get("handler"))).reduce((a, b) -> b).orElseThrow();
        assertEquals("EXP_DEVCTL", flr.get("field"));
        assertTrue(rig.sink.of(TraceKind.FUNCTION_RESET).stream().anyMatch(e -> "flr".equals(e.get("cause"))));

        // A conventional reset (DEVICE_RESET) returns the link fields too, but not the sticky bits.
        pci.reset();
        assertEquals(1, pci.deviceResets());
        assertEquals(0, cfg(x + EXP_DEVCTL, 2) & EXP_DEVCTL_PAYLOAD);
        assertEquals(0, cfg(x + EXP_LNKCTL, 2));
        assertEquals(0x0010_0000, cfg(aer + ERR_UNCOR_MASK, 4));
        assertEquals(2, rig.rdma.resets());
        assertEquals(2, rig.ice.resets);
    }

    // --- BAR0 dispatch

    @Test
    void bar0SendsRdmaOffsetsToTheRdmaBlockAndTheRestToTheIceBlock() {
        assertEquals(0x80, pci.barRead(0, Gen2Register.GLPE_CPUSTATUS0.offset(), 4));
        pci.barWrite(0, Gen2Register.GLINT_DYN_CTL.at(9), 4, 0x1b);
        assertEquals(0x1b, rig.rdma.interrupts().readDynCtl(9), "GLINT_DYN_CTL is the RDMA block's array");
        assertTrue(rig.ice.accesses.isEmpty(), "the ice block saw none of it: " + rig.ice.accesses);
        pci.barWrite(0, PciTestRig.PFGEN_CTRL, 4, 0x1234);
        assertEquals(0x1234, pci.barRead(0, PciTestRig.PFGEN_CTRL, 4));
        assertEquals(List.of("w91000", "r91000"), rig.ice.accesses);
        // Nobody backs 0x1000: 0, dropped, traced once however often it is touched.
        long before = rig.rdma.registers().unknownReads();
        assertEquals(0, pci.barRead(0, 0x1000, 4));
        assertEquals(0, pci.barRead(0, 0x1000, 4));
        pci.barWrite(0, 0x1000, 4, 7);
        assertEquals(0, pci.barRead(0, 0x1000, 4));
        assertEquals(3, pci.bar0().unknownReads());
        assertEquals(1, pci.bar0().unknownWrites());
        assertEquals(before, rig.rdma.registers().unknownReads());
        assertEquals(1, rig.sink.of(TraceKind.REG_UNKNOWN).stream().filter(e -> "0x1000".equals(e.get("off"))
                || "1000".equals(e.get("off"))).count());
        assertEquals(2, rig.ice.accesses.size(), "unknown offsets did not reach the ice block");
    }

    @Test
    void theDoorbellPageIsReachableThroughBar0() {
        long db = Bar0Dispatcher.DB_PAGE;
        assertEquals(0x7f_0000L, db);
        pci.barWrite(0, db + Gen2Registers.DB_PAGE_WQE_ALLOC, 4, 77);
        assertEquals(1, rig.rdma.wqeAllocIgnored(), "the doorbell reached WQEALLOC (no QP 77: ignored)");
        assertEquals(0, pci.barRead(0, db + Gen2Registers.DB_PAGE_CQ_ARM, 4));
        assertEquals(1, rig.rdma.doorbellPageReads());
        assertEquals(0, pci.barRead(0, db + 0x800, 4), "the rest of the page is the RDMA block's (unbacked)");
        assertEquals(1, rig.rdma.registers().unknownReads());
        assertTrue(rig.ice.accesses.isEmpty());
    }

    @Test
    void accessesOfEverySizeWorkOnBar0() {
        long dyn = Gen2Register.GLINT_DYN_CTL.at(2);
        // CLEARPBA | ITR_INDX 1 and INTENA | CLEARPBA: values without a side effect (SWINT_TRIG, bit 2, would fire a
        // software interrupt and not read back)
        pci.barWrite(0, dyn, 8, 0x0000_0003_0000_000AL);
        assertEquals(0xA, rig.rdma.interrupts().readDynCtl(2), "low word first, to the lower register");
        assertEquals(3, rig.rdma.interrupts().readDynCtl(3));
        assertEquals(0x0000_0003_0000_000AL, pci.barRead(0, dyn, 8));
        long cpu = Gen2Register.GLPE_CPUSTATUS0.offset();
        assertEquals(0x80, pci.barRead(0, cpu, 1));
        assertEquals(0, pci.barRead(0, cpu + 1, 1));
        assertEquals(0x80, pci.barRead(0, cpu, 2));
        pci.barWrite(0, dyn + 4, 4, 0x1234_5678);
        assertEquals(0x1234, pci.barRead(0, dyn + 6, 2));
        assertEquals(0x56, pci.barRead(0, dyn + 5, 1));
        // Sub-dword writes are refused: the register keeps its value.
        pci.barWrite(0, dyn + 4, 2, 0xffff);
        pci.barWrite(0, dyn + 4, 1, 0xff);
        assertEquals(0x1234_5678, rig.rdma.interrupts().readDynCtl(3));
        assertEquals(2, pci.refusedAccesses());
        assertTrue(rig.sink.of(TraceKind.PCI_BAR).stream().anyMatch(e -> "partial_write".equals(e.get("access"))));
    }

    @Test
    void hostileAccessesAreAnsweredWithoutExceptions() {
        long[] offsets = {-1, -4, Long.MIN_VALUE, Long.MAX_VALUE, 1, 2, 3, 6, 0x7f_fffe, 0x7ff_fffc, 0x7ff_fffd,
                0x800_0000, 0x800_0004, 0xffff_ffffL, 0x1_0000_0000L, 0x8000, 0xfffc, 0x1_0000};
        int[] sizes = {-1, 0, 1, 2, 3, 4, 5, 7, 8, 16, Integer.MAX_VALUE};
        int[] bars = {-1, 0, 1, 2, 3, 4, 5, 6, 7, 100};
        for (int bar : bars) {
            for (long off : offsets) {
                for (int size : sizes) {
                    long v = pci.barRead(bar, off, size);
                    pci.barWrite(bar, off, size, -1L);
                    if (bar != 0 && bar != 3) {
                        assertEquals(0, v);
                    }
                }
            }
        }
        assertEquals(0, pci.barRead(0, pci.barSize(0) - 4, 8), "an 8-byte read over the end is refused");
        int[] cfgOffsets = {-1, -4096, 4095, 4096, 4097, 0x7fff_ffff, Integer.MIN_VALUE, 2, 0xa9};
        for (int off : cfgOffsets) {
            for (int size : sizes) {
                pci.configRead(off, size);
                pci.configWrite(off, size, 0x5a5a_5a5a);
            }
        }
        byte[] whole = new byte[4200];
        pci.configRead(-100, whole, 0, whole.length);
        assertEquals(0, whole[0]);
        assertEquals((byte) 0x86, whole[100], "vendor id low byte where offset 0 lands");
        assertEquals(0x1592_8086, cfg(0, 4), "identity intact");
        assertTrue(pci.config().ignoredWrites() > 0);
        assertEquals(0, pci.barRead(3, 0x8000, 4), "the PBA reads 0: QEMU keeps the pending bits");
    }

    /** The BAR0 path of a register access allocates nothing once warm (trace off), as every MMIO must. */
    @Test
    void aBar0RegisterAccessAllocatesNothing() {
        rig.trace.off();
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long t = Thread.currentThread().getId();
        long dyn = Gen2Register.GLINT_DYN_CTL.at(11);
        long cpu = Gen2Register.GLPE_CPUSTATUS1.offset();
        long sum = 0;
        for (int i = 0; i < 50_000; i++) {
            pci.barWrite(0, dyn, 4, i & 0x1e);
            sum += pci.barRead(0, cpu, 4) + pci.barRead(0, dyn, 8);
        }
        long base = threads.getThreadAllocatedBytes(t);
        base = threads.getThreadAllocatedBytes(t) - base;
        long before = threads.getThreadAllocatedBytes(t);
        for (int i = 0; i < 100_000; i++) {
            pci.barWrite(0, dyn, 4, i & 0x1e);
            sum += pci.barRead(0, cpu, 4) + pci.barRead(0, dyn, 8);
        }
        long used = threads.getThreadAllocatedBytes(t) - before - base;
        assertTrue(sum > 0);
        assertTrue(used < 1024, used + " bytes allocated by 300k BAR0 accesses");
    }

    // --- MSI-X

    @Test
    void msixMessagesGoToTheTransportOnlyWhileMsixAndBusMasterAreOn() {
        int vector = 4;
        pci.barWrite(0, Gen2Register.GLINT_DYN_CTL.at(vector), 4, Gen2Registers.dynCtlEnable(0));
        rig.rdma.vectorCauses().raise(vector);
        rig.scheduler.runUntilIdle(rig.scheduler.now() + 1_000_000);
        assertTrue(rig.msix.isEmpty(), "MSI-X disabled: no message");
        assertEquals(1, pci.msixDropped());

        pci.configWrite(COMMAND, 2, COMMAND_MEMORY | COMMAND_MASTER);
        pci.configWrite(E810PciFunction.MSIX_CAP + MSIX_FLAGS, 2, MSIX_FLAGS_ENABLE);
        // The ice block's cause goes through the shared GLINT_DYN_CTL: disarmed after the first, so it waits.
        rig.rdma.vectorCauses().raise(vector);
        rig.scheduler.runUntilIdle(rig.scheduler.now() + 1_000_000);
        assertTrue(rig.msix.isEmpty(), "the vector disarmed itself on the first cause");
        assertTrue(rig.rdma.interrupts().pending(vector));
        pci.barWrite(0, Gen2Register.GLINT_DYN_CTL.at(vector), 4, Gen2Registers.dynCtlEnable(0));
        rig.scheduler.runUntilIdle(rig.scheduler.now() + 1_000_000);
        assertEquals(List.of(vector), rig.msix, "INTENA released the pending cause to the transport");
        assertEquals(1, pci.msixSent());
        assertFalse(rig.rdma.vectorCauses() == null);
        // Vectors beyond the table are dropped, not sent.
        pci.barWrite(0, Gen2Register.GLINT_DYN_CTL.at(2000), 4, Gen2Registers.dynCtlEnable(0));
        rig.rdma.vectorCauses().raise(2000);
        rig.scheduler.runUntilIdle(rig.scheduler.now() + 1_000_000);
        assertEquals(List.of(vector), rig.msix);
        assertEquals(2, pci.msixDropped());
        rig.rdma.vectorCauses().raise(-1);
        rig.rdma.vectorCauses().raise(1 << 20);
    }

    @Test
    void bar3KeepsTheMsixTableAndAnswersThePbaWithZeros() {
        assertTrue(pci.msixBar().masked(0));
        assertEquals(1, pci.barRead(3, MSIX_ENTRY_VECTOR_CTRL, 4), "vector 0 masked at power-on");
        pci.barWrite(3, 16, 8, 0x0000_0000_fee0_1000L);
        pci.barWrite(3, 24, 4, 0x41);
        pci.barWrite(3, 28, 4, 0);
        assertEquals(0xfee0_1000L, pci.barRead(3, 16, 8));
        assertEquals(0x41, pci.barRead(3, 24, 4));
        assertFalse(pci.msixBar().masked(1));
        pci.barWrite(3, MsixBar.PBA_OFFSET, 4, -1);
        assertEquals(0, pci.barRead(3, MsixBar.PBA_OFFSET, 8));
        assertEquals(0, pci.barRead(3, 0xc000, 4), "between table and PBA: nothing");
    }
}
