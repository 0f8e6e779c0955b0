package dev.irdmaemu.fw.roce;

import dev.irdmaemu.fw.NetworkOrder;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over the 28-byte Atomic Extended Transport Header of COMPARE SWAP and FETCH ADD (IBA Vol. 1 §9.3.5;
 * rxe_hdr.h struct rxe_atmeth): virtual address (8), R_Key (4), swap or add data (8), compare data (8),
 * big-endian. Accessors read 0 outside the wrapped bytes.
 */
public final class AtomicEth extends RemoteAddressHeader<AtomicEth> {
    public static final int LENGTH = 28;
    public static final int OFF_SWAP_ADD = 12;
    public static final int OFF_COMPARE = 20;

    public AtomicEth() {
        super(LENGTH);
    }

    /** The swap value of COMPARE SWAP, the addend of FETCH ADD. */
    public long swapOrAdd() {
        return i64(OFF_SWAP_ADD);
    }

    public long compare() {
        return i64(OFF_COMPARE);
    }

    /** Writes the header at absolute {@code offset}; answers 28. */
    public static int write(BytesStore<?, ?> store, long offset, long virtualAddress, int remoteKey, long swapOrAdd,
                            long compare) {
        NetworkOrder.requireRange(store, offset, LENGTH);
        writeRemoteAddress(store, offset, virtualAddress, remoteKey);
        NetworkOrder.put64(store, offset + OFF_SWAP_ADD, swapOrAdd);
        NetworkOrder.put64(store, offset + OFF_COMPARE, compare);
        return LENGTH;
    }
}
