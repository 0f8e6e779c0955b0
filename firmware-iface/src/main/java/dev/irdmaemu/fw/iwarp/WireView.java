package dev.irdmaemu.fw.iwarp;

import dev.irdmaemu.fw.NetworkOrder;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Shared plumbing of the iWARP flyweights: a window {@code [base, base + length)} onto a Chronicle store and
 * bounds-checked big-endian readers. Every reader answers 0 for bytes outside the window, so an accessor called
 * on a short or lying buffer never throws; {@code validate()} is what tells the caller whether a field is real.
 * Chronicle's native order is little-endian; the iWARP wire is network order (RFC 5040/5041/5044), so multi-byte
 * fields are byte-swapped explicitly.
 */
abstract class WireView {
    BytesStore<?, ?> store;
    long base;
    /** Bytes of the window that are really readable (the caller's length clamped to the store's readable range). */
    long length;
    int failedAt;

    final void attach(BytesStore<?, ?> s, long offset, long len) {
        store = s;
        base = offset;
        failedAt = -1;
        if (s == null || offset < 0 || len <= 0) {
            length = 0;
            return;
        }
        length = NetworkOrder.usableLength(s, offset, len);
    }

    final boolean has(long rel, long n) {
        return rel >= 0 && n >= 0 && rel <= length - n;
    }

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

    final <C extends Enum<C>> C fail(C check, long rel) {
        failedAt = (int) Math.max(0, Math.min(rel, Integer.MAX_VALUE));
        return check;
    }
}
