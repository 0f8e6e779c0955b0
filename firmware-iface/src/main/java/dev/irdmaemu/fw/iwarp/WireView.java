package dev.irdmaemu.fw.iwarp;

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
        long lo = s.start();
        long hi = s.readLimit();
        if (offset < lo || offset >= hi) {
            length = 0;
            return;
        }
        length = Math.min(len, hi - offset);
    }

    final boolean has(long rel, long n) {
        return rel >= 0 && n >= 0 && rel <= length - n;
    }

    final int u8(long rel) {
        return has(rel, 1) ? store.readUnsignedByte(base + rel) : 0;
    }

    final int u16(long rel) {
        return has(rel, 2) ? Short.toUnsignedInt(Short.reverseBytes(store.readShort(base + rel))) : 0;
    }

    final int u32(long rel) {
        return has(rel, 4) ? Integer.reverseBytes(store.readInt(base + rel)) : 0;
    }

    final long u64(long rel) {
        return has(rel, 8) ? Long.reverseBytes(store.readLong(base + rel)) : 0L;
    }

    final <C extends Enum<C>> C fail(C check, long rel) {
        failedAt = (int) Math.max(0, Math.min(rel, Integer.MAX_VALUE));
        return check;
    }

    static void put8(BytesStore<?, ?> s, long off, int v) {
        s.writeByte(off, (byte) v);
    }

    static void put16(BytesStore<?, ?> s, long off, int v) {
        s.writeShort(off, Short.reverseBytes((short) v));
    }

    static void put32(BytesStore<?, ?> s, long off, int v) {
        s.writeInt(off, Integer.reverseBytes(v));
    }

    static void put64(BytesStore<?, ?> s, long off, long v) {
        s.writeLong(off, Long.reverseBytes(v));
    }

    static int get8(BytesStore<?, ?> s, long off) {
        return s.readUnsignedByte(off);
    }

    static void requireRoom(long capacity, long needed, String what) {
        if (capacity < needed) {
            throw new IllegalArgumentException(what + " needs " + needed + " bytes, buffer has " + capacity);
        }
    }
}
