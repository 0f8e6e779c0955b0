package dev.irdmaemu.bridge.vfiouser;

import java.nio.ByteBuffer;

/**
 * DEVICE_GET_INFO (vfio-user.rst "VFIO_USER_DEVICE_GET_INFO"; linux/vfio.h struct vfio_device_info), 16 bytes:
 * argsz u32, flags u32 (1 RESET, 2 PCI), num_regions u32, num_irqs u32. The request carries argsz only.
 */
public final class DeviceInfoPayload {
    public static final int LENGTH = 16;
    public static final int FLAG_RESET = 1;
    public static final int FLAG_PCI = 2;
    private static final int AT = VfioUserHeader.SIZE;

    private ByteBuffer buf;
    private int length;

    public DeviceInfoPayload wrap(ByteBuffer buffer, int payloadLength) {
        this.buf = buffer;
        this.length = payloadLength;
        return this;
    }

    public int argsz() {
        return buf.getInt(AT);
    }

    public int flags() {
        return buf.getInt(AT + 4);
    }

    public int numRegions() {
        return buf.getInt(AT + 8);
    }

    public int numIrqs() {
        return buf.getInt(AT + 12);
    }

    public VfioUserStatus validate() {
        if (length != LENGTH) {
            return VfioUserStatus.BAD_SIZE;
        }
        return Integer.compareUnsigned(argsz(), LENGTH) < 0 ? VfioUserStatus.BAD_ARGSZ : VfioUserStatus.OK;
    }

    public int writeReply(int flags, int numRegions, int numIrqs) {
        buf.putInt(AT, LENGTH).putInt(AT + 4, flags).putInt(AT + 8, numRegions).putInt(AT + 12, numIrqs);
        return LENGTH;
    }
}
