package dev.irdmaemu.fw.reg;

import dev.irdmaemu.fw.ByteWindow;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Shared plumbing of the device-structure flyweights (CQP WQEs, the CQP host context, the CCQ completion, FPM
 * buffers): a window {@code [base, base + length)} onto a Chronicle store read as little-endian quadwords, the
 * "__le64" words of irdma's get_64bit_val/set_64bit_val (defs.h). Chronicle's native order is little-endian, so
 * quadwords are read with readLong at their byte offset. Chronicle's absolute reads are not bounds-checked, so
 * every read is guarded here: a quadword outside the readable window reads as 0 and never throws;
 * {@code validate()} is what tells the caller whether the structure was really there.
 */
public abstract class QuadwordView extends ByteWindow {

    /** The little-endian quadword at relative byte offset {@code rel}; 0 when outside the window. */
    public final long qword(long rel) {
        return has(rel, 8) ? store.readLong(base + rel) : 0L;
    }

    /** Writes quadword {@code value} at absolute {@code offset} of {@code dst} (set_64bit_val). */
    public static void putQword(BytesStore<?, ?> dst, long offset, long value) {
        dst.writeLong(offset, value);
    }

    /** Throws when {@code [offset, offset + needed)} is not writable in {@code dst}: builders write caller buffers. */
    public static void requireRoom(BytesStore<?, ?> dst, long offset, long needed, String what) {
        if (dst == null || offset < dst.start() || offset > dst.capacity() - needed) {
            throw new IllegalArgumentException(what + " needs " + needed + " bytes at " + offset);
        }
    }
}
