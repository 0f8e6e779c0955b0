package dev.irdmaemu.fw.queue;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Shared plumbing of the device-structure flyweights: a window {@code [base, base + length)} onto a Chronicle
 * store holding little-endian 64-bit quadwords (the kernel's {@code __le64} with set_64bit_val/get_64bit_val,
 * defs.h). Chronicle's native order is little-endian, so {@code readLong}/{@code writeLong} at byte offsets are
 * the quadwords as the driver sees them. Fields are bit ranges {@code [hi:lo]} inside a quadword, exactly the
 * kernel's GENMASK_ULL(hi, lo) / BIT_ULL(b) masks.
 *
 * <p>Readers answer 0 for anything outside the window, so accessors on a short or lying buffer never throw;
 * {@code validate()} tells whether a structure is really there. Writers refuse (IllegalArgumentException) a
 * window too short for what they write: that is a caller bug, not hostile input. Absolute Chronicle reads are
 * not bounds-checked, hence the explicit window checks here.
 */
public abstract class QuadView {
    protected BytesStore<?, ?> store;
    protected long base;
    /** Bytes of the window really backed by the store (the caller's length clamped to the store). */
    protected long length;
    protected int failedAt = -1;

    protected final void attach(BytesStore<?, ?> s, long offset, long len) {
        store = s;
        base = offset;
        failedAt = -1;
        if (s == null || offset < 0 || len <= 0) {
            length = 0;
            return;
        }
        long lo = s.start();
        long hi = Math.min(s.readLimit(), s.capacity());
        if (offset < lo || offset >= hi) {
            length = 0;
            return;
        }
        length = Math.min(len, hi - offset);
    }

    /** True when {@code n} bytes at {@code rel} lie inside the window. */
    protected final boolean has(long rel, long n) {
        return rel >= 0 && n >= 0 && rel <= length - n;
    }

    /** The quadword at byte offset {@code rel} of the window, 0 when outside. */
    protected final long q(long rel) {
        return has(rel, 8) ? store.readLong(base + rel) : 0L;
    }

    protected final int u8(long rel) {
        return has(rel, 1) ? store.readUnsignedByte(base + rel) : 0;
    }

    protected final void putQ(long rel, long value) {
        if (!has(rel, 8)) {
            throw new IllegalArgumentException("quadword at +" + rel + " outside a " + length + "-byte window");
        }
        store.writeLong(base + rel, value);
    }

    protected final void put8(long rel, int value) {
        if (!has(rel, 1)) {
            throw new IllegalArgumentException("byte at +" + rel + " outside a " + length + "-byte window");
        }
        store.writeByte(base + rel, (byte) value);
    }

    /** Read-modify-write of the field [hi:lo] of the quadword at {@code rel}. */
    protected final void putField(long rel, int hi, int lo, long value) {
        putQ(rel, set(q(rel), hi, lo, value));
    }

    protected final void putBit(long rel, int bit, boolean value) {
        putQ(rel, set(q(rel), bit, bit, value ? 1 : 0));
    }

    protected final void requireRoom(long needed, String what) {
        if (length < needed) {
            throw new IllegalArgumentException(what + " needs " + needed + " bytes, window has " + length);
        }
    }

    protected final <C extends Enum<C>> C fail(C check, long rel) {
        failedAt = (int) Math.max(0, Math.min(rel, Integer.MAX_VALUE));
        return check;
    }

    /** Byte offset (into the wrapped window) of the field that failed the last validate(), -1 if none. */
    public int failedAt() {
        return failedAt;
    }

    /** Absolute store offset of the window. */
    public long offset() {
        return base;
    }

    /** Readable bytes of the window. */
    public long length() {
        return length;
    }

    /** GENMASK_ULL(hi, lo). */
    public static long mask(int hi, int lo) {
        return (-1L >>> (63 - hi)) & (-1L << lo);
    }

    /** FIELD_GET(GENMASK_ULL(hi, lo), qw). */
    public static long get(long qw, int hi, int lo) {
        return (qw & mask(hi, lo)) >>> lo;
    }

    /** FIELD_PREP(GENMASK_ULL(hi, lo), v): the value shifted into place, excess bits dropped. */
    public static long prep(long v, int hi, int lo) {
        return (v << lo) & mask(hi, lo);
    }

    /** {@code qw} with the field [hi:lo] replaced by {@code v}. */
    public static long set(long qw, int hi, int lo, long v) {
        return (qw & ~mask(hi, lo)) | prep(v, hi, lo);
    }

    public static boolean bit(long qw, int b) {
        return (qw >>> b & 1L) != 0;
    }

    /** FIELD_PREP of a single BIT_ULL(b) flag. */
    public static long flag(boolean v, int b) {
        return v ? 1L << b : 0L;
    }
}
