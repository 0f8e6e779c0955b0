package dev.irdmaemu.fw;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Network-byte-order access to a Chronicle {@link BytesStore}, shared by every wire codec (frames, iWARP).
 *
 * <p>Chronicle's absolute reads and writes ({@code readInt(long)}, {@code writeInt(long, int)}) are
 * native-order and, on the stores we use, not bounds-checked at all: reading past the end returns
 * whatever memory follows and writing past it corrupts it. So every codec first clamps the caller's
 * (offset, length) to {@link #limit(BytesStore)} and then reads only inside that clamp.
 */
public final class NetworkOrder {
    private NetworkOrder() {
    }

    /** First address past the readable/writable bytes of {@code store}. */
    public static long limit(BytesStore<?, ?> store) {
        return Math.min(store.capacity(), store.realCapacity());
    }

    /**
     * The part of {@code [offset, offset + length)} that lies inside {@code store}: its length, 0 if the
     * range starts outside the store or is negative. Parsers wrap this many bytes, never more.
     */
    public static long usableLength(BytesStore<?, ?> store, long offset, long length) {
        if (store == null || length <= 0) {
            return 0;
        }
        long start = store.start();
        long end = limit(store);
        if (offset < start || offset >= end) {
            return 0;
        }
        return Math.min(length, end - offset);
    }

    /** For builders and checksum helpers: {@code [offset, offset + length)} must lie inside the store. */
    public static void requireRange(BytesStore<?, ?> store, long offset, long length) {
        if (store == null) {
            throw new IllegalArgumentException("no buffer to write into");
        }
        if (length < 0 || offset < store.start() || offset > limit(store) - length) {
            throw new IllegalArgumentException("frame does not fit: need " + length + " bytes at " + offset
                    + ", buffer holds [" + store.start() + ", " + limit(store) + ")");
        }
    }

    public static int u8(BytesStore<?, ?> s, long at) {
        return s.readUnsignedByte(at);
    }

    public static int u16(BytesStore<?, ?> s, long at) {
        return Short.reverseBytes(s.readShort(at)) & 0xffff;
    }

    public static int i32(BytesStore<?, ?> s, long at) {
        return Integer.reverseBytes(s.readInt(at));
    }

    public static long u32(BytesStore<?, ?> s, long at) {
        return i32(s, at) & 0xffff_ffffL;
    }

    public static long i64(BytesStore<?, ?> s, long at) {
        return Long.reverseBytes(s.readLong(at));
    }

    /** A 48-bit MAC address, most significant octet first on the wire. */
    public static long u48(BytesStore<?, ?> s, long at) {
        return ((long) u16(s, at) << 32) | u32(s, at + 2);
    }

    public static void put8(BytesStore<?, ?> s, long at, int v) {
        s.writeByte(at, (byte) v);
    }

    public static void put16(BytesStore<?, ?> s, long at, int v) {
        s.writeShort(at, Short.reverseBytes((short) v));
    }

    public static void put32(BytesStore<?, ?> s, long at, int v) {
        s.writeInt(at, Integer.reverseBytes(v));
    }

    public static void put64(BytesStore<?, ?> s, long at, long v) {
        s.writeLong(at, Long.reverseBytes(v));
    }

    public static void put48(BytesStore<?, ?> s, long at, long v) {
        put16(s, at, (int) (v >>> 32));
        put32(s, at + 2, (int) v);
    }

    /** For builders: a caller's capacity must hold what is about to be written. */
    public static void requireRoom(long capacity, long needed, String what) {
        if (capacity < needed) {
            throw new IllegalArgumentException(what + " needs " + needed + " bytes, buffer has " + capacity);
        }
    }
}
