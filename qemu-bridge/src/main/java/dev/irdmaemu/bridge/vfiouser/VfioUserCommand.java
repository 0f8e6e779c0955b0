package dev.irdmaemu.bridge.vfiouser;

/** Command numbers (vfio-user.rst "Commands"; QEMU hw/vfio-user/protocol.h). */
public final class VfioUserCommand {
    public static final int VERSION = 1;
    public static final int DMA_MAP = 2;
    public static final int DMA_UNMAP = 3;
    public static final int DEVICE_GET_INFO = 4;
    public static final int DEVICE_GET_REGION_INFO = 5;
    public static final int DEVICE_GET_REGION_IO_FDS = 6;
    public static final int DEVICE_GET_IRQ_INFO = 7;
    public static final int DEVICE_SET_IRQS = 8;
    public static final int REGION_READ = 9;
    public static final int REGION_WRITE = 10;
    public static final int DMA_READ = 11;
    public static final int DMA_WRITE = 12;
    public static final int DEVICE_RESET = 13;
    public static final int DIRTY_PAGES = 14;
    public static final int REGION_WRITE_MULTI = 15;
    public static final int DEVICE_FEATURE = 16;
    public static final int MIG_DATA_READ = 17;
    public static final int MIG_DATA_WRITE = 18;
    /** One past the largest command number named here; counters are indexed by command below it. */
    public static final int LIMIT = 19;

    private static final String[] NAMES = {"UNKNOWN", "VERSION", "DMA_MAP", "DMA_UNMAP", "DEVICE_GET_INFO",
        "DEVICE_GET_REGION_INFO", "DEVICE_GET_REGION_IO_FDS", "DEVICE_GET_IRQ_INFO", "DEVICE_SET_IRQS",
        "REGION_READ", "REGION_WRITE", "DMA_READ", "DMA_WRITE", "DEVICE_RESET", "DIRTY_PAGES",
        "REGION_WRITE_MULTI", "DEVICE_FEATURE", "MIG_DATA_READ", "MIG_DATA_WRITE"};

    private VfioUserCommand() {
    }

    /** The spec's name of {@code command}, or "UNKNOWN" (no allocation). */
    public static String name(int command) {
        return command > 0 && command < LIMIT ? NAMES[command] : NAMES[0];
    }
}
