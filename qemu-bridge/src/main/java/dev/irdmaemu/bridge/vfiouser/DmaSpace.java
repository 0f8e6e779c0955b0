package dev.irdmaemu.bridge.vfiouser;

import dev.irdmaemu.fw.bus.HostMemory;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The guest memory a vfio-user device may reach by DMA: the client's directly mapped windows, published in two
 * {@link HostMemory} views. {@link #readable()} holds every window, {@link #writable()} only those mapped with
 * the WRITE flag, so read-only windows (QEMU maps ROM and PAM-shadowed ranges read-only) are enforced in
 * software: a device write there finds no region and fails like a write outside memory. Changed only on the
 * device's owner thread, between its accesses.
 *
 * <p>Windows the client mapped without a descriptor are reachable only by messages (VFIO_USER_DMA_READ/WRITE,
 * {@link MessageDma}): {@link #read} and {@link #write} copy through the direct windows first and through the
 * connection's messages otherwise. The model's own rings and buffers are zero-copy codecs over the direct windows
 * and never reach a message-only window; that is why the server still refuses guest RAM without a descriptor while
 * QEMU realizes the device ({@code VfioUserConnection}: every ring access would be a socket round trip under QEMU's
 * BQL, and the model's codecs need the bytes mapped).
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

    private volatile MessageDma messages;

    void attach(MessageDma m) {
        messages = m;
    }

    void detach(MessageDma m) {
        if (messages == m) {
            messages = null;
        }
    }

    /**
     * Copies {@code length} guest bytes at {@code address} into {@code dst[offset..]}: from a direct window, else
     * by DMA_READ messages from a message-only window.
     */
    public MessageDma.Result read(long address, byte[] dst, int offset, int length) {
        if (offset < 0 || length < 0 || offset > dst.length - length) {
            return MessageDma.Result.OUTSIDE_WINDOWS;
        }
        int r = readable.find(address, length);
        if (r >= 0) {
            BytesStore<?, ?> s = readable.store(r);
            long at = readable.offset(r, address);
            for (int i = 0; i < length; i++) {
                dst[offset + i] = s.readByte(at + i);
            }
            return MessageDma.Result.OK;
        }
        MessageDma m = messages;
        return m == null ? MessageDma.Result.OUTSIDE_WINDOWS : m.read(address, dst, offset, length);
    }

    /** Copies {@code src[offset..offset + length)} to guest memory: a writable direct window, else DMA_WRITE. */
    public MessageDma.Result write(long address, byte[] src, int offset, int length) {
        if (offset < 0 || length < 0 || offset > src.length - length) {
            return MessageDma.Result.OUTSIDE_WINDOWS;
        }
        int r = writable.find(address, length);
        if (r >= 0) {
            BytesStore<?, ?> s = writable.store(r);
            long at = writable.offset(r, address);
            for (int i = 0; i < length; i++) {
                s.writeByte(at + i, src[offset + i]);
            }
            return MessageDma.Result.OK;
        }
        MessageDma m = messages;
        return m == null ? MessageDma.Result.OUTSIDE_WINDOWS : m.write(address, src, offset, length);
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
