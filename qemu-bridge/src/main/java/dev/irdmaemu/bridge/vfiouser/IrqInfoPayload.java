package dev.irdmaemu.bridge.vfiouser;

/**
 * DEVICE_GET_IRQ_INFO (vfio-user.rst; linux/vfio.h struct vfio_irq_info), 16 bytes: argsz u32, flags u32
 * (1 EVENTFD, 2 MASKABLE, 4 AUTOMASKED, 8 NORESIZE), index u32, count u32.
 */
public final class IrqInfoPayload extends VfioArgszPayload<IrqInfoPayload> {
    public static final int LENGTH = 16;
    public static final int FLAG_EVENTFD = 1;

    public int index() {
        return u32(INFO_INDEX);
    }

    public int count() {
        return u32(12);
    }

    public VfioUserStatus validate(int numIrqs) {
        return validateInfoRequest(LENGTH, LENGTH, numIrqs);
    }

    /** NORESIZE stays unset: QEMU then adds MSI-X vectors one SET_IRQS at a time (pci.c vfio_msix_vector_do_use). */
    public int writeReply(int flags, int count) {
        int index = index();
        buf.putInt(AT, LENGTH).putInt(AT + 4, flags).putInt(AT + 8, index).putInt(AT + 12, count);
        return LENGTH;
    }
}
