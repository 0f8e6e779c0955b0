package dev.irdmaemu.fw.iwarp;

import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.core.Memory;
import net.openhft.chronicle.core.OS;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CRC32c (Castagnoli, RFC 3720 §12.1: generator 0x11EDC6F41, register preset to all ones, result complemented)
 * over ranges of Chronicle stores, for the MPA FPDU trailer (RFC 5044 §4.1).
 *
 * <p>Value convention: {@link #finish()} and {@link #compute} answer the CRC the way {@link CRC32C#getValue()}
 * does (reflected register, complemented). <b>Wire order</b>: MPA uses iSCSI's CRC32c (RFC 5044 §4.1 refers to
 * [iSCSI] for the algorithm); iSCSI's known answers (RFC 3720 §B.4) show that value transmitted least
 * significant byte first (32 zero bytes → {@code aa 36 91 8a}, i.e. value 0x8A9136AA), and siw writes its MPA
 * CRC the same way (siw.h siw_crc_final: little-endian store of the complemented register). So the FPDU
 * trailer is {@link #writeWire}/{@link #readWire}: little-endian — the one field of the iWARP wire that is
 * <i>not</i> in network byte order.
 *
 * <p>Speed: {@link CRC32C} is a HotSpot intrinsic for {@code byte[]} and direct {@link ByteBuffer}s. For native
 * stores each instance keeps one direct ByteBuffer "view" that is re-pointed at the store's memory for each call
 * (no allocation); heap stores are fed their backing array. Anything else goes through a per-instance 4 KiB
 * scratch array, made the first time it is needed. One instance per thread: it is not thread-safe.
 */
public final class Crc32c {
    private static final Logger LOG = LoggerFactory.getLogger(Crc32c.class);

    /** Size of the FPDU CRC trailer (RFC 5044 §4.1). */
    public static final int SIZE = 4;

    private static final Memory MEMORY;
    private static final long ADDRESS_FIELD;
    private static final long CAPACITY_FIELD;
    private static final boolean VIEW_USABLE;

    static {
        Memory m = null;
        long addr = -1;
        long cap = -1;
        boolean ok = false;
        try {
            Field a = Buffer.class.getDeclaredField("address");
            Field c = Buffer.class.getDeclaredField("capacity");
            m = OS.memory();
            addr = m.objectFieldOffset(a);
            cap = m.objectFieldOffset(c);
            ok = true;
        } catch (Throwable t) { // any reflection/Unsafe refusal: use the portable path
            LOG.debug("CRC32c: no re-pointable direct view ({}); native stores use a scratch copy", t.toString());
        }
        MEMORY = m;
        ADDRESS_FIELD = addr;
        CAPACITY_FIELD = cap;
        VIEW_USABLE = ok && selfTest();
    }

    private final CRC32C crc = new CRC32C();
    /** Made on first use: only stores that are neither native nor array-backed need it. */
    private byte[] scratch;
    private final ByteBuffer view = VIEW_USABLE ? ByteBuffer.allocateDirect(0) : null;

    /** Begins an incremental computation (RFC 3720 §12.1: register preset to all ones). */
    public Crc32c start() {
        crc.reset();
        return this;
    }

    /** Adds {@code length} bytes of {@code store} from absolute offset {@code offset}. */
    public Crc32c update(BytesStore<?, ?> store, long offset, long length) {
        if (length < 0 || offset < store.start() || offset > store.readLimit() - length) {
            throw new IndexOutOfBoundsException("CRC32c range " + offset + "+" + length + " outside store");
        }
        if (length == 0) {
            return this;
        }
        if (view != null && store.isDirectMemory()) {
            updateNative(store.addressForRead(offset), length);
            return this;
        }
        Object under = store.underlyingObject();
        if (under instanceof byte[] && store.start() == 0 && offset + length <= ((byte[]) under).length) {
            crc.update((byte[]) under, (int) offset, (int) length);
            return this;
        }
        if (under instanceof ByteBuffer && store.start() == 0) {
            ByteBuffer bb = (ByteBuffer) under;
            if (offset + length <= bb.capacity()) {
                if (bb.hasArray()) {
                    crc.update(bb.array(), bb.arrayOffset() + (int) offset, (int) length);
                    return this;
                }
                int pos = bb.position();
                int lim = bb.limit();
                try {
                    bb.limit(bb.capacity()).position((int) offset);
                    bb.limit((int) (offset + length));
                    crc.update(bb);
                } finally {
                    bb.limit(bb.capacity()).position(pos);
                    bb.limit(lim);
                }
                return this;
            }
        }
        updateCopying(store, offset, length);
        return this;
    }

    /** Adds {@code length} bytes of {@code src} from {@code off}. */
    public Crc32c update(byte[] src, int off, int length) {
        crc.update(src, off, length);
        return this;
    }

    /** Adds one byte (e.g. a zero pad byte). */
    public Crc32c update(int b) {
        crc.update(b);
        return this;
    }

    /** Ends the computation: the CRC32c value (as {@link CRC32C#getValue()}, low 32 bits). */
    public int finish() {
        return (int) crc.getValue();
    }

    /** One-shot CRC32c of a range. */
    public int compute(BytesStore<?, ?> store, long offset, long length) {
        return start().update(store, offset, length).finish();
    }

    /** Writes a CRC value in MPA wire order (least significant byte first; see the class comment). */
    public static void writeWire(BytesStore<?, ?> store, long offset, int value) {
        store.writeByte(offset, (byte) value);
        store.writeByte(offset + 1, (byte) (value >>> 8));
        store.writeByte(offset + 2, (byte) (value >>> 16));
        store.writeByte(offset + 3, (byte) (value >>> 24));
    }

    /** Reads a CRC value stored in MPA wire order. */
    public static int readWire(BytesStore<?, ?> store, long offset) {
        return store.readUnsignedByte(offset)
                | store.readUnsignedByte(offset + 1) << 8
                | store.readUnsignedByte(offset + 2) << 16
                | store.readUnsignedByte(offset + 3) << 24;
    }

    private void updateNative(long address, long length) {
        long a = address;
        long left = length;
        ByteBuffer v = view;
        try {
            while (left > 0) {
                int n = (int) Math.min(left, 1 << 30);
                MEMORY.writeLong(v, ADDRESS_FIELD, a);
                MEMORY.writeInt(v, CAPACITY_FIELD, n);
                v.limit(n).position(0);
                crc.update(v);
                a += n;
                left -= n;
            }
        } finally {
            v.limit(0);
            MEMORY.writeInt(v, CAPACITY_FIELD, 0);
            MEMORY.writeLong(v, ADDRESS_FIELD, 0L);
        }
    }

    private void updateCopying(BytesStore<?, ?> store, long offset, long length) {
        if (scratch == null) {
            scratch = new byte[4096];
        }
        long o = offset;
        long left = length;
        while (left > 0) {
            int n = (int) Math.min(left, scratch.length);
            store.read(o, scratch, 0, n);
            crc.update(scratch, 0, n);
            o += n;
            left -= n;
        }
    }

    /** The re-pointed view must agree with the array path, or it is not used. */
    private static boolean selfTest() {
        BytesStore<?, ?> probe = null;
        try {
            probe = BytesStore.nativeStoreWithFixedCapacity(64);
            byte[] ref = new byte[64];
            for (int i = 0; i < 64; i++) {
                ref[i] = (byte) (i * 37 + 11);
                probe.writeByte(i, ref[i]);
            }
            CRC32C expect = new CRC32C();
            expect.update(ref, 3, 57);
            ByteBuffer v = ByteBuffer.allocateDirect(0);
            MEMORY.writeLong(v, ADDRESS_FIELD, probe.addressForRead(3));
            MEMORY.writeInt(v, CAPACITY_FIELD, 57);
            v.limit(57).position(0);
            CRC32C got = new CRC32C();
            got.update(v);
            v.limit(0);
            MEMORY.writeInt(v, CAPACITY_FIELD, 0);
            MEMORY.writeLong(v, ADDRESS_FIELD, 0L);
            return got.getValue() == expect.getValue();
        } catch (Throwable t) {
            LOG.debug("CRC32c: direct view self-test failed ({})", t.toString());
            return false;
        } finally {
            if (probe != null) {
                probe.releaseLast();
            }
        }
    }

    /** True when native stores are hashed through the zero-copy direct view (for tests and diagnostics). */
    public static boolean zeroCopyNative() {
        return VIEW_USABLE;
    }
}
