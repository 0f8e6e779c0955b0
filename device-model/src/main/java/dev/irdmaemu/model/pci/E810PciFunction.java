package dev.irdmaemu.model.pci;

import static dev.irdmaemu.fw.pci.PciRegs.*;

import dev.irdmaemu.fw.bus.InterruptSink;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;

/**
 * The PCI Express function of an E810 PF, independent of the transport (the vfio-user server calls it, as QEMU's
 * igb.c is the PCI glue around igb_core.c): a 4 KiB configuration space with full write masks
 * ({@link PciConfigSpace}), BAR0 (the register space of the ice and RDMA blocks, {@link Bar0Dispatcher}), BAR3 (the
 * MSI-X table and PBA, {@link MsixBar}), MSI-X delivery to the transport's {@link InterruptSink}, and the two resets:
 * FLR (a config write of DEVCTL Initiate FLR) and the transport's device reset.
 *
 * <p>Identity: 8086:1592 (ice_devids.h ICE_DEV_ID_E810C_QSFP), class 0x020000. Capabilities, in config order:
 * Power Management at 0x40, MSI-X at 0x70, PCI Express v2 endpoint at 0xa0 (FLR capable), then from 0x100 AER and
 * the Device Serial Number (pci_get_dsn; ice keys its adapter and the per-NIC DDP file name on it, so it is a
 * constructor argument, unique per NIC). No INTx (interrupt pin 0: vfio-user-facts.md §1.5), no MSI, no ROM (0x30
 * reads 0 and ignores writes, so QEMU's ROM sizing finds none).
 *
 * <p>BAR accesses: sizes 1, 2, 4 and 8, naturally aligned (8-byte: 4-aligned). An 8-byte access is two 32-bit
 * register accesses, low word first (ice_osdep.h rd64 / wr64 use readq / writeq, which a 32-bit register file sees
 * so). A 1- or 2-byte read answers those bytes of the 32-bit register read (its read side effects included); a 1- or
 * 2-byte write is refused (dropped, counted, traced): ice (ice_osdep.h wr32) and irdma (osdep.c irdma_wr32) only
 * write 32 and 64 bits, and a read-modify-write would re-trigger a doorbell or a write-one-to-clear register.
 * Anything else (another size, unaligned, beyond the BAR, a BAR that does not exist) reads 0 and is dropped.
 *
 * <p>Single-threaded like the model: the transport calls it from the thread that runs the model's scheduler.
 */
public final class E810PciFunction {
    public static final int VENDOR_INTEL = 0x8086;
    /** ice_devids.h ICE_DEV_ID_E810C_QSFP. */
    public static final int DEVICE_E810C_QSFP = 0x1592;
    /** The revision E810-C parts report (lspci "rev 02"). */
    public static final int REVISION = 0x02;
    /** Network controller, Ethernet (pci_ids.h PCI_CLASS_NETWORK_ETHERNET << 8, prog-if 0). */
    public static final int CLASS_ETHERNET = 0x020000;
    /** Intel's subsystem id of the E810-C-Q2 adapter. */
    public static final int SUBSYSTEM_E810C_Q2 = 0x0002;

    /**
     * BAR0: 128 MiB, 64-bit prefetchable. ice's registers end below 5 MiB (ice_hw_autogen.h), irdma's doorbell page
     * is at 8 MiB - 64 KiB; a power of two above both (QEMU asserts a power of two, pci_register_bar).
     */
    public static final long BAR0_SIZE = 128L << 20;
    /** BAR3: 64 KiB, the MSI-X table at 0 and the PBA at {@link MsixBar#PBA_OFFSET}. */
    public static final long BAR3_SIZE = 64L << 10;
    public static final int BAR_REGISTERS = 0;
    public static final int BAR_MSIX = 3;
    /** MSI-X vectors of the PF: ice's budget (1 + 2 R + 2, R about ncpus / 2) plus irdma's (ncpus + 1) fit. */
    public static final int MSIX_VECTORS = 1024;

