package dev.irdmaemu.fw.roce;

import dev.irdmaemu.fw.NetworkOrder;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over the 8-byte Datagram Extended Transport Header of UD packets (IBA Vol. 1 §9.3.3; rxe_hdr.h
 * struct rxe_deth): Q_Key (4), a reserved byte, source QP (24 bits), big-endian. Accessors read 0 outside the
 * wrapped bytes.
 */
public final class Deth extends FixedLengthHeader<Deth> {
    public static final int LENGTH = 8;
    public static final int OFF_Q_KEY = 0;
    public static final int OFF_SRC_QP = 4;
    /** IBA §10.2.5: a Q_Key with bit 31 set is privileged (the GSI's is 0x80010000). */
    public static final int GSI_Q_KEY = 0x8001_0000;

    public Deth() {
        super(LENGTH);
    }

    public int queueKey() {
        return i32(OFF_Q_KEY);
    }

    /** The reserved byte before SrcQP. */
    public int reserved() {
        return u8(OFF_SRC_QP);
    }

    public int sourceQp() {
        return i32(OFF_SRC_QP) & Bth.QPN_MASK;
    }

    /** Writes the header at absolute {@code offset}; answers 8. */
    public static int write(BytesStore<?, ?> store, long offset, int queueKey, int sourceQp) {
        NetworkOrder.requireRange(store, offset, LENGTH);
        NetworkOrder.put32(store, offset + OFF_Q_KEY, queueKey);
        NetworkOrder.put32(store, offset + OFF_SRC_QP, sourceQp & Bth.QPN_MASK);
        return LENGTH;
    }
}
