package dev.irdmaemu.fw.aq;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over the 32-byte admin queue descriptor (libie/adminq.h struct libie_aq_desc): flags, opcode,
 * datalen, retval, cookie and the 16-byte params area. Placeholder with the signatures agreed with branch aqcore,
 * which owns this class; its version replaces this one at merge.
 */
public final class AqDescriptor {
    public static final int SIZE = 32;
    public static final int PARAMS = 16;
    public static final int PARAMS_SIZE = 16;

    public static final int DD = 0x1;
    public static final int CMP = 0x2;
    public static final int ERR = 0x4;
    public static final int LB = 0x200;
    public static final int RD = 0x400;
    public static final int BUF = 0x1000;
    public static final int SI = 0x2000;

    private BytesStore<?, ?> store;
    private long base;

    public AqDescriptor wrap(BytesStore<?, ?> store, long offset) {
        this.store = store;
        this.base = offset;
        return this;
    }

    public int flags() {
        return store.readUnsignedShort(base);
    }

    public int opcode() {
        return store.readUnsignedShort(base + 2);
    }

    public int datalen() {
        return store.readUnsignedShort(base + 4);
    }

    public void datalen(int v) {
        store.writeShort(base + 4, (short) v);
    }

    public int retval() {
        return store.readUnsignedShort(base + 6);
    }

    public int paramU8(int i) {
        return store.readUnsignedByte(base + PARAMS + check(i, 1));
    }

    public int paramU16(int i) {
        return store.readUnsignedShort(base + PARAMS + check(i, 2));
    }

    public long paramU32(int i) {
        return store.readUnsignedInt(base + PARAMS + check(i, 4));
    }

    public long paramU64(int i) {
        return store.readLong(base + PARAMS + check(i, 8));
    }

    public void paramU8(int i, int v) {
        store.writeByte(base + PARAMS + check(i, 1), (byte) v);
    }

    public void paramU16(int i, int v) {
        store.writeShort(base + PARAMS + check(i, 2), (short) v);
    }

    public void paramU32(int i, long v) {
        store.writeInt(base + PARAMS + check(i, 4), (int) v);
    }

    public void paramU64(int i, long v) {
        store.writeLong(base + PARAMS + check(i, 8), v);
    }

    private static int check(int i, int n) {
        if (i < 0 || i + n > PARAMS_SIZE) {
            throw new IllegalArgumentException("param at " + i + " of " + n + " bytes");
        }
        return i;
    }
}