    public static final int PM_CAP = 0x40;
    public static final int MSIX_CAP = 0x70;
    public static final int EXP_CAP = 0xa0;
    public static final int AER_CAP = 0x100;
    public static final int DSN_CAP = 0x150;

    /** BAR type bits: 64-bit memory, prefetchable (read-only; QEMU writes 0 to the BARs after a reset). */
    private static final int BAR_TYPE = BASE_ADDRESS_MEM_TYPE_64 | BASE_ADDRESS_MEM_PREFETCH;
    /** Refused accesses traced one by one before only the count goes on. */
    private static final int REFUSED_TRACED = 64;

    private final RdmaBlock rdma;
    private final FunctionBlock ice;
    private final long serialNumber;
    private final InterruptSink msix;
    private final Trace trace;
    private final PciConfigSpace config;
    private final Bar0Dispatcher bar0;
    private final MsixBar bar3 = new MsixBar(MSIX_VECTORS);
    private long flrs;
    private long deviceResets;
    private long refusedAccesses;
    private long msixSent;
    private long msixDropped;

    /**
     * The PF over {@code rdma} and {@code ice}, with Device Serial Number {@code serialNumber}, raising MSI-X
     * vectors on {@code msix}. It takes over the RDMA block's MSI-X ({@link RdmaBlock#routeInterrupts}); the
     * ice block raises its causes through the RDMA block's interrupt controller (E810RdmaFunction#vectorCauses).
     */
    public E810PciFunction(RdmaBlock rdma, FunctionBlock ice, long serialNumber, InterruptSink msix) {
        this.rdma = rdma;
        this.ice = ice == null ? FunctionBlock.NONE : ice;
        this.serialNumber = serialNumber;
        this.msix = msix == null ? InterruptSink.NONE : msix;
        this.trace = rdma.trace();
        this.config = new PciConfigSpace(trace);
        this.bar0 = new Bar0Dispatcher(rdma, this.ice, trace);
        // the configuration space table, by part: the type 0 header, the capability list, the extended ones
        defineHeader();
        defineCapabilities();
        defineExpressCapability();
        defineExtendedCapabilities();
        rdma.routeInterrupts(this::deliver);
    }

    /**
     * A serial number as Intel NICs derive theirs: the port's MAC as an EUI-64, ff-ff between OUI and NIC part
     * (lspci shows the bytes most significant first).
     */
    public static long serialNumberFromMac(long mac) {
        return (mac >>> 24 & 0xff_ffffL) << 40 | 0xffffL << 24 | (mac & 0xff_ffffL);
    }

    // --- the configuration space table

