package dev.irdmaemu.model.port;

import net.openhft.chronicle.bytes.BytesStore;

/** The port as the PUDA queues send through it: onto the wire, or back into its own receive path. */
public interface PudaWire {
    /** Sends one frame; answers its serialisation time in nanoseconds. */
    long send(BytesStore<?, ?> store, long offset, int length);

    /** Hands one frame to the port's own receive path (an AH with the loopback bit); the bytes are copied. */
    void loopback(BytesStore<?, ?> store, long offset, int length);
}
