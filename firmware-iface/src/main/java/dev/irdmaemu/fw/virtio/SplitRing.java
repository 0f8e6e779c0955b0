package dev.irdmaemu.fw.virtio;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * The split virtqueue's three parts as they lie in guest memory, little-endian (virtio 1.x §2.7, "Virtqueue Part /
 * Alignment / Size"): the descriptor table, 16·N bytes aligned 16 ({@code struct virtq_desc}: addr u64 at 0, len u32
 * at 8, flags u16 at 12, next u16 at 14); the driver's available ring, 6 + 2·N bytes aligned 2 (flags u16 at 0, idx
 * u16 at 2, ring[N] u16 from 4, used_event u16 after the ring); the device's used ring, 6 + 8·N bytes aligned 4
 * (flags u16 at 0, idx u16 at 2, ring[N] of {id u32, len u32} from 4, avail_event u16 after the ring). Static
 * accessors over a store and the part's offset in it, so the per-frame ring walk allocates nothing; the caller has
 * checked that the part lies in the store (its size is {@link #descriptorTableBytes}, {@link #availableRingBytes},
 * {@link #usedRingBytes}).
 */
public final class SplitRing {
    private SplitRing() {
    }

    /** §2.7.5: descriptor flags. */
    public static final int DESC_F_NEXT = 1;
    public static final int DESC_F_WRITE = 2;
    public static final int DESC_F_INDIRECT = 4;
    /** §2.7.6: the driver does not want interrupts (ignored with EVENT_IDX). */
    public static final int AVAIL_F_NO_INTERRUPT = 1;
    public static final int DESC_SIZE = 16;
    private static final int IDX = 2;
    private static final int RING = 4;
    private static final int USED_ELEM = 8;

    public static long descriptorTableBytes(int size) {
        return (long) DESC_SIZE * size;
    }

    public static long availableRingBytes(int size) {
        return 6L + 2L * size;
    }

    public static long usedRingBytes(int size) {
        return 6L + 8L * size;
    }

    // ---- a descriptor at {@code d} (the table's offset plus 16 times its index)

    /** The offset of descriptor {@code index} of a table at {@code table}. */
    public static long descriptor(long table, int index) {
        return table + (long) DESC_SIZE * index;
    }

    public static long address(BytesStore<?, ?> s, long d) {
        return s.readLong(d);
    }

    /** The buffer's length as the u32 it is, in the low 32 bits of an int. */
    public static int length(BytesStore<?, ?> s, long d) {
        return s.readInt(d + 8);
    }

    public static int flags(BytesStore<?, ?> s, long d) {
        return s.readShort(d + 12) & 0xffff;
    }

    public static int next(BytesStore<?, ?> s, long d) {
        return s.readShort(d + 14) & 0xffff;
    }

    // ---- the available ring at {@code avail}

    public static int availableFlags(BytesStore<?, ?> s, long avail) {
        return s.readShort(avail) & 0xffff;
    }

    public static int availableIdx(BytesStore<?, ?> s, long avail) {
        return s.readShort(avail + IDX) & 0xffff;
    }

    /** The chain head in ring slot {@code slot} (the caller masks the free-running index by the ring size). */
    public static int availableEntry(BytesStore<?, ?> s, long avail, int slot) {
        return s.readShort(avail + RING + 2L * slot) & 0xffff;
    }

    /** used_event, after the ring of {@code size} entries (§2.7.10). */
    public static int usedEvent(BytesStore<?, ?> s, long avail, int size) {
        return s.readShort(avail + RING + 2L * size) & 0xffff;
    }

    // ---- the used ring at {@code used}

    public static int usedIdx(BytesStore<?, ?> s, long used) {
        return s.readShort(used + IDX) & 0xffff;
    }

    public static void usedIdx(BytesStore<?, ?> s, long used, int idx) {
        s.writeShort(used + IDX, (short) idx);
    }

    /** Writes used ring element {@code slot}: the chain's head and the bytes the device wrote into it. */
    public static void usedElement(BytesStore<?, ?> s, long used, int slot, int head, int written) {
        long e = used + RING + (long) USED_ELEM * slot;
        s.writeInt(e, head);
        s.writeInt(e + 4, written);
    }

    /** avail_event, after the ring of {@code size} entries (§2.7.10). */
    public static void availEvent(BytesStore<?, ?> s, long used, int size, int idx) {
        s.writeShort(used + RING + (long) USED_ELEM * size, (short) idx);
    }
}