    /** The type 0 header: ids, command and status, class, the BARs (0-1 registers, 3-4 MSI-X), subsystem. */
    private void defineHeader() {
        PciConfigSpace c = config;
        c.init(VENDOR_ID, 2, VENDOR_INTEL).field("VENDOR_ID", VENDOR_ID, 2);
        c.init(DEVICE_ID, 2, DEVICE_E810C_QSFP).field("DEVICE_ID", DEVICE_ID, 2);
        c.writable(COMMAND, 2, COMMAND_MEMORY | COMMAND_MASTER | COMMAND_PARITY | COMMAND_SERR
                | COMMAND_INTX_DISABLE).field("COMMAND", COMMAND, 2);
        c.init(STATUS, 2, STATUS_CAP_LIST).writeOneToClear(STATUS, 2, STATUS_PARITY | STATUS_SIG_TARGET_ABORT
                | STATUS_REC_TARGET_ABORT | STATUS_REC_MASTER_ABORT | STATUS_SIG_SYSTEM_ERROR
                | STATUS_DETECTED_PARITY).field("STATUS", STATUS, 2);
        c.init(REVISION_ID, 1, REVISION).field("REVISION_ID", REVISION_ID, 1);
        c.init(CLASS_PROG, 3, CLASS_ETHERNET).field("CLASS", CLASS_PROG, 3);
        c.writable(CACHE_LINE_SIZE, 1, 0xff).field("CACHE_LINE_SIZE", CACHE_LINE_SIZE, 1);
        c.field("LATENCY_TIMER", LATENCY_TIMER, 1);
        c.init(HEADER_TYPE, 1, HEADER_TYPE_NORMAL).field("HEADER_TYPE", HEADER_TYPE, 1);
        c.field("BIST", BIST, 1);
        bar64(BAR_REGISTERS, BAR0_SIZE);
        c.field("BAR2", baseAddress(2), 4);
        bar64(BAR_MSIX, BAR3_SIZE);
        c.field("BAR5", baseAddress(5), 4);
        c.field("CARDBUS_CIS", CARDBUS_CIS, 4);
        c.init(SUBSYSTEM_VENDOR_ID, 2, VENDOR_INTEL).field("SUBSYSTEM_VENDOR_ID", SUBSYSTEM_VENDOR_ID, 2);
        c.init(SUBSYSTEM_ID, 2, SUBSYSTEM_E810C_Q2).field("SUBSYSTEM_ID", SUBSYSTEM_ID, 2);
        c.field("ROM_ADDRESS", ROM_ADDRESS, 4);
        c.init(CAPABILITY_LIST, 1, PM_CAP).field("CAPABILITY_LIST", CAPABILITY_LIST, 1);
        c.writable(INTERRUPT_LINE, 1, 0xff).field("INTERRUPT_LINE", INTERRUPT_LINE, 1);
        c.field("INTERRUPT_PIN", INTERRUPT_PIN, 1);
    }

    /** The capability list: Power Management, then MSI-X (PCI Express follows, {@link #defineExpressCapability}). */
    private void defineCapabilities() {
        PciConfigSpace c = config;
        // Power Management: version 3, D0 and D3hot only (no D1 / D2, no PME), No_Soft_Reset set (D3hot -> D0
        // keeps the function's state).
        capHeader("PM", PM_CAP, CAP_ID_PM, MSIX_CAP);
        c.init(PM_CAP + PM_PMC, 2, 3).field("PM_PMC", PM_CAP + PM_PMC, 2);
        c.init(PM_CAP + PM_CTRL, 2, PM_CTRL_NO_SOFT_RESET).writable(PM_CAP + PM_CTRL, 2, PM_CTRL_STATE_MASK)
                .field("PM_CTRL", PM_CAP + PM_CTRL, 2, "power_state", this::powerStateWritten);
        c.field("PM_DATA", PM_CAP + 6, 2);

        // MSI-X: the table in BAR3 at 0, the PBA after it; Enable and Function Mask writable.
        capHeader("MSIX", MSIX_CAP, CAP_ID_MSIX, EXP_CAP);
        c.init(MSIX_CAP + MSIX_FLAGS, 2, MSIX_VECTORS - 1)
                .writable(MSIX_CAP + MSIX_FLAGS, 2, MSIX_FLAGS_ENABLE | MSIX_FLAGS_MASKALL)
                .field("MSIX_FLAGS", MSIX_CAP + MSIX_FLAGS, 2);
        c.init(MSIX_CAP + MSIX_TABLE, 4, BAR_MSIX).field("MSIX_TABLE", MSIX_CAP + MSIX_TABLE, 4);
        c.init(MSIX_CAP + MSIX_PBA, 4, MsixBar.PBA_OFFSET | BAR_MSIX).field("MSIX_PBA", MSIX_CAP + MSIX_PBA, 4);
    }

