package dev.irdmaemu.fw.roce;

import dev.irdmaemu.fw.NetworkOrder;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over the 8-byte Atomic Acknowledge Extended Transport Header (IBA Vol. 1 §9.3.7; rxe_hdr.h struct
 * rxe_atmack): the remote data as it was before the atomic operation, big-endian. It follows the AETH of an
 * ATOMIC ACKNOWLEDGE. Accessors read 0 outside the wrapped bytes.
 */
public final class AtomicAckEth extends FixedLengthHeader<AtomicAckEth> {
    public static final int LENGTH = 8;

    public AtomicAckEth() {
        super(LENGTH);
    }

    public long originalData() {
        return i64(0);
    }

    /** Writes the header at absolute {@code offset}; answers 8. */
    public static int write(BytesStore<?, ?> store, long offset, long originalData) {
        NetworkOrder.requireRange(store, offset, LENGTH);
        NetworkOrder.put64(store, offset, originalData);
        return LENGTH;
    }
}
