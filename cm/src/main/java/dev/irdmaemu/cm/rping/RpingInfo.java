package dev.irdmaemu.cm.rping;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * rping's buffer advertisement, {@code struct rping_rdma_info} of librdmacm examples/rping.c: the buffer's address
 * ({@code __be64 buf}), its rkey ({@code __be32 rkey}) and its length ({@code __be32 size}), 16 bytes in network
 * order with no padding. Every Send rping makes carries one (the server's go-ahead carries one it never filled).
 * Static accessors over any store and offset; nothing allocated.
 */
public final class RpingInfo {
    /** sizeof(struct rping_rdma_info): what a receive must complete with (rping.c server_recv / client_recv). */
    public static final int SIZE = 16;
    static final int BUF = 0;
    static final int RKEY = 8;
    static final int LENGTH = 12;

    private RpingInfo() {
    }

    /** rping.c rping_format_send: {@code address}, {@code rkey} and {@code size} into the send buffer. */
    public static void write(BytesStore<?, ?> store, long offset, long address, int rkey, int size) {
        putLong(store, offset + BUF, address);
        putInt(store, offset + RKEY, rkey);
        putInt(store, offset + LENGTH, size);
    }

    /** Zeroes an advertisement (the server's go-ahead: its send_buf is never formatted). */
    public static void clear(BytesStore<?, ?> store, long offset) {
        for (int i = 0; i < SIZE; i++) {
            store.writeByte(offset + i, (byte) 0);
        }
    }

    public static long address(BytesStore<?, ?> store, long offset) {
        return (long) getInt(store, offset + BUF) << 32 | (getInt(store, offset + BUF + 4) & 0xffff_ffffL);
    }

    public static int rkey(BytesStore<?, ?> store, long offset) {
        return getInt(store, offset + RKEY);
    }

    /** The advertised length, unsigned in the struct (be32toh into an int in rping; here as a long). */
    public static long length(BytesStore<?, ?> store, long offset) {
        return getInt(store, offset + LENGTH) & 0xffff_ffffL;
    }

    private static void putLong(BytesStore<?, ?> s, long o, long v) {
        putInt(s, o, (int) (v >>> 32));
        putInt(s, o + 4, (int) v);
    }

    private static void putInt(BytesStore<?, ?> s, long o, int v) {
        s.writeByte(o, (byte) (v >>> 24));
        s.writeByte(o + 1, (byte) (v >>> 16));
        s.writeByte(o + 2, (byte) (v >>> 8));
        s.writeByte(o + 3, (byte) v);
    }

    private static int getInt(BytesStore<?, ?> s, long o) {
        return (s.readByte(o) & 0xff) << 24 | (s.readByte(o + 1) & 0xff) << 16 | (s.readByte(o + 2) & 0xff) << 8
                | (s.readByte(o + 3) & 0xff);
    }
}
