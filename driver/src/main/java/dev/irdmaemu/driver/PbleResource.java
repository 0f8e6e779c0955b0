package dev.irdmaemu.driver;

import dev.irdmaemu.fw.hmc.PbleLayout;
import java.util.BitSet;
import java.util.function.LongUnaryOperator;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The driver's allocator of physical buffer list entries in the HMC PBLE object (pble.c struct
 * irdma_hmc_pble_rsrc): it hands out runs of PBLE indexes and writes page addresses into them through the host
 * pages that back the object. As pble.c: allocation starts at the first 4 KiB boundary of the object
 * (irdma_hmc_init_pble), a request is served from one run (level 1) when one is free, and a request above
 * {@link PbleLayout#PBLE_PER_PAGE} entries that allows it falls back to level 2: a root run holding the leaf
 * indexes and one run of up to 512 entries per leaf (get_lvl2_pble).
 *
 * <p>Backing grows on demand as pble.c's does: the pool starts with the chunk irdma_hmc_init_pble backed, and
 * when a request finds no room (irdma_get_pble) one more chunk is added ({@link ChunkSource}, pble.c
 * add_pble_prm: up to the end of the next SD, with its Update PE SDs) and the request tried again. A run of
 * PBLEs never spans two chunks (irdma_prm_get_pbles searches one chunk's bitmap at a time). Freed PBLEs go back to
 * their chunk; chunks are kept until the function goes away (irdma_destroy_pble_prm). Like rf-&gt;pble_rsrc it belongs to the function: the driver makes it after the HMC commit (hw.c
 * irdma_ctrl_init_hw calls irdma_hmc_init_pble before irdma_setup_aeq, whose virtual AEQ takes PBLEs from it) and
 * the verbs register memory regions and queue rings through it.
 */
public final class PbleResource {
    /** One allocation (pble.h struct irdma_pble_alloc). */
    public static final class Allocation {
        public final int level;
        public final int count;
        /** Level 1: the first PBLE index; level 2: the root's. */
        public final int first;
        final int[] leafFirst;
        final int[] leafCount;

        Allocation(int level, int count, int first, int[] leafFirst, int[] leafCount) {
            this.level = level;
            this.count = count;
            this.first = first;
            this.leafFirst = leafFirst;
            this.leafCount = leafCount;
        }

        /** The PBLE index holding page {@code i} of the region. */
        public int indexOf(int i) {
            return level == 1 ? first + i : leafFirst[i / PbleLayout.PBLE_PER_PAGE] + i % PbleLayout.PBLE_PER_PAGE;
        }
    }

    /** pble.c add_pble_prm for this pool: backs one more chunk. */
    @FunctionalInterface
    public interface ChunkSource {
        /** Answers the PBLE index where the backed range now ends, or -1 when no chunk can be added (-ENOMEM). */
        long addChunk();
    }

    private final BytesStore<?, ?> store;
    private final LongUnaryOperator storeOffsetOfFpm;
    private final long fpmBase;
    private final int firstUsable;
    private final BitSet used;
    private final ChunkSource chunks;
    /** The chunks' [start, end) PBLE indexes, in the order they were added (contiguous in the object). */
    private int[] chunkStart = new int[4];
    private int[] chunkEnd = new int[4];
    private int chunkCount;
    private int count;
    private long chunksAdded;
    private long level1Allocations;
    private long level2Allocations;
    private long failures;

    /**
     * @param storeOffsetOfFpm FPM address to store offset of the backing byte, or a negative value when unbacked
     * @param fpmBase          the PBLE object's base in FPM space (Commit FPM)
     * @param count            the committed PBLE count
     */
    public PbleResource(BytesStore<?, ?> store, LongUnaryOperator storeOffsetOfFpm, long fpmBase, long count) {
        this(store, storeOffsetOfFpm, fpmBase, count, null);
    }

    /**
     * A pool whose first chunk ends at PBLE index {@code backed} and that grows through {@code chunks} (null: never).
     */
    public PbleResource(BytesStore<?, ?> store, LongUnaryOperator storeOffsetOfFpm, long fpmBase, long backed,
                        ChunkSource chunks) {
        this.store = store;
        this.storeOffsetOfFpm = storeOffsetOfFpm;
        this.fpmBase = fpmBase;
        this.chunks = chunks;
        this.count = (int) Math.min(Integer.MAX_VALUE, Math.max(0, backed));
        // pble.c irdma_hmc_init_pble: start on a 4 KiB boundary
        this.firstUsable = (fpmBase & 0xfff) != 0 ? (int) ((4096 - (fpmBase & 0xfff)) >> 3) : 0;
        this.used = new BitSet(this.count);
        if (this.count > firstUsable) {
            addChunkRange(firstUsable, this.count);
        }
    }

    private void addChunkRange(int start, int end) {
        if (chunkCount == chunkStart.length) {
            chunkStart = java.util.Arrays.copyOf(chunkStart, chunkCount * 2);
            chunkEnd = java.util.Arrays.copyOf(chunkEnd, chunkCount * 2);
        }
        chunkStart[chunkCount] = start;
        chunkEnd[chunkCount] = end;
        chunkCount++;
    }

    /** pble.c add_pble_prm through the {@link ChunkSource}: false when the pool cannot grow. */
    private boolean grow() {
        if (chunks == null) {
            return false;
        }
        long end = chunks.addChunk();
        if (end <= count) {
            return false;
        }
        int newEnd = (int) Math.min(Integer.MAX_VALUE, end);
        addChunkRange(Math.max(count, firstUsable), newEnd);
        count = newEnd;
        chunksAdded++;
        return true;
    }

    /**
     * pble.c irdma_get_pble: level 1 first, then level 2 when {@code allowLevel2} and the request needs more than one
     * page of PBLEs. Null when neither fits (the driver answers -ENOMEM).
     */
    public Allocation allocate(int pages, boolean allowLevel2) {
        if (pages <= 0) {
            return null;
        }
        Allocation a = allocateLevels(pages, allowLevel2);
        // pble.c irdma_get_pble: no room without more SDs: add a chunk and try again; with a level asked for (every
        // caller here asks for one) that is one chunk, once
        if (a == null && grow()) {
            a = allocateLevels(pages, allowLevel2);
        }
        if (a == null) {
            failures++;
        }
        return a;
    }

    /** pble.c get_lvl1_lvl2_pble: level 1, else level 2 when allowed and more than a page of PBLEs is asked for. */
    private Allocation allocateLevels(int pages, boolean allowLevel2) {
        int first = run(pages);
        if (first >= 0) {
            level1Allocations++;
            return new Allocation(1, pages, first, null, null);
        }
        if (!allowLevel2 || pages <= PbleLayout.PBLE_PER_PAGE) {
            return null;
        }
        int leaves = PbleLayout.leafCount(pages);
        int root = run(leaves);
        if (root < 0) {
            return null;
        }
        int[] leafFirst = new int[leaves];
        int[] leafCount = new int[leaves];
        for (int i = 0; i < leaves; i++) {
            int n = i == leaves - 1 && pages % PbleLayout.PBLE_PER_PAGE != 0 ? pages % PbleLayout.PBLE_PER_PAGE
                    : PbleLayout.PBLE_PER_PAGE;
            int at = run(n);
            if (at < 0) {
                // pble.c free_lvl2: give back what was taken
                for (int j = 0; j < i; j++) {
                    used.clear(leafFirst[j], leafFirst[j] + leafCount[j]);
                }
                used.clear(root, root + leaves);
                return null;
            }
            leafFirst[i] = at;
            leafCount[i] = n;
            // the root names each leaf by its first PBLE index (get_lvl2_pble: *addr = leaf->idx)
            write(root + i, at);
        }
        level2Allocations++;
        return new Allocation(2, pages, root, leafFirst, leafCount);
    }

    /**
     * First-fit run of {@code n} free PBLEs inside one chunk (pble.c irdma_prm_get_pbles walks the chunk list and
     * each chunk's bitmap), taken; -1 when there is none.
     */
    private int run(int n) {
        for (int c = 0; c < chunkCount; c++) {
            int end = chunkEnd[c];
            int at = used.nextClearBit(chunkStart[c]);
            while (at + n <= end) {
                int next = used.nextSetBit(at);
                if (next < 0 || next >= at + n) {
                    used.set(at, at + n);
                    return at;
                }
                at = used.nextClearBit(next);
            }
        }
        return -1;
    }

    /** Writes page address {@code pageAddress} as page {@code i} of the allocation (irdma_copy_user_pgaddrs). */
    public boolean writePage(Allocation a, int i, long pageAddress) {
        return write(a.indexOf(i), pageAddress);
    }

    /** Writes PBLE {@code index}; false when its FPM address is not backed (a driver bug, never device input). */
    public boolean write(int index, long value) {
        long o = storeOffsetOfFpm.applyAsLong(PbleLayout.fpmAddress(fpmBase, index));
        if (o < 0) {
            return false;
        }
        store.writeLong(o, value);
        return true;
    }

    /** Reads PBLE {@code index} (what the device will see), or -1 when unbacked. */
    public long read(int index) {
        long o = storeOffsetOfFpm.applyAsLong(PbleLayout.fpmAddress(fpmBase, index));
        return o < 0 ? -1 : store.readLong(o);
    }

    /** pble.c irdma_free_pble. */
    public void free(Allocation a) {
        if (a == null) {
            return;
        }
        if (a.level == 1) {
            used.clear(a.first, a.first + a.count);
            return;
        }
        for (int i = 0; i < a.leafFirst.length; i++) {
            used.clear(a.leafFirst[i], a.leafFirst[i] + a.leafCount[i]);
        }
        used.clear(a.first, a.first + a.leafFirst.length);
    }

    /** PBLEs in use. */
    public int inUse() {
        return used.cardinality();
    }

    public int firstUsable() {
        return firstUsable;
    }

    /** The end of the backed PBLE indexes (the pool's chunks end there); grows with each chunk added. */
    public int capacity() {
        return count;
    }

    /** The pool's chunks (the first one included). */
    public int chunks() {
        return chunkCount;
    }

    /** Chunks added on demand after the first (pble.c add_pble_prm from irdma_get_pble). */
    public long chunksAdded() {
        return chunksAdded;
    }

    public long level1Allocations() {
        return level1Allocations;
    }

    public long level2Allocations() {
        return level2Allocations;
    }

    public long failures() {
        return failures;
    }

    /** Takes PBLEs {@code [from, to)} out of circulation (tests: a fragmented pool). */
    public void reserve(int from, int to) {
        used.set(Math.max(from, firstUsable), Math.min(to, count));
    }

    public void release(int from, int to) {
        used.clear(Math.max(from, firstUsable), Math.min(to, count));
    }
}
