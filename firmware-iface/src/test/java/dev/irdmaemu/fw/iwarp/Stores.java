package dev.irdmaemu.fw.iwarp;

import java.nio.ByteBuffer;
import net.openhft.chronicle.bytes.BytesStore;

/** Test helpers: stores of several kinds holding given bytes. */
final class Stores {
    private Stores() {
    }

    static byte[] hex(String s) {
        String h = s.replaceAll("[^0-9a-fA-F]", "");
        byte[] b = new byte[h.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }

    static BytesStore<?, ?> heap(byte[] b) {
        return BytesStore.wrap(b);
    }

    /** Off-heap store with the bytes at {@code pad} (so offsets are non-zero), capacity pad + len + pad. */
    static BytesStore<?, ?> nativeAt(byte[] b, int pad) {
        BytesStore<?, ?> s = BytesStore.nativeStoreWithFixedCapacity(b.length + 2L * pad + 1);
        s.write(pad, b, 0, b.length);
        return s;
    }

    static BytesStore<?, ?> directBufferAt(byte[] b, int pad) {
        ByteBuffer bb = ByteBuffer.allocateDirect(b.length + 2 * pad + 1);
        BytesStore<?, ?> s = BytesStore.wrap(bb);
        s.write(pad, b, 0, b.length);
        return s;
    }

    static byte[] read(BytesStore<?, ?> s, long off, int len) {
        byte[] b = new byte[len];
        s.read(off, b, 0, len);
        return b;
    }
}
