package dev.irdmaemu.fw.roce;

import dev.irdmaemu.fw.NetworkOrder;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over the 4-byte Immediate Data header (IBA Vol. 1 §9.3.8; rxe_hdr.h struct rxe_immdt) of the
 * "with immediate" SEND and RDMA WRITE packets: 32 bits handed to the receiver's completion as they are, in
 * network order. Accessors read 0 outside the wrapped bytes.
 */
public final class ImmDt extends FixedLengthHeader<ImmDt> {
    public static final int LENGTH = 4;

    public ImmDt() {
        super(LENGTH);
    }

    /** The immediate data, first wire byte in bits 31..24. */
    public int immediate() {
        return i32(0);
    }

    /** Writes the header at absolute {@code offset}; answers 4. */
    public static int write(BytesStore<?, ?> store, long offset, int immediate) {
        NetworkOrder.requireRange(store, offset, LENGTH);
        NetworkOrder.put32(store, offset, immediate);
        return LENGTH;
    }
}
