package dev.irdmaemu.bridge.vfiouser;

/**
 * How the device raises interrupts through the client's eventfds (vfio-user.rst "VFIO_USER_DEVICE_SET_IRQS",
 * typical operation: write an 8-byte 1 to the vector's eventfd; libvfio-user lib/irq.c vfu_irq_trigger). Any
 * thread. Masking is not the server's business: QEMU emulates the MSI-X table and its mask bits itself.
 */
public interface VfioUserInterrupts {
    /** Signals MSI-X vector {@code vector}; false (counted, nothing written) when no eventfd is assigned to it. */
    boolean raiseMsix(int vector);

    /** Signals the error interrupt (vfio's ERR index); false when the client gave no eventfd. */
    boolean raiseError();
}
