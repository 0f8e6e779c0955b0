package dev.irdmaemu.cm.rping;

import dev.irdmaemu.fw.NetworkOrder;
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
        NetworkOrder.put64(store, offset + BUF, address);
        NetworkOrder.put32(store, offset + RKEY, rkey);
        NetworkOrder.put32(store, offset + LENGTH, size);
    }

    /** Zeroes an advertisement (the server's go-ahead: its send_buf is never formatted). */
    public static void clear(BytesStore<?, ?> store, long offset) {
        store.zeroOut(offset, offset + SIZE);
    }

    public static long address(BytesStore<?, ?> store, long offset) {
        return NetworkOrder.i64(store, offset + BUF);
    }

    public static int rkey(BytesStore<?, ?> store, long offset) {
        return NetworkOrder.i32(store, offset + RKEY);
    }

    /** The advertised length, unsigned in the struct (be32toh into an int in rping; here as a long). */
    public static long length(BytesStore<?, ?> store, long offset) {
        return NetworkOrder.u32(store, offset + LENGTH);
    }
}