    /** The PCI Express v2 endpoint capability, the last of the list. */
    private void defineExpressCapability() {
        PciConfigSpace c = config;
        int x = EXP_CAP;
        capHeader("EXP", x, CAP_ID_EXP, 0);
        c.init(x + EXP_FLAGS, 2, 2 | EXP_TYPE_ENDPOINT << 4).field("EXP_FLAGS", x + EXP_FLAGS, 2);
        // 512-byte max payload, extended tags, role-based error reporting, FLR.
        c.init(x + EXP_DEVCAP, 4, 2 | EXP_DEVCAP_EXT_TAG | EXP_DEVCAP_RBER | EXP_DEVCAP_FLR)
                .field("EXP_DEVCAP", x + EXP_DEVCAP, 4);
        // Power-on: relaxed ordering and no-snoop enabled, 128-byte payload, 512-byte read requests (the spec's
        // defaults). Initiate FLR (bit 15) always reads 0. Max_Payload_Size survives an FLR.
        c.init(x + EXP_DEVCTL, 2, EXP_DEVCTL_RELAX_EN | EXP_DEVCTL_NOSNOOP_EN | 2 << 12)
                .writable(x + EXP_DEVCTL, 2, 0x01ff | EXP_DEVCTL_NOSNOOP_EN | EXP_DEVCTL_READRQ)
                .keptOnFlr(x + EXP_DEVCTL, 2, EXP_DEVCTL_PAYLOAD)
                .field("EXP_DEVCTL", x + EXP_DEVCTL, 2, "initiate_flr", this::devctlWritten);
        c.writeOneToClear(x + EXP_DEVSTA, 2, EXP_DEVSTA_CED | EXP_DEVSTA_NFED | EXP_DEVSTA_FED | EXP_DEVSTA_URD)
                .field("EXP_DEVSTA", x + EXP_DEVSTA, 2);
        // 16 GT/s x16, no ASPM; the link registers keep their settings across an FLR.
        c.init(x + EXP_LNKCAP, 4, 4 | 16 << 4).field("EXP_LNKCAP", x + EXP_LNKCAP, 4);
        int lnkctl = EXP_LNKCTL_ASPMC | EXP_LNKCTL_RCB | EXP_LNKCTL_CCC | EXP_LNKCTL_ES | EXP_LNKCTL_HAWD;
        c.writable(x + EXP_LNKCTL, 2, lnkctl).keptOnFlr(x + EXP_LNKCTL, 2, lnkctl)
                .field("EXP_LNKCTL", x + EXP_LNKCTL, 2);
        c.init(x + EXP_LNKSTA, 2, 4 | 16 << 4 | EXP_LNKSTA_SLC).field("EXP_LNKSTA", x + EXP_LNKSTA, 2);
        c.field("EXP_SLTCAP", x + 0x14, 4);
        c.field("EXP_SLTCTL", x + 0x18, 2);
        c.field("EXP_SLTSTA", x + 0x1a, 2);
        c.field("EXP_RTCTL", x + 0x1c, 2);
        c.field("EXP_RTCAP", x + 0x1e, 2);
        c.field("EXP_RTSTA", x + 0x20, 4);
        // Completion timeout ranges A-D and its disable.
        c.init(x + EXP_DEVCAP2, 4, 0x1f).field("EXP_DEVCAP2", x + EXP_DEVCAP2, 4);
        c.writable(x + EXP_DEVCTL2, 2, 0x1f).field("EXP_DEVCTL2", x + EXP_DEVCTL2, 2);
        c.field("EXP_DEVSTA2", x + EXP_DEVCTL2 + 2, 2);
        c.init(x + EXP_LNKCAP2, 4, 0x1e).field("EXP_LNKCAP2", x + EXP_LNKCAP2, 4);
        // Target link speed, enter compliance, hardware autonomous speed disable: sticky (RWS).
        c.init(x + EXP_LNKCTL2, 2, 4).writable(x + EXP_LNKCTL2, 2, 0x3f).sticky(x + EXP_LNKCTL2, 2, 0x3f)
                .field("EXP_LNKCTL2", x + EXP_LNKCTL2, 2);
        c.field("EXP_LNKSTA2", x + EXP_LNKSTA2, 2);
    }

