package dev.irdmaemu.fw.queue;

import dev.irdmaemu.fw.reg.Bits;
import dev.irdmaemu.fw.reg.QuadwordView;

/**
 * Shared plumbing of the queue flyweights: a {@link QuadwordView} (little-endian 64-bit quadwords (the kernel's {@code __le64} with set_64bit_val/get_64bit_val,
 * defs.h). Chronicle's native order is little-endian, so {@code readLong}/{@code writeLong} at byte offsets are
 * the quadwords as the driver sees them. Fields are bit ranges {@code [hi:lo]} inside a quadword, exactly the
 * kernel's GENMASK_ULL(hi, lo) / BIT_ULL(b) masks.
 *
 * <p>Readers answer 0 for anything outside the window, so accessors on a short or lying buffer never throw;
 * {@code validate()} tells whether a structure is really there. Writers refuse (IllegalArgumentException) a
 * window too short for what they write: that is a caller bug, not hostile input. Absolute Chronicle reads are
 * not bounds-checked, hence the explicit window checks here.
 */
public abstract class QuadView extends QuadwordView {

    protected final int u8(long rel) {
        return has(rel, 1) ? store.readUnsignedByte(base + rel) : 0;
    }

    protected final void putQ(long rel, long value) {
        if (!has(rel, 8)) {
            throw new IllegalArgumentException("quadword at +" + rel + " outside a " + length + "-byte window");
        }
        store.writeLong(base + rel, value);
    }

    /**
     * Writes the quadword at {@code rel} with a release store: every write made through this view (or any other)
     * before it is visible to another agent that sees this one. For the quadword that carries an entry's valid bit,
     * which the host polls from its own CPU.
     */
    protected final void putQOrdered(long rel, long value) {
        if (!has(rel, 8)) {
            throw new IllegalArgumentException("quadword at +" + rel + " outside a " + length + "-byte window");
        }
        store.writeOrderedLong(base + rel, value);
    }

    protected final void put8(long rel, int value) {
        if (!has(rel, 1)) {
            throw new IllegalArgumentException("byte at +" + rel + " outside a " + length + "-byte window");
        }
        store.writeByte(base + rel, (byte) value);
    }

    /** Read-modify-write of the field [hi:lo] of the quadword at {@code rel}. */
    protected final void putField(long rel, int hi, int lo, long value) {
        putQ(rel, set(qword(rel), hi, lo, value));
    }

    protected final void putBit(long rel, int bit, boolean value) {
        putQ(rel, set(qword(rel), bit, bit, value ? 1 : 0));
    }

    /**
     * The check of an entry the consumer polls (a CQE and its extension, a CEQE, an AEQE): all {@code size} bytes
     * in the window, and the valid bit ({@code validBit} of the quadword at {@code validQword}) at the consumer's
     * current polarity. A different bit means "nothing new here", not an error (irdma_uk_cq_poll_cmpl in uk.c,
     * irdma_sc_process_ceq and irdma_sc_get_next_aeqe in ctrl.c); NOT_POSTED names the byte holding that bit.
     */
    protected final CqeCheck checkPolled(int size, long validQword, int validBit, boolean polarity) {
        failedAt = -1;
        if (!has(0, size)) {
            return fail(CqeCheck.TRUNCATED, length);
        }
        if (bit(qword(validQword), validBit) != polarity) {
            return fail(CqeCheck.NOT_POSTED, validQword + validBit / 8);
        }
        return CqeCheck.ACCEPTED;
    }

    protected final void requireRoom(long needed, String what) {
        if (length < needed) {
            throw new IllegalArgumentException(what + " needs " + needed + " bytes, window has " + length);
        }
    }

    /** GENMASK_ULL(hi, lo). */
    public static long mask(int hi, int lo) {
        return Bits.genmask(hi, lo);
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
