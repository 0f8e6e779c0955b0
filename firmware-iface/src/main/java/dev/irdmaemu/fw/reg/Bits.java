package dev.irdmaemu.fw.reg;

/**
 * Bit fields inside a little-endian 64-bit device word, in the kernel's terms: a field is a contiguous mask as
 * {@code GENMASK_ULL(hi, lo)} builds it, {@link #get} is {@code FIELD_GET}, {@link #prep} is {@code FIELD_PREP}
 * (the value is shifted into place and truncated to the mask, as FIELD_PREP does with a run-time value).
 * All static, no allocation; masks are compile-time constants in the codecs.
 */
public final class Bits {
    private Bits() {
    }

    /** The mask of bits {@code lo..hi} inclusive, like GENMASK_ULL(hi, lo). */
    public static long genmask(int hi, int lo) {
        if (lo < 0 || hi > 63 || hi < lo) {
            throw new IllegalArgumentException("GENMASK(" + hi + ", " + lo + ")");
        }
        return (-1L >>> (63 - hi)) & (-1L << lo);
    }

    /** A single-bit mask, like BIT_ULL(n). */
    public static long bit(int n) {
        return genmask(n, n);
    }

    /** The field under {@code mask}, shifted down (FIELD_GET). */
    public static long get(long word, long mask) {
        return (word & mask) >>> Long.numberOfTrailingZeros(mask);
    }

    /** {@link #get} narrowed to int (for fields of 32 bits or fewer). */
    public static int getInt(long word, long mask) {
        return (int) get(word, mask);
    }

    public static boolean flag(long word, long mask) {
        return (word & mask) != 0;
    }

    /** {@code value} shifted into {@code mask} and truncated to it (FIELD_PREP). */
    public static long prep(long mask, long value) {
        return (value << Long.numberOfTrailingZeros(mask)) & mask;
    }

    public static long prep(long mask, boolean value) {
        return value ? mask & -mask : 0L;
    }

    /** {@code word} with the field under {@code mask} replaced by {@code value}. */
    public static long set(long word, long mask, long value) {
        return (word & ~mask) | prep(mask, value);
    }

    /** True when {@code value} fits in the field under {@code mask} without truncation. */
    public static boolean fits(long mask, long value) {
        long width = mask >>> Long.numberOfTrailingZeros(mask);
        return (value & ~width) == 0;
    }
}
