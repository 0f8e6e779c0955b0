package dev.irdmaemu.fw.lan;

/**
 * The Toeplitz hash of receive-side scaling (Microsoft's RSS specification, "RSS hashing functions": for every
 * input bit from the most significant bit of the first byte on, a set bit XORs the 32 key bits that start at that
 * bit position into the result). The E810 keys it with the 52 bytes of struct ice_aqc_get_set_rss_keys
 * (ice_adminq_cmd.h: the 40-byte standard key followed by the 12-byte extended key, one bit string), so inputs up
 * to 52 - 4 = 48 bytes (the IPv6 4-tuple is 36) hash without running out of key; key bits past the key's end read 0.
 *
 * <p>The input is fed field by field in network byte order ({@link #addInt}, {@link #addLong}, {@link #addShort}),
 * so a frame's addresses and ports hash where they lie without being gathered into a buffer. One instance is
 * reused for every frame: {@link #start} begins a new input, {@link #value} answers the hash; nothing allocates.
 * Setting a key precomputes, for each input byte position and value, what that byte XORs into the result (52 x 256
 * ints), so hashing costs one table read per input byte. Not thread-safe (the model runs on one thread).
 */
public final class ToeplitzHash {
    /** ICE_AQC_GET_SET_RSS_KEY_DATA_RSS_KEY_SIZE + ICE_AQC_GET_SET_RSS_KEY_DATA_HASH_KEY_SIZE. */
    public static final int MAX_KEY_BYTES = 52;

    /** The key, big-endian, with 4 zero bytes after it so that every 40-bit window reads inside the array. */
    private final byte[] key = new byte[MAX_KEY_BYTES + 8];
    /** contribution[position * 256 + b]: what input byte b at that position XORs into the hash. */
    private final int[] contribution = new int[MAX_KEY_BYTES * 256];
    private int keyBytes;
    private int position;
    private int result;

    /** Takes the first {@code length} bytes of {@code k} as the key (at most {@link #MAX_KEY_BYTES}). */
    public ToeplitzHash key(byte[] k, int length) {
        if (length < 0 || length > MAX_KEY_BYTES || length > k.length) {
            throw new IllegalArgumentException("RSS key of " + length + " bytes");
        }
        java.util.Arrays.fill(key, (byte) 0);
        System.arraycopy(k, 0, key, 0, length);
        keyBytes = length;
        for (int p = 0; p < MAX_KEY_BYTES; p++) {
            // The 40 key bits from byte p on: bit j (0 = most significant) of the input uses bits j..j+31 of them.
            long window = (key[p] & 0xFFL) << 32 | (key[p + 1] & 0xFFL) << 24 | (key[p + 2] & 0xFFL) << 16
                    | (key[p + 3] & 0xFFL) << 8 | key[p + 4] & 0xFFL;
            for (int b = 0; b < 256; b++) {
                int r = 0;
                for (int j = 0; j < 8; j++) {
                    if ((b & 0x80 >>> j) != 0) {
                        r ^= (int) (window >>> 8 - j);
                    }
                }
                contribution[p * 256 + b] = r;
            }
        }
        return this;
    }

    public int keyBytes() {
        return keyBytes;
    }

    /** Begins a new input. */
    public ToeplitzHash start() {
        position = 0;
        result = 0;
        return this;
    }

    /** Appends one byte (the low 8 bits of {@code b}). */
    public ToeplitzHash addByte(int b) {
        int p = position;
        if (p >= MAX_KEY_BYTES) {
            position++;
            return this; // past the key: every window is zero
        }
        result ^= contribution[p << 8 | b & 0xFF];
        position = p + 1;
        return this;
    }

    /** Appends a 16-bit field in network order (a port). */
    public ToeplitzHash addShort(int v) {
        return addByte(v >>> 8).addByte(v);
    }

    /** Appends a 32-bit field in network order (an IPv4 address). */
    public ToeplitzHash addInt(int v) {
        return addByte(v >>> 24).addByte(v >>> 16).addByte(v >>> 8).addByte(v);
    }

    /** Appends a 64-bit field in network order (half of an IPv6 address). */
    public ToeplitzHash addLong(long v) {
        return addInt((int) (v >>> 32)).addInt((int) v);
    }

    /** The hash of what was fed since {@link #start}. */
    public int value() {
        return result;
    }

    /** Input bytes fed since {@link #start}. */
    public int inputBytes() {
        return position;
    }
}
