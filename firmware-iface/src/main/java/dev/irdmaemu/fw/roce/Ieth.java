package dev.irdmaemu.fw.roce;

import dev.irdmaemu.fw.NetworkOrder;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over the 4-byte Invalidate Extended Transport Header (IBA Vol. 1 §9.3.9; rxe_hdr.h struct rxe_ieth)
 * of SEND LAST/ONLY WITH INVALIDATE: the R_Key the responder invalidates. Accessors read 0 outside the wrapped
 * bytes.
 */
public final class Ieth extends FixedLengthHeader<Ieth> {
    public static final int LENGTH = 4;

    public Ieth() {
        super(LENGTH);
    }

    public int remoteKey() {
        return i32(0);
    }

    /** Writes the header at absolute {@code offset}; answers 4. */
    public static int write(BytesStore<?, ?> store, long offset, int remoteKey) {
        NetworkOrder.requireRange(store, offset, LENGTH);
        NetworkOrder.put32(store, offset, remoteKey);
        return LENGTH;
    }
}
