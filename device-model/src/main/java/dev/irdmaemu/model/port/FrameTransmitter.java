package dev.irdmaemu.model.port;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * The transmit side of the Ethernet port: where frames leave the device (e.g. {@code fw.wire.LinkPort::transmit}).
 * The bytes are valid only during the call.
 */
@FunctionalInterface
public interface FrameTransmitter {
    FrameTransmitter NONE = (store, offset, length) -> { };

    void transmit(BytesStore<?, ?> store, long offset, int length);
}
