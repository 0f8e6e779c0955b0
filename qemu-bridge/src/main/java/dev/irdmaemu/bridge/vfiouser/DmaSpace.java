package dev.irdmaemu.bridge.vfiouser;

import dev.irdmaemu.fw.bus.HostMemory;

/**
 * The guest memory a vfio-user device may reach by DMA: the client's directly mapped windows, published in two
 * {@link HostMemory} views. {@link #readable()} holds every window, {@link #writable()} only those mapped with
 * the WRITE flag, so read-only windows (QEMU maps ROM and PAM-shadowed ranges read-only) are enforced in
 * software: a device write there finds no region and fails like a write outside memory. Changed only on the
 * device's owner thread, between its accesses.
 */
public final class DmaSpace {
    private final HostMemory readable = new HostMemory();
    private final HostMemory writable = new HostMemory();

    /**
     * An empty space. A model built before its server (its DMA memory is a constructor argument) makes one and
     * passes it to {@link VfioUserServer#start(java.nio.file.Path, VfioUserFunction, java.util.concurrent.Executor,
     * DmaSpace)}; a model with a single memory for reads and writes gets {@link #writable()}, which leaves the
     * read-only windows (ROM shadows) out of its reach altogether.
     */
    public DmaSpace() {
    }

    /** Every directly mapped window: where device reads (descriptor fetches, Tx buffers) look. */
    public HostMemory readable() {
        return readable;
    }

    /** The writable windows only: where device writes (write-back, Rx buffers) go. */
    public HostMemory writable() {
        return writable;
    }

    void publish(DmaWindow w) {
        w.mapping().publish(readable, w.address());
        if (w.writable()) {
            try {
                w.mapping().publish(writable, w.address());
            } catch (IllegalArgumentException e) {
                w.mapping().unpublish(readable, w.address());
                throw e;
            }
        }
    }

    void unpublish(DmaWindow w) {
        w.mapping().unpublish(readable, w.address());
        if (w.writable()) {
            w.mapping().unpublish(writable, w.address());
        }
    }
}
