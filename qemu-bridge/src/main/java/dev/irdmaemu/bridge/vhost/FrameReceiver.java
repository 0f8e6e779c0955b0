package dev.irdmaemu.bridge.vhost;

import net.openhft.chronicle.bytes.BytesStore;

/** Takes Ethernet frames (destination MAC on, no FCS). The bytes are only valid during the call. */
@FunctionalInterface
public interface FrameReceiver {
    void frame(BytesStore<?, ?> store, long offset, int length);
}
