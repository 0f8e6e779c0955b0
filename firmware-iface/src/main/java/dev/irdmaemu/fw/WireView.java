package dev.irdmaemu.fw;

/**
 * The network-order {@link ByteWindow}: the base of every wire codec (the frames of {@code fw.frame}, the iWARP
 * headers of {@code fw.iwarp}). Chronicle's native order is little-endian and the wire is network order, most
 * significant octet first (RFC 791 Appendix B; the iWARP headers of RFC 5040, 5041 and 5044 too), so multi-byte
 * fields are byte-swapped here, once. Every reader answers 0 for bytes outside
 * the window, so an accessor called on a short or lying buffer never throws; {@code validate()} is what tells the
 * caller whether a field is really there.
 */
public abstract class WireView extends ByteWindow {
    protected final int u8(long rel) {
        return has(rel, 1) ? NetworkOrder.u8(store, base + rel) : 0;
    }

    protected final int u16(long rel) {
        return has(rel, 2) ? NetworkOrder.u16(store, base + rel) : 0;
    }

    /** A 32-bit field as Java's int (addresses, STags: compared, not counted). */
    protected final int i32(long rel) {
        return has(rel, 4) ? NetworkOrder.i32(store, base + rel) : 0;
    }

    /** A 32-bit field unsigned (sequence numbers, timestamps). */
    protected final long u32(long rel) {
        return has(rel, 4) ? NetworkOrder.u32(store, base + rel) : 0L;
    }

    /** A MAC address, the first octet on the wire in bits 47..40. */
    protected final long u48(long rel) {
        return has(rel, 6) ? NetworkOrder.u48(store, base + rel) : 0L;
    }

    protected final long i64(long rel) {
        return has(rel, 8) ? NetworkOrder.i64(store, base + rel) : 0L;
    }
}
