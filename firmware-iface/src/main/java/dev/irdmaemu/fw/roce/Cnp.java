package dev.irdmaemu.fw.roce;

import dev.irdmaemu.fw.NetworkOrder;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The RoCEv2 Congestion Notification Packet of IBA Vol. 1 Annex A17 (the vendor captures the fact sheet cites
 * show the same): a BTH with opcode 0x81, P_Key 0xffff, BECN set, the DestQP of the QP whose traffic was marked
 * CE and PSN 0, then 16 reserved bytes, then the ICRC. This flyweight wraps the 16 reserved bytes; the BTH and the
 * ICRC are {@link RoceFrame}'s. {@link RoceFrameBuilder#cnp(int)} builds one. Reserved bytes are sent as zero and
 * not checked on receipt (IBA's rule for reserved fields), so {@link #reservedBytesZero()} only reports.
 */
public final class Cnp extends FixedLengthHeader<Cnp> {
    /** Bytes after the BTH, before the ICRC. */
    public static final int RESERVED_LENGTH = 16;
    public static final int P_KEY = Bth.DEFAULT_P_KEY;

    public Cnp() {
        super(RESERVED_LENGTH);
    }

    /** True when all 16 reserved bytes are 0, as a sender must write them. */
    public boolean reservedBytesZero() {
        return complete() && i64(0) == 0 && i64(8) == 0;
    }

    /** Writes the 16 zero bytes at absolute {@code offset}; answers 16. */
    public static int write(BytesStore<?, ?> store, long offset) {
        NetworkOrder.requireRange(store, offset, RESERVED_LENGTH);
        NetworkOrder.put64(store, offset, 0);
        NetworkOrder.put64(store, offset + 8, 0);
        return RESERVED_LENGTH;
    }
}
