package dev.irdmaemu.fw.pcap;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Something that watches a stream of Ethernet frames, e.g. a {@link PcapWriter}. A component that emits or
 * receives frames calls {@link #frame} once per frame; the tap must not keep a reference to the bytes after it
 * returns (the caller reuses its buffer).
 */
@FunctionalInterface
public interface FrameTap {
    /** A tap that ignores every frame. */
    FrameTap NONE = (timeNanos, store, offset, length) -> { };

    /**
     * One frame.
     *
     * @param timeNanos simulated time of the frame, in nanoseconds since the start of the simulation
     * @param store     the bytes holding the frame, from its destination MAC on (no preamble, no FCS)
     * @param offset    where the frame starts in {@code store}
     * @param length    the frame's length in bytes
     */
    void frame(long timeNanos, BytesStore<?, ?> store, long offset, int length);
}