    /** The extended capabilities: AER, then the Device Serial Number. */
    private void defineExtendedCapabilities() {
        PciConfigSpace c = config;
        // AER (v2), endpoint part: status RW1CS, masks and severity RWS, header log ROS.
        int a = AER_CAP;
        c.init(a, 4, extCapHeader(EXT_CAP_ID_ERR, 2, DSN_CAP)).field("AER_HEADER", a, 4);
        c.writeOneToClear(a + ERR_UNCOR_STATUS, 4, ERR_UNC_DEFINED).sticky(a + ERR_UNCOR_STATUS, 4, ERR_UNC_DEFINED)
                .field("AER_UNCOR_STATUS", a + ERR_UNCOR_STATUS, 4);
        c.writable(a + ERR_UNCOR_MASK, 4, ERR_UNC_DEFINED).sticky(a + ERR_UNCOR_MASK, 4, ERR_UNC_DEFINED)
                .field("AER_UNCOR_MASK", a + ERR_UNCOR_MASK, 4);
        c.init(a + ERR_UNCOR_SEVER, 4, ERR_UNC_SEVER_DEFAULT).writable(a + ERR_UNCOR_SEVER, 4, ERR_UNC_DEFINED)
                .sticky(a + ERR_UNCOR_SEVER, 4, ERR_UNC_DEFINED).field("AER_UNCOR_SEVER", a + ERR_UNCOR_SEVER, 4);
        c.writeOneToClear(a + ERR_COR_STATUS, 4, ERR_COR_DEFINED).sticky(a + ERR_COR_STATUS, 4, ERR_COR_DEFINED)
                .field("AER_COR_STATUS", a + ERR_COR_STATUS, 4);
        c.init(a + ERR_COR_MASK, 4, ERR_COR_ADV_NFAT).writable(a + ERR_COR_MASK, 4, ERR_COR_DEFINED)
                .sticky(a + ERR_COR_MASK, 4, ERR_COR_DEFINED).field("AER_COR_MASK", a + ERR_COR_MASK, 4);
        c.sticky(a + ERR_CAP, 4, 0x1f).field("AER_CAP", a + ERR_CAP, 4);
        for (int i = 0; i < 4; i++) {
            c.sticky(a + ERR_HEADER_LOG + 4 * i, 4, 0xffff_ffffL).field("AER_HEADER_LOG" + i,
                    a + ERR_HEADER_LOG + 4 * i, 4);
        }

        // Device Serial Number (pci_get_dsn: the dword at +4 is the low half).
        c.init(DSN_CAP, 4, extCapHeader(EXT_CAP_ID_DSN, 1, 0)).field("DSN_HEADER", DSN_CAP, 4);
        c.init(DSN_CAP + 4, 4, serialNumber).field("DSN_LOW", DSN_CAP + 4, 4);
        c.init(DSN_CAP + 8, 4, serialNumber >>> 32).field("DSN_HIGH", DSN_CAP + 8, 4);
    }

    private void capHeader(String name, int at, int id, int next) {
        config.init(at + CAP_LIST_ID, 1, id).field(name + "_CAP_ID", at + CAP_LIST_ID, 1);
        config.init(at + CAP_LIST_NEXT, 1, next).field(name + "_CAP_NEXT", at + CAP_LIST_NEXT, 1);
    }

    /** A 64-bit memory BAR of {@code size} bytes at BAR {@code n} and {@code n + 1}: the address bits above the size
     * writable, the type bits read-only, so that writing all-ones reads back the size mask. */
    private void bar64(int n, long size) {
        long addressMask = ~(size - 1);
        config.init(baseAddress(n), 4, BAR_TYPE).writable(baseAddress(n), 4, addressMask & 0xffff_fff0L)
                .field("BAR" + n, baseAddress(n), 4);
        config.writable(baseAddress(n + 1), 4, addressMask >>> 32).field("BAR" + (n + 1), baseAddress(n + 1), 4);
    }

