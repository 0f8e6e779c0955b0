package dev.irdmaemu.fw.queue;

import net.openhft.chronicle.bytes.BytesStore;

/** Test helpers: zeroed stores and little-endian quadword access, as the other side of the bus sees them. */
final class Mem {
    private Mem() {
    }

    static BytesStore<?, ?> heap(int size) {
        return BytesStore.wrap(new byte[size]);
    }

    static BytesStore<?, ?> offHeap(int size) {
        BytesStore<?, ?> s = BytesStore.nativeStoreWithFixedCapacity(size);
        s.zeroOut(0, size);
        return s;
    }

    /** The little-endian quadword at {@code off}, assembled byte by byte (independent of Chronicle's order). */
    static long qword(BytesStore<?, ?> s, long off) {
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = v << 8 | s.readUnsignedByte(off + i);
        }
        return v;
    }

    static void putQword(BytesStore<?, ?> s, long off, long v) {
        for (int i = 0; i < 8; i++) {
            s.writeByte(off + i, (byte) (v >>> (8 * i)));
        }
    }
}
