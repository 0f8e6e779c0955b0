package dev.irdmaemu.fw.bus;

import java.util.Arrays;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Guest-physical memory as the device sees it through DMA: a set of non-overlapping regions, each a Chronicle
 * {@link BytesStore} mapped at a base address (in-process, native memory; under QEMU, the guest's shared memory
 * regions from SET_MEM_TABLE). The same model code serves both.
 *
 * <p>Every access is checked first: {@link #find(long, long)} answers the region that holds the whole range
 * {@code [gpa, gpa + length)}, or -1. Codecs then wrap {@link #store(int)} at {@link #offset(int, long)} with no
 * copy. A range that straddles two regions is refused, as a device DMA of one descriptor would be; lookups
 * allocate nothing. Not thread-safe for mapping; lookups may run concurrently once mapping is done.
 */
public final class HostMemory {
    /**
     * What {@link #find} answers for a range no single region holds (unmapped, straddling two regions, or a bad
     * range). A negative int, so that a caller on the per-WQE path tests {@code r < 0} without an allocation.
     */
    public static final int UNMAPPED = -1;

    private long[] bases = new long[0];
    private long[] lengths = new long[0];
    private BytesStore<?, ?>[] stores = new BytesStore<?, ?>[0];
    private long[] storeOffsets = new long[0];

    /** Maps {@code length} bytes of {@code store} from {@code storeOffset} at guest-physical {@code gpa}. */
    public synchronized void map(long gpa, BytesStore<?, ?> store, long storeOffset, long length) {
        if (length <= 0 || gpa < 0 || gpa > Long.MAX_VALUE - length) {
            throw new IllegalArgumentException("bad region " + Long.toHexString(gpa) + "+" + length);
        }
        if (storeOffset < store.start() || storeOffset > store.capacity() - length) {
            throw new IllegalArgumentException("region " + storeOffset + "+" + length + " outside its store");
        }
        int at = 0;
        while (at < bases.length && bases[at] < gpa) {
            at++;
        }
        if (at > 0 && bases[at - 1] + lengths[at - 1] > gpa || at < bases.length && gpa + length > bases[at]) {
            throw new IllegalArgumentException("region at 0x" + Long.toHexString(gpa) + " overlaps another");
        }
        bases = insert(bases, at, gpa);
        lengths = insert(lengths, at, length);
        storeOffsets = insert(storeOffsets, at, storeOffset);
        BytesStore<?, ?>[] s = Arrays.copyOf(stores, stores.length + 1);
        System.arraycopy(s, at, s, at + 1, stores.length - at);
        s[at] = store;
        stores = s;
    }

    /** Unmaps the region that starts at {@code gpa}; false when none does. */
    public synchronized boolean unmap(long gpa) {
        int i = Arrays.binarySearch(bases, gpa);
        if (i < 0) {
            return false;
        }
        bases = remove(bases, i);
        lengths = remove(lengths, i);
        storeOffsets = remove(storeOffsets, i);
        BytesStore<?, ?>[] s = new BytesStore<?, ?>[stores.length - 1];
        System.arraycopy(stores, 0, s, 0, i);
        System.arraycopy(stores, i + 1, s, i, stores.length - i - 1);
        stores = s;
        return true;
    }

    public int regions() {
        return bases.length;
    }

    /** The region holding all of {@code [gpa, gpa + length)}, or {@link #UNMAPPED}. */
    public int find(long gpa, long length) {
        long[] b = bases;
        if (length < 0 || gpa < 0 || gpa > Long.MAX_VALUE - length) {
            return UNMAPPED;
        }
        int lo = 0;
        int hi = b.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (b[mid] <= gpa) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        int i = hi;
        if (i < 0) {
            return UNMAPPED;
        }
        long[] l = lengths;
        return gpa + length <= b[i] + l[i] ? i : UNMAPPED;
    }

    public boolean contains(long gpa, long length) {
        return find(gpa, length) >= 0;
    }

    public BytesStore<?, ?> store(int region) {
        return stores[region];
    }

    /** The offset in {@link #store(int)} of guest-physical {@code gpa}, which must lie in that region. */
    public long offset(int region, long gpa) {
        return storeOffsets[region] + (gpa - bases[region]);
    }

    public long base(int region) {
        return bases[region];
    }

    public long length(int region) {
        return lengths[region];
    }

    // Checked scalar accessors in the device's byte order (little-endian, as the E810 reads descriptors).
    // Each answers false / leaves memory untouched when the range is not mapped.

    /** Reads the little-endian 64-bit word at {@code gpa} into {@code out[index]}; false when unmapped. */
    public boolean readLong(long gpa, long[] out, int index) {
        int r = find(gpa, 8);
        if (r < 0) {
            return false;
        }
        out[index] = stores[r].readLong(offset(r, gpa));
        return true;
    }

    public boolean writeLong(long gpa, long value) {
        int r = find(gpa, 8);
        if (r < 0) {
            return false;
        }
        stores[r].writeLong(offset(r, gpa), value);
        return true;
    }

    public boolean writeInt(long gpa, int value) {
        int r = find(gpa, 4);
        if (r < 0) {
            return false;
        }
        stores[r].writeInt(offset(r, gpa), value);
        return true;
    }

    /** Copies {@code length} bytes from host memory into {@code dst}; false (nothing copied) when unmapped. */
    public boolean copyOut(long gpa, BytesStore<?, ?> dst, long dstOffset, long length) {
        int r = find(gpa, length);
        if (r < 0 || dstOffset < dst.start() || dstOffset > dst.capacity() - length) {
            return false;
        }
        dst.write(dstOffset, stores[r], offset(r, gpa), length);
        return true;
    }

    /** Copies {@code length} bytes of {@code src} into host memory; false (nothing written) when unmapped. */
    public boolean copyIn(long gpa, BytesStore<?, ?> src, long srcOffset, long length) {
        int r = find(gpa, length);
        if (r < 0 || srcOffset < src.start() || srcOffset > src.readLimit() - length) {
            return false;
        }
        stores[r].write(offset(r, gpa), src, srcOffset, length);
        return true;
    }

    private static long[] insert(long[] a, int at, long v) {
        long[] n = new long[a.length + 1];
        System.arraycopy(a, 0, n, 0, at);
        n[at] = v;
        System.arraycopy(a, at, n, at + 1, a.length - at);
        return n;
    }

    private static long[] remove(long[] a, int at) {
        long[] n = new long[a.length - 1];
        System.arraycopy(a, 0, n, 0, at);
        System.arraycopy(a, at + 1, n, at, a.length - at - 1);
        return n;
    }
}