    /** PMCSR: D1 and D2 are not supported (PMC says so): a write asking for one leaves the state as it was. */
    private void powerStateWritten(int written, int writtenBytes, int before) {
        int at = PM_CAP + PM_CTRL;
        int state = config.read(at, 2) & PM_CTRL_STATE_MASK;
        if (state == 1 || state == 2) {
            config.deviceSet(at, 2, (config.read(at, 2) & ~PM_CTRL_STATE_MASK) | (before & PM_CTRL_STATE_MASK));
        }
    }

    /** DEVCTL: Initiate FLR written as 1 resets the function (drivers/pci/pci.c pcie_flr). */
    private void devctlWritten(int written, int writtenBytes, int before) {
        if ((written & writtenBytes & EXP_DEVCTL_BCR_FLR) != 0) {
            functionLevelReset();
        }
    }

    // --- configuration space

    /**
     * Reads {@code size} (1, 2 or 4) bytes of configuration space at {@code offset}, little-endian. Bytes outside
     * the 4 KiB read 0; another size answers 0.
     */
    public int configRead(int offset, int size) {
        return config.read(offset, size);
    }

    /** Copies {@code length} bytes of configuration space from {@code offset} (the transport's 4096-byte read). */
    public void configRead(int offset, byte[] into, int intoOffset, int length) {
        config.read(offset, into, intoOffset, length);
    }

    /** A guest configuration write (every one QEMU forwards, BAR sizing included): masks, trace, side effects. */
    public void configWrite(int offset, int size, int value) {
        config.write(offset, size, value);
    }

    /** The configuration table itself (tests, diagnostics). */
    public PciConfigSpace config() {
        return config;
    }

    // --- BARs

    /** The size of BAR {@code bar}: 0 for the BARs that do not exist and the upper halves of the 64-bit ones. */
    public long barSize(int bar) {
        return switch (bar) {
            case BAR_REGISTERS -> BAR0_SIZE;
            case BAR_MSIX -> BAR3_SIZE;
            default -> 0;
        };
    }

    public boolean bar64(int bar) {
        return bar == BAR_REGISTERS || bar == BAR_MSIX;
    }

    public boolean barPrefetchable(int bar) {
        return bar64(bar);
    }

    /** A read of {@code size} bytes at {@code offset} in BAR {@code bar}; see the class comment for the rules. */
    public long barRead(int bar, long offset, int size) {
        if (!accessFits(bar, offset, size)) {
            refused(bar, offset, size, "read", 0);
            return 0;
        }
        switch (size) {
            case 8:
                return (dword(bar, offset) & 0xffff_ffffL) | (dword(bar, offset + 4) & 0xffff_ffffL) << 32;
            case 4:
                return dword(bar, offset) & 0xffff_ffffL;
            default:
                int shift = (int) (offset & 3) * 8;
                long mask = size == 2 ? 0xffffL : 0xffL;
                return (dword(bar, offset & ~3L) >>> shift) & mask;
        }
    }

    /** A write of {@code size} bytes at {@code offset} in BAR {@code bar}; see the class comment for the rules. */
    public void barWrite(int bar, long offset, int size, long value) {
        if (!accessFits(bar, offset, size) || size < 4) {
            refused(bar, offset, size, size < 4 && accessFits(bar, offset, size) ? "partial_write" : "write", value);
            return;
        }
        putDword(bar, offset, (int) value);
        if (size == 8) {
            putDword(bar, offset + 4, (int) (value >>> 32));
        }
    }

    private boolean accessFits(int bar, long offset, int size) {
        long barSize = barSize(bar);
        if (barSize == 0 || offset < 0 || offset >= barSize || offset > barSize - size) {
            return false;
        }
        return switch (size) {
            case 1 -> true;
            case 2 -> (offset & 1) == 0;
            case 4, 8 -> (offset & 3) == 0;
            default -> false;
        };
    }

    private int dword(int bar, long offset) {
        return bar == BAR_REGISTERS ? bar0.read32(offset) : bar3.read32(offset);
    }

