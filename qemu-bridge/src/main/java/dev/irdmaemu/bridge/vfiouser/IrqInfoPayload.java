package dev.irdmaemu.bridge.vfiouser;

import java.nio.ByteBuffer;

/**
 * DEVICE_GET_IRQ_INFO (vfio-user.rst; linux/vfio.h struct vfio_irq_info), 16 bytes: argsz u32, flags u32
 * (1 EVENTFD, 2 MASKABLE, 4 AUTOMASKED, 8 NORESIZE), index u32, count u32.
 */
public final class IrqInfoPayload {
    public static final int LENGTH = 16;
    public static final int FLAG_EVENTFD = 1;
    private static final int AT = VfioUserHeader.SIZE;

    private ByteBuffer buf;
    private int length;

    public IrqInfoPayload wrap(ByteBuffer buffer, int payloadLength) {
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

    public int index() {
        return buf.getInt(AT + 8);
    }

    public int count() {
        return buf.getInt(AT + 12);
    }

    public VfioUserStatus validate(int numIrqs) {
        if (length != LENGTH) {
            return VfioUserStatus.BAD_SIZE;
        }
        if (Integer.compareUnsigned(argsz(), LENGTH) < 0) {
            return VfioUserStatus.BAD_ARGSZ;
        }
        return Integer.compareUnsigned(index(), numIrqs) >= 0 ? VfioUserStatus.BAD_INDEX : VfioUserStatus.OK;
    }

    /** NORESIZE stays unset: QEMU then adds MSI-X vectors one SET_IRQS at a time (pci.c vfio_msix_vector_do_use). */
    public int writeReply(int flags, int count) {
        int index = index();
        buf.putInt(AT, LENGTH).putInt(AT + 4, flags).putInt(AT + 8, index).putInt(AT + 12, count);
        return LENGTH;
    }
}
