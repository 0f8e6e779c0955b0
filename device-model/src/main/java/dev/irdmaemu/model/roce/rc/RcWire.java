package dev.irdmaemu.model.roce.rc;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Where the RC transport's frames go: the port's transmit side in the model, an in-memory cable in tests. The frame
 * (Ethernet to ICRC, no FCS) lies in the engine's transmit buffer only for the call: a sink that keeps it copies it.
 */
@FunctionalInterface
public interface RcWire {
    void transmit(BytesStore<?, ?> frame, long offset, int length);
}