    private void putDword(int bar, long offset, int value) {
        if (bar == BAR_REGISTERS) {
            bar0.write32(offset, value);
        } else {
            bar3.write32(offset, value);
        }
    }

    private void refused(int bar, long offset, int size, String access, long value) {
        if (refusedAccesses++ < REFUSED_TRACED) {
            TraceEvent t = trace.start(TraceKind.PCI_BAR);
            if (t != null) {
                t.text("action", "refused").text("access", access).num("bar", bar).hex("off", offset)
                        .num("size", size).hex("val", value).emit();
            }
        }
    }

    /** BAR0 as one {@link dev.irdmaemu.fw.bus.Mmio} (32-bit accesses): what the transport's fast path may call. */
    public Bar0Dispatcher bar0() {
        return bar0;
    }

    public MsixBar msixBar() {
        return bar3;
    }

    // --- MSI-X

    public int msixVectors() {
        return MSIX_VECTORS;
    }

    /** Whether MSI-X is enabled (the capability's Enable bit, as the guest last wrote it). */
    public boolean msixEnabled() {
        return (config.read(MSIX_CAP + MSIX_FLAGS, 2) & MSIX_FLAGS_ENABLE) != 0;
    }

    /**
     * A message the RDMA (or, through GLINT_DYN_CTL, the ice) block sends on {@code vector}: to the transport when
     * MSI-X is enabled and the function may master the bus (an MSI-X message is a memory write); else dropped,
     * counted and traced. Per-vector and function masking are QEMU's (it emulates the table, vfio-user-facts §1.5).
     */
    private void deliver(int vector) {
        boolean master = (config.read(COMMAND, 2) & COMMAND_MASTER) != 0;
        if (!msixEnabled() || !master || vector < 0 || vector >= MSIX_VECTORS) {
            msixDropped++;
            TraceEvent t = trace.start(TraceKind.PCI_BAR);
            if (t != null) {
                t.text("action", "msix_dropped").num("vector", vector)
                        .text("reason", vector < 0 || vector >= MSIX_VECTORS ? "no_such_vector"
                                : !msixEnabled() ? "msix_disabled" : "bus_master_off").emit();
            }
            return;
        }
        msixSent++;
        TraceEvent t = trace.start(TraceKind.MSIX);
        if (t != null) {
            t.num("vector", vector).emit();
        }
        msix.raise(vector);
    }

    public long msixSent() {
        return msixSent;
    }

    public long msixDropped() {
        return msixDropped;
    }

    // --- resets

    /**
     * The transport's device reset (vfio-user DEVICE_RESET, on a machine reset): a conventional reset of the whole
     * function. Configuration space returns to power-on except its sticky bits; the ice block, the RDMA block and
     * the MSI-X table to power-on.
     */
    public void reset() {
        deviceResets++;
        resetFunction("device_reset", false);
    }

    /** Function-level reset, as Initiate FLR in DEVCTL asks: like {@link #reset}, the link settings kept too. */
    public void functionLevelReset() {
        flrs++;
        resetFunction("flr", true);
    }

    private void resetFunction(String cause, boolean flr) {
        int configBytes = config.reset(flr);
        bar3.reset();
        if (flr) {
            ice.functionLevelReset();
        } else {
            ice.reset();
        }
        rdma.reset();
        TraceEvent t = trace.start(TraceKind.FUNCTION_RESET);
        if (t != null) {
            t.text("block", "pci").text("cause", cause).num("config_bytes_reset", configBytes).emit();
        }
    }

    public long flrs() {
        return flrs;
    }

    public long deviceResets() {
        return deviceResets;
    }

    /** BAR accesses refused (size, alignment, range); the first {@value #REFUSED_TRACED} were traced. */
    public long refusedAccesses() {
        return refusedAccesses;
    }

    public long serialNumber() {
        return serialNumber;
    }

    public RdmaBlock rdma() {
        return rdma;
    }

    public FunctionBlock ice() {
        return ice;
    }
}
