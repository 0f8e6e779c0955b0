package dev.irdmaemu.bridge.vfiouser;

/**
 * DEVICE_GET_INFO (vfio-user.rst "VFIO_USER_DEVICE_GET_INFO"; linux/vfio.h struct vfio_device_info), 16 bytes:
 * argsz u32, flags u32 (1 RESET, 2 PCI), num_regions u32, num_irqs u32. The request carries argsz only.
 */
public final class DeviceInfoPayload extends VfioArgszPayload<DeviceInfoPayload> {
    public static final int LENGTH = 16;
    public static final int FLAG_RESET = 1;
    public static final int FLAG_PCI = 2;

    public int numRegions() {
        return u32(8);
    }

    public int numIrqs() {
        return u32(12);
    }

    public VfioUserStatus validate() {
        return sized(LENGTH, LENGTH);
    }

    public int writeReply(int flags, int numRegions, int numIrqs) {
        buf.putInt(AT, LENGTH).putInt(AT + 4, flags).putInt(AT + 8, numRegions).putInt(AT + 12, numIrqs);
        return LENGTH;
    }
}
