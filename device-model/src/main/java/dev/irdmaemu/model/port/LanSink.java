package dev.irdmaemu.model.port;

import net.openhft.chronicle.bytes.BytesStore;

/** Frames the RDMA block does not take: what the E810 would hand to the LAN (ice) queues. */
@FunctionalInterface
public interface LanSink {
    LanSink NONE = (store, offset, length) -> { };

    void frame(BytesStore<?, ?> store, long offset, int length);
}
