package dev.irdmaemu.fw.roce;

import dev.irdmaemu.fw.NetworkOrder;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The first 12 bytes the RDMA Extended Transport Header and the Atomic Extended Transport Header share (IBA Vol. 1
 * §9.3.4 and §9.3.5; rxe_hdr.h struct rxe_reth and struct rxe_atmeth): the remote virtual address (8) and the R_Key
 * that grants access to it (4), big-endian. {@link Reth} and {@link AtomicEth} add what follows.
 */
public abstract sealed class RemoteAddressHeader<H extends RemoteAddressHeader<H>> extends FixedLengthHeader<H>
        permits Reth, AtomicEth {
    public static final int OFF_VA = 0;
    public static final int OFF_R_KEY = 8;

    RemoteAddressHeader(int headerLength) {
        super(headerLength);
    }

    public final long virtualAddress() {
        return i64(OFF_VA);
    }

    public final int remoteKey() {
        return i32(OFF_R_KEY);
    }

    /** Writes the virtual address and R_Key at absolute {@code offset} (the caller checked the range). */
    static void writeRemoteAddress(BytesStore<?, ?> store, long offset, long virtualAddress, int remoteKey) {
        NetworkOrder.put64(store, offset + OFF_VA, virtualAddress);
        NetworkOrder.put32(store, offset + OFF_R_KEY, remoteKey);
    }
}
