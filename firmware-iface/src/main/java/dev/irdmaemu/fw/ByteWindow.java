package dev.irdmaemu.fw;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * The base of every flyweight codec: a window {@code [base, base + length)} onto a Chronicle store, clamped at
 * {@link #attach} to the bytes that really exist (Chronicle's absolute accessors are not bounds-checked), and the
 * offset of the rule that failed last. Subclasses add the readers of their byte order: network order for wire
 * formats, little-endian quadwords for device structures.
 */
public abstract class ByteWindow {
    protected BytesStore<?, ?> store;
    protected long base;
    /** Bytes of the window that are really there: the caller's length clamped to the store. */
    protected long length;
    protected int failedAt = -1;

    protected final void attach(BytesStore<?, ?> s, long offset, long len) {
        // Flyweights live long and are re-attached per frame, mostly to the store they already hold: storing the
        // same reference again would still run the collector's write barrier (with G1, a memory fence for an old
        // object pointing into another region), which cost a tenth of the data path. Compare first.
        if (store != s) {
            store = s;
        }
        base = offset;
        failedAt = -1;
        length = offset < 0 ? 0 : NetworkOrder.usableLength(s, offset, len);
    }

    /**
     * The first step of a validation: forgets the rule that failed last and answers whether the window holds at
     * least {@code minLength} bytes, the shortest the format can be (its TRUNCATED rule when not).
     */
    protected final boolean beginValidation(long minLength) {
        failedAt = -1;
        return length >= minLength;
    }

    /** True when {@code n} bytes at {@code rel} lie inside the window. */
    public final boolean has(long rel, long n) {
        return rel >= 0 && n >= 0 && rel <= length - n;
    }

    protected final <C extends Enum<C>> C fail(C check, long rel) {
        failedAt = (int) Math.max(0, Math.min(rel, Integer.MAX_VALUE));
        return check;
    }

    /**
     * The field of {@code width} bits (at most 63) whose lowest bit is bit {@code lsb} of a structure bit-packed
     * little-endian: bit n lies in byte n / 8 at bit n % 8, as ice_common.c packs the queue contexts (pack_fields
     * over the packed_field tables of width and lsb: ice_pack_rxq_ctx, ice_pack_txq_ctx). Bytes outside the window
     * read as 0.
     */
    protected final long packedBits(int lsb, int width) {
        long v = 0;
        for (int i = width - 1; i >= 0; i--) {
            int bit = lsb + i;
            long rel = bit >>> 3;
            int b = has(rel, 1) ? store.readUnsignedByte(base + rel) : 0;
            v = v << 1 | (b >>> (bit & 7) & 1);
        }
        return v;
    }

    /** Offset, relative to the window, of the field whose rule failed last; -1 when none failed. */
    public int failedAt() {
        return failedAt;
    }

    /** The store the window was last attached to (null before the first attach, or when attached to none). */
    public BytesStore<?, ?> store() {
        return store;
    }

    /** Where the window starts in its store. */
    public long offset() {
        return base;
    }

    /** Bytes of the window that are really there (the caller's length clamped to the store). */
    public long length() {
        return length;
    }
}
