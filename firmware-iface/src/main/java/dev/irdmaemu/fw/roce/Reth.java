package dev.irdmaemu.fw.roce;

import dev.irdmaemu.fw.NetworkOrder;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over the 16-byte RDMA Extended Transport Header (IBA Vol. 1 §9.3.4; rxe_hdr.h struct rxe_reth):
 * virtual address (8), R_Key (4), DMA length (4, the whole message's length), big-endian. It follows the BTH of
 * RDMA WRITE FIRST/ONLY and RDMA READ REQUEST. Accessors read 0 outside the wrapped bytes.
 */
public final class Reth extends RemoteAddressHeader<Reth> {
    public static final int LENGTH = 16;
    public static final int OFF_DMA_LENGTH = 12;

    public Reth() {
        super(LENGTH);
    }

    /** Unsigned 32 bits: the length of the whole RDMA message. */
    public long dmaLength() {
        return u32(OFF_DMA_LENGTH);
    }

    /** Writes the header at absolute {@code offset}; answers 16. */
    public static int write(BytesStore<?, ?> store, long offset, long virtualAddress, int remoteKey, int dmaLength) {
        NetworkOrder.requireRange(store, offset, LENGTH);
        writeRemoteAddress(store, offset, virtualAddress, remoteKey);
        NetworkOrder.put32(store, offset + OFF_DMA_LENGTH, dmaLength);
        return LENGTH;
    }
}
