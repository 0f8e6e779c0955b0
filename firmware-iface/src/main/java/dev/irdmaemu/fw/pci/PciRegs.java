package dev.irdmaemu.fw.pci;

/**
 * PCI and PCI Express configuration-space offsets and bits, as include/uapi/linux/pci_regs.h names them (the names
 * here drop the {@code PCI_} prefix where the kernel's would repeat the class name). Capability-relative offsets are
 * relative to the capability's header. These are the facts the guest's pci core and ice read: drivers/pci/pci.c
 * pcie_flr sets {@link #EXP_DEVCTL_BCR_FLR} after checking {@link #EXP_DEVCAP_FLR}, waits 100 ms, then polls a
 * config read until it no longer answers all-ones (pci_dev_wait); pci_get_dsn reads the two dwords after the
 * {@link #EXT_CAP_ID_DSN} header.
 */
public final class PciRegs {
    private PciRegs() {
    }

    /** Bytes of a PCI Express function's configuration space (PCI_CFG_SPACE_EXP_SIZE). */
    public static final int CFG_SPACE_EXP_SIZE = 4096;
    /** Bytes of the conventional part, where the standard capabilities live (PCI_CFG_SPACE_SIZE). */
    public static final int CFG_SPACE_SIZE = 256;

    // --- type-0 header
    public static final int VENDOR_ID = 0x00;
    public static final int DEVICE_ID = 0x02;
    public static final int COMMAND = 0x04;
    public static final int COMMAND_IO = 0x1;
    public static final int COMMAND_MEMORY = 0x2;
    public static final int COMMAND_MASTER = 0x4;
    public static final int COMMAND_PARITY = 0x40;
    public static final int COMMAND_SERR = 0x100;
    public static final int COMMAND_INTX_DISABLE = 0x400;
    public static final int STATUS = 0x06;
    public static final int STATUS_CAP_LIST = 0x10;
    public static final int STATUS_PARITY = 0x100;
    public static final int STATUS_SIG_TARGET_ABORT = 0x800;
    public static final int STATUS_REC_TARGET_ABORT = 0x1000;
    public static final int STATUS_REC_MASTER_ABORT = 0x2000;
    public static final int STATUS_SIG_SYSTEM_ERROR = 0x4000;
    public static final int STATUS_DETECTED_PARITY = 0x8000;
    public static final int CLASS_REVISION = 0x08;
    public static final int REVISION_ID = 0x08;
    public static final int CLASS_PROG = 0x09;
    public static final int CLASS_DEVICE = 0x0a;
    public static final int CACHE_LINE_SIZE = 0x0c;
    public static final int LATENCY_TIMER = 0x0d;
    public static final int HEADER_TYPE = 0x0e;
    public static final int HEADER_TYPE_NORMAL = 0;
    public static final int BIST = 0x0f;
    public static final int BASE_ADDRESS_0 = 0x10;
    public static final int BASE_ADDRESS_5 = 0x24;
    public static final int BASE_ADDRESS_SPACE_IO = 0x01;
    public static final int BASE_ADDRESS_MEM_TYPE_64 = 0x04;
    public static final int BASE_ADDRESS_MEM_PREFETCH = 0x08;
    public static final int CARDBUS_CIS = 0x28;
    public static final int SUBSYSTEM_VENDOR_ID = 0x2c;
    public static final int SUBSYSTEM_ID = 0x2e;
    public static final int ROM_ADDRESS = 0x30;
    public static final int CAPABILITY_LIST = 0x34;
    public static final int INTERRUPT_LINE = 0x3c;
    public static final int INTERRUPT_PIN = 0x3d;

    /** The config offset of BAR {@code n} (0..5). */
    public static int baseAddress(int n) {
        return BASE_ADDRESS_0 + 4 * n;
    }

    // --- capability headers
    public static final int CAP_LIST_ID = 0;
    public static final int CAP_LIST_NEXT = 1;
    public static final int CAP_ID_PM = 0x01;
    public static final int CAP_ID_EXP = 0x10;
    public static final int CAP_ID_MSIX = 0x11;

    // --- Power Management
    public static final int PM_PMC = 2;
    public static final int PM_CTRL = 4;
    public static final int PM_CTRL_STATE_MASK = 0x0003;
    public static final int PM_CTRL_NO_SOFT_RESET = 0x0008;
    public static final int PM_SIZEOF = 8;
    public static final int PM_D0 = 0;
    public static final int PM_D3HOT = 3;

    // --- MSI-X
    public static final int MSIX_FLAGS = 2;
    public static final int MSIX_FLAGS_QSIZE = 0x07ff;
    public static final int MSIX_FLAGS_MASKALL = 0x4000;
    public static final int MSIX_FLAGS_ENABLE = 0x8000;
    public static final int MSIX_TABLE = 4;
    public static final int MSIX_TABLE_BIR = 0x7;
    public static final int MSIX_PBA = 8;
    public static final int MSIX_PBA_BIR = 0x7;
    public static final int MSIX_CAP_SIZEOF = 12;
    /** Bytes per MSI-X table entry (PCI_MSIX_ENTRY_SIZE) and the vector-control dword's offset in it. */
    public static final int MSIX_ENTRY_SIZE = 16;
    public static final int MSIX_ENTRY_VECTOR_CTRL = 12;
    public static final int MSIX_ENTRY_CTRL_MASKBIT = 0x1;

