package dev.irdmaemu.bridge.vfiouser;

/**
 * The PCI function behind a {@link VfioUserServer}, as the protocol needs it: the six BARs' sizes, config-space
 * and BAR accesses, the MSI-X vector count, reset, and the guest's DMA windows. Every method except
 * {@link #attach} and the sizes runs on the device's owner thread (the model's loop, or the caller in tests; see
 * {@link VfioUserServer#start}), one at a time and in the client's order.
 *
 * <p>Regions follow vfio-pci's numbering (linux/vfio.h VFIO_PCI_*_REGION_INDEX): 0-5 the BARs, 6 the ROM, 7 the
 * config space ({@value #CONFIG_SIZE} bytes: QEMU drops the Express flag of a smaller one), 8 VGA. ROM and VGA are
 * absent: the device's config space must read 0 at 0x30 and ignore writes there.
 */
public interface VfioUserFunction {
    /** The config region's size: a PCIe function's whole extended config space. */
    int CONFIG_SIZE = 4096;

    /** A short name for logs. */
    String name();

    /**
     * BAR {@code bar}'s size (0-5): a power of two, or 0 when the BAR is absent or is the upper half of a 64-bit
     * BAR (QEMU asserts is_power_of_2 in hw/pci/pci.c pci_register_bar and aborts otherwise). Constant.
     */
    long barSize(int bar);

    /** Reads {@code size} (1, 2 or 4) bytes of config space at {@code offset}, little-endian. */
    int configRead(int offset, int size);

    /** Writes {@code size} (1, 2 or 4) bytes of config space; the device applies its own write masks. */
    void configWrite(int offset, int size, int value);

    /** Reads {@code size} (1, 2, 4 or 8) bytes at {@code offset} inside BAR {@code bar}. */
    long barRead(int bar, long offset, int size);

    /** Writes {@code size} (1, 2, 4 or 8) bytes at {@code offset} inside BAR {@code bar}. */
    void barWrite(int bar, long offset, int size, long value);

    /** The MSI-X table size (the vectors the client may give eventfds). Constant. */
    int msixVectors();

    /** Whether the function reports an error interrupt (vfio's ERR index, count 1); default yes. Constant. */
    default boolean errorInterrupt() {
        return true;
    }

    /** DEVICE_RESET (QEMU sends it on machine reset): back to the power-on state. */
    void reset();

    /**
     * Called once when the server starts (on the caller's thread): where the device raises interrupts and finds
     * guest memory for its DMA. Both stay valid across clients.
     */
    default void attach(VfioUserInterrupts interrupts, DmaSpace dma) {
    }

    /** A DMA window became available (already published in the {@link DmaSpace}). */
    default void dmaWindowAdded(DmaWindow window) {
    }

    /**
     * A DMA window is going away (already removed from the {@link DmaSpace}): drop every reference into it now;
     * its memory is unmapped when this returns (vfio-user.rst DMA_UNMAP: release before replying).
     */
    default void dmaWindowRemoved(DmaWindow window) {
    }
}
