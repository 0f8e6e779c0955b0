package dev.irdmaemu.fw.queue;

/**
 * A reusable scatter/gather list (the driver's struct ib_sge array: address, length, lkey) for the WQE
 * writers, with room for {@link #CAPACITY} entries. Not thread-safe; clear and refill per WQE, no allocation.
 */
public final class SgeList {
    /** More than user.h IRDMA_MAX_WQ_FRAGMENT_COUNT (13), so hostile-driver tests can build oversized lists. */
    public static final int CAPACITY = 16;

    private final long[] addr = new long[CAPACITY];
    private final int[] len = new int[CAPACITY];
    private final int[] stag = new int[CAPACITY];
    private int count;

    public SgeList clear() {
        count = 0;
        return this;
    }

    public SgeList add(long address, int length, int lkey) {
        if (count == CAPACITY) {
            throw new IllegalStateException("SGE list full (" + CAPACITY + ")");
        }
        addr[count] = address;
        len[count] = length;
        stag[count] = lkey;
        count++;
        return this;
    }

    public int count() {
        return count;
    }

    public long address(int i) {
        return addr[i];
    }

    /** Length as the driver's u32 (use Integer.toUnsignedLong for values above 2^31 - 1). */
    public int length(int i) {
        return len[i];
    }

    public int stag(int i) {
        return stag[i];
    }

    /** Sum of the lengths, unsigned. */
    public long totalLength() {
        long t = 0;
        for (int i = 0; i < count; i++) {
            t += Integer.toUnsignedLong(len[i]);
        }
        return t;
    }
}
