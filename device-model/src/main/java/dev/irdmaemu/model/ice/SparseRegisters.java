package dev.irdmaemu.model.ice;

/**
 * Plain storage for the ice registers the model gives no behaviour (statistics, RSS, filter and queue-context
 * registers ice writes and may read back): an open-addressed table from 32-bit BAR offset to value, preallocated,
 * so an access allocates nothing. Unwritten offsets read 0. When the table is full, writes to new offsets are dropped
 * and counted: the guest cannot grow the model's memory.
 */
final class SparseRegisters {
    private static final int EMPTY = -1;
    private final int capacity;
    private final int[] keys;
    private final int[] values;
    private int size;
    private long dropped;

    SparseRegisters(int capacity) {
        this.capacity = capacity;
        int slots = Integer.highestOneBit(capacity * 2 - 1) * 2;
        keys = new int[slots];
        values = new int[slots];
        java.util.Arrays.fill(keys, EMPTY);
    }

    int read(long offset) {
        if (!holdable(offset)) {
            return 0;
        }
        int s = slotOf((int) offset);
        return keys[s] != EMPTY ? values[s] : 0;
    }

    /** Stores {@code value}; false when the offset is new and the table is full (the write is dropped). */
    boolean write(long offset, int value) {
        if (!holdable(offset)) {
            dropped++;
            return false;
        }
        int s = slotOf((int) offset);
        if (keys[s] == EMPTY) {
            if (size == capacity) {
                dropped++;
                return false;
            }
            keys[s] = (int) offset;
            size++;
        }
        values[s] = value;
        return true;
    }

    /** Whether a slot can hold {@code offset}: a 32-bit aligned BAR offset. */
    private static boolean holdable(long offset) {
        return offset >= 0 && offset <= Integer.MAX_VALUE && (offset & 3) == 0;
    }

    /** The slot holding offset {@code o} or the empty slot where it would go ({@code o} {@link #holdable}). */
    private int slotOf(int o) {
        int m = keys.length - 1;
        int h = (o * 0x9E3779B9) >>> 7 & m;
        while (keys[h] != EMPTY && keys[h] != o) {
            h = h + 1 & m;
        }
        return h;
    }

    void clear() {
        java.util.Arrays.fill(keys, EMPTY);
        size = 0;
    }

    int size() {
        return size;
    }

    long dropped() {
        return dropped;
    }
}
