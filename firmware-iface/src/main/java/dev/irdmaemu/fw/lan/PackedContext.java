package dev.irdmaemu.fw.lan;

import dev.irdmaemu.fw.ByteWindow;

/**
 * A queue context bit-packed little-endian as ice_common.c packs it (the packed_field tables: width, lsb): bit n
 * lies in byte n / 8 at bit n % 8. Bytes outside the window read as 0; writes outside it are dropped (a writer on a
 * short buffer is caught by {@code validate()} of the reader).
 */
abstract class PackedContext extends ByteWindow {
    /** The field of {@code width} bits (at most 63) whose lowest bit is context bit {@code lsb}. */
    public final long field(int lsb, int width) {
        return packedBits(lsb, width);
    }

    final void putField(int lsb, int width, long value) {
        for (int i = 0; i < width; i++) {
            int bit = lsb + i;
            long rel = bit >>> 3;
            if (!has(rel, 1)) {
                return;
            }
            int b = store.readUnsignedByte(base + rel);
            int m = 1 << (bit & 7);
            store.writeByte(base + rel, (byte) ((value >>> i & 1) != 0 ? b | m : b & ~m));
        }
    }
}
