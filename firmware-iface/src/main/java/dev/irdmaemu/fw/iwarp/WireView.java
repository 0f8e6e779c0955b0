package dev.irdmaemu.fw.iwarp;

import dev.irdmaemu.fw.ByteWindow;
import dev.irdmaemu.fw.NetworkOrder;

/**
 * Shared plumbing of the iWARP flyweights: bounds-checked big-endian readers over a {@link ByteWindow}. Every reader answers 0 for bytes outside the window, so an accessor called
 * on a short or lying buffer never throws; {@code validate()} is what tells the caller whether a field is real.
 * Chronicle's native order is little-endian; the iWARP wire is network order (RFC 5040/5041/5044), so multi-byte
 * fields are byte-swapped explicitly.
 */
abstract class WireView extends ByteWindow {
    final int u8(long rel) {
        return has(rel, 1) ? store.readUnsignedByte(base + rel) : 0;
    }

    final int u16(long rel) {
        return has(rel, 2) ? NetworkOrder.u16(store, base + rel) : 0;
    }

    final int u32(long rel) {
        return has(rel, 4) ? NetworkOrder.i32(store, base + rel) : 0;
    }

    final long u64(long rel) {
        return has(rel, 8) ? NetworkOrder.i64(store, base + rel) : 0L;
    }
}
