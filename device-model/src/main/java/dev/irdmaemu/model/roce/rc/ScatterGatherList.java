package dev.irdmaemu.model.roce.rc;

import dev.irdmaemu.model.mr.MemoryRegions;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The local buffers of one work request: up to {@value #MAX} fragments (address, length, L_Key), as irdma's WQEs
 * carry them (uk.c irdma_set_fragment), read or written at a message offset through
 * {@link MemoryRegions} with local rights (IBA §10.6.3.1 L_Key checks; rxe_mr.c copy_data). Preallocated and
 * refilled; no allocation.
 */
public final class ScatterGatherList {
    /** Fragments a work request may carry (irdma's max_hw_wq_frags on gen2 is 13). */
    public static final int MAX = 16;

    private final int[] key = new int[MAX];
    private final long[] address = new long[MAX];
    private final int[] length = new int[MAX];
    private int count;
    private long total;

    public ScatterGatherList clear() {
        count = 0;
        total = 0;
        return this;
    }

    /** Appends a fragment; false (nothing added) when the list is full or the length negative. */
    public boolean add(long fragmentAddress, int fragmentLength, int lkey) {
        if (count == MAX || fragmentLength < 0) {
            return false;
        }
        key[count] = lkey;
        address[count] = fragmentAddress;
        length[count] = fragmentLength;
        count++;
        total += fragmentLength;
        return true;
    }

    public int count() {
        return count;
    }

    /** Bytes of all fragments together. */
    public long totalLength() {
        return total;
    }

    void copyFrom(ScatterGatherList other) {
        count = other.count;
        total = other.total;
        System.arraycopy(other.key, 0, key, 0, count);
        System.arraycopy(other.address, 0, address, 0, count);
        System.arraycopy(other.length, 0, length, 0, count);
    }

    /**
     * Copies {@code n} bytes from message offset {@code offset} of these buffers into {@code dst} (a gather, with
     * local read rights); answers {@link MemoryRegions#OK} or the AE code of the first refused fragment.
     */
    int gather(MemoryRegions regions, int pd, long offset, BytesStore<?, ?> dst, long dstOffset, int n) {
        return walk(regions, pd, offset, dst, dstOffset, n, false);
    }

    /** Copies {@code n} bytes of {@code src} to message offset {@code offset} (a scatter, local write rights). */
    int scatter(MemoryRegions regions, int pd, long offset, BytesStore<?, ?> src, long srcOffset, int n) {
        return walk(regions, pd, offset, src, srcOffset, n, true);
    }

    private int walk(MemoryRegions regions, int pd, long offset, BytesStore<?, ?> buf, long bufOffset, int n,
                     boolean in) {
        if (offset < 0 || n < 0 || offset + n > total) {
            return dev.irdmaemu.fw.queue.AeCode.AMP_BOUNDS_VIOLATION.code();
        }
        long skip = offset;
        int done = 0;
        for (int i = 0; i < count && done < n; i++) {
            if (skip >= length[i]) {
                skip -= length[i];
                continue;
            }
            int piece = (int) Math.min(length[i] - skip, n - done);
            int r = in
                    ? regions.write(key[i], address[i] + skip, buf, bufOffset + done, piece,
                            MemoryRegions.LOCAL_WRITE, pd)
                    : regions.read(key[i], address[i] + skip, buf, bufOffset + done, piece,
                            MemoryRegions.LOCAL_READ, pd);
            if (r != MemoryRegions.OK) {
                return r;
            }
            done += piece;
            skip = 0;
        }
        return MemoryRegions.OK;
    }
}