    // --- PCI Express capability
    public static final int EXP_FLAGS = 0x02;
    public static final int EXP_FLAGS_VERS = 0x000f;
    public static final int EXP_FLAGS_TYPE = 0x00f0;
    public static final int EXP_TYPE_ENDPOINT = 0x0;
    public static final int EXP_DEVCAP = 0x04;
    public static final int EXP_DEVCAP_PAYLOAD = 0x00000007;
    public static final int EXP_DEVCAP_EXT_TAG = 0x00000020;
    public static final int EXP_DEVCAP_RBER = 0x00008000;
    public static final int EXP_DEVCAP_FLR = 0x10000000;
    public static final int EXP_DEVCTL = 0x08;
    public static final int EXP_DEVCTL_PAYLOAD = 0x00e0;
    public static final int EXP_DEVCTL_RELAX_EN = 0x0010;
    public static final int EXP_DEVCTL_NOSNOOP_EN = 0x0800;
    public static final int EXP_DEVCTL_READRQ = 0x7000;
    public static final int EXP_DEVCTL_BCR_FLR = 0x8000;
    public static final int EXP_DEVSTA = 0x0a;
    public static final int EXP_DEVSTA_CED = 0x0001;
    public static final int EXP_DEVSTA_NFED = 0x0002;
    public static final int EXP_DEVSTA_FED = 0x0004;
    public static final int EXP_DEVSTA_URD = 0x0008;
    public static final int EXP_LNKCAP = 0x0c;
    public static final int EXP_LNKCTL = 0x10;
    public static final int EXP_LNKCTL_ASPMC = 0x0003;
    public static final int EXP_LNKCTL_RCB = 0x0008;
    public static final int EXP_LNKCTL_CCC = 0x0040;
    public static final int EXP_LNKCTL_ES = 0x0080;
    public static final int EXP_LNKCTL_HAWD = 0x0200;
    public static final int EXP_LNKSTA = 0x12;
    public static final int EXP_LNKSTA_SLC = 0x1000;
    public static final int EXP_DEVCAP2 = 0x24;
    public static final int EXP_DEVCTL2 = 0x28;
    public static final int EXP_LNKCAP2 = 0x2c;
    public static final int EXP_LNKCTL2 = 0x30;
    public static final int EXP_LNKSTA2 = 0x32;
    /**
     * Bytes a version-2 PCI Express capability spans: through Slot Status 2 at 0x3a (the spec's v2 layout; QEMU's
     * PCI_EXP_VER2_SIZEOF). pci_regs.h's PCI_CAP_EXP_ENDPOINT_SIZEOF_V2 (0x34, decimal 52 "v2 endpoints with link
     * end here": just past Link Status 2 at 0x32) is where an endpoint's defined registers end; the rest reads 0.
     */
    public static final int EXP_CAP_SIZEOF_V2 = 0x3c;

    // --- extended capabilities (from 0x100): header = id[15:0] | version[19:16] | next[31:20]
    public static final int EXT_CAP_START = 0x100;
    public static final int EXT_CAP_ID_ERR = 0x01;
    public static final int EXT_CAP_ID_DSN = 0x03;
    public static final int EXT_CAP_DSN_SIZEOF = 12;

    /** An extended capability header dword (PCI_EXT_CAP_ID / _VER / _NEXT decode it). */
    public static int extCapHeader(int id, int version, int next) {
        return (id & 0xffff) | (version & 0xf) << 16 | (next & 0xfff) << 20;
    }

    public static int extCapId(int header) {
        return header & 0xffff;
    }

    public static int extCapVersion(int header) {
        return (header >>> 16) & 0xf;
    }

    public static int extCapNext(int header) {
        return (header >>> 20) & 0xffc;
    }

    // --- Advanced Error Reporting (offsets relative to the AER header)
    public static final int ERR_UNCOR_STATUS = 0x04;
    public static final int ERR_UNCOR_MASK = 0x08;
    public static final int ERR_UNCOR_SEVER = 0x0c;
    public static final int ERR_COR_STATUS = 0x10;
    public static final int ERR_COR_MASK = 0x14;
    public static final int ERR_CAP = 0x18;
    public static final int ERR_HEADER_LOG = 0x1c;
    /** Bytes of an endpoint's AER capability (PCI_ERR_ROOT_COMMAND, the first root-port-only register, is 0x2c). */
    public static final int ERR_ENDPOINT_SIZEOF = 0x2c;
    /** PCI_ERR_UNC_DLP | _SURPDN | _POISON_TLP | _FCP | _COMP_TIME | _COMP_ABORT | _UNX_COMP | _RX_OVER |
     * _MALF_TLP | _ECRC | _UNSUP | _ACSV. */
    public static final int ERR_UNC_DEFINED = 0x003f_f030;
    /** The uncorrectable errors that are fatal at power-on (DLP, SURPDN, FCP, RX_OVER, MALF_TLP). */
    public static final int ERR_UNC_SEVER_DEFAULT = 0x0006_2030;
    /** PCI_ERR_COR_RCVR | _BAD_TLP | _BAD_DLLP | _REP_ROLL | _REP_TIMER | _ADV_NFAT. */
    public static final int ERR_COR_DEFINED = 0x0000_31c1;
    /** PCI_ERR_COR_ADV_NFAT: masked at power-on. */
    public static final int ERR_COR_ADV_NFAT = 0x0000_2000;
}
