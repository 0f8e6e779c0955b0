package dev.irdmaemu.fw.wire;

import net.openhft.chronicle.bytes.BytesStore;

/** The device side of a {@link LinkPort}: frames arriving from the wire. The bytes are valid only during the call. */
@FunctionalInterface
public interface FrameReceiver {
    void receive(BytesStore<?, ?> store, long offset, int length);
}
