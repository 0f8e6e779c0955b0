package dev.irdmaemu.fw.aq;

import dev.irdmaemu.fw.ByteWindow;

/**
 * Base of the AQ buffer flyweights: a little-endian window (the {@code __le16}/{@code __le32} fields of
 * ice_adminq_cmd.h and ice_ddp.h). Readers answer 0 outside the window, so a short or lying buffer never makes an
 * accessor throw; {@code validate()} says whether a structure is really there. Writers refuse
 * (IllegalArgumentException) a field outside the window: the model checks room before it writes a reply, so a
 * refusal is a model bug, never hostile input.
 */
public abstract class LeView extends ByteWindow {

    protected final int u8(long rel) {
        return has(rel, 1) ? store.readUnsignedByte(base + rel) : 0;
    }

    protected final int u16(long rel) {
        return has(rel, 2) ? store.readUnsignedShort(base + rel) : 0;
    }

    protected final long u32(long rel) {
        return has(rel, 4) ? store.readUnsignedInt(base + rel) : 0L;
    }

    protected final void put8(long rel, int v) {
        room(rel, 1);
        store.writeByte(base + rel, (byte) v);
    }

    protected final void put16(long rel, int v) {
        room(rel, 2);
        store.writeShort(base + rel, (short) v);
    }

    protected final void put32(long rel, long v) {
        room(rel, 4);
        store.writeInt(base + rel, (int) v);
    }

    /** Copies {@code n} bytes at {@code rel} into {@code dst} (bytes outside the window read as 0). */
    protected final void copyOut(long rel, byte[] dst, int n) {
        for (int i = 0; i < n; i++) {
            dst[i] = (byte) u8(rel + i);
        }
    }

    /** Writes {@code src[0..n)} at {@code rel}. */
    protected final void copyIn(long rel, byte[] src, int n) {
        room(rel, n);
        for (int i = 0; i < n; i++) {
            store.writeByte(base + rel + i, src[i]);
        }
    }

    protected final void zero(long rel, int n) {
        room(rel, n);
        for (int i = 0; i < n; i++) {
            store.writeByte(base + rel + i, (byte) 0);
        }
    }

    private void room(long rel, long n) {
        if (!has(rel, n)) {
            throw new IllegalArgumentException(n + " bytes at +" + rel + " outside a " + length + "-byte window");
        }
    }
}
