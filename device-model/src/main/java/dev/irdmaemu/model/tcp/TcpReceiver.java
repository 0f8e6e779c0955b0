package dev.irdmaemu.model.tcp;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * The upper layer (MPA/DDP/RDMAP) on top of an {@link OffloadedTcp}: in-order stream bytes, and the free space
 * the engine advertises as its receive window.
 */
public interface TcpReceiver {
    /**
     * The next {@code length} bytes of the stream, in order, exactly once. The bytes are valid only during the
     * call. The engine never delivers more than {@link #freeSpace()} answered when the data was accepted.
     */
    void deliver(BytesStore<?, ?> store, long offset, int length);

    /** Bytes the upper layer can take now; the engine advertises it as the receive window (RFC 9293 §3.8.6). */
    long freeSpace();

    /**
     * A data segment beginning beyond RCV.NXT arrived (the E810 hands these to the IEQ, irdma puda.c). The
     * engine has already counted it and either buffered it for reassembly or dropped it; this hook is for
     * observation only. Bytes valid during the call.
     */
    default void outOfOrder(long sequence, BytesStore<?, ?> store, long offset, int length) {
    }
}
