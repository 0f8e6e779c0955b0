package dev.irdmaemu.fw.bus;

import java.util.BitSet;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * In-process host RAM: one native block mapped into a {@link HostMemory} at a base guest-physical address, with
 * a page allocator for the driver's DMA buffers (rings, contexts, HMC backing pages, PUDA buffers). Allocations
 * are whole 4 KiB pages, aligned to their size rounded up to a power of two up to 2 MiB, as dma_alloc_coherent
 * gives the irdma driver. Zeroed on allocation.
 */
public final class HostRam implements AutoCloseable {
    public static final int PAGE_SIZE = 4096;

    private final HostMemory memory;
    private final BytesStore<?, Void> block;
    private final long base;
    private final int pages;
    private final BitSet used;

    public HostRam(HostMemory memory, long baseGpa, long size) {
        if (size <= 0 || size % PAGE_SIZE != 0 || size / PAGE_SIZE > Integer.MAX_VALUE || baseGpa % PAGE_SIZE != 0) {
            throw new IllegalArgumentException("host RAM must be whole pages at a page-aligned base");
        }
        this.memory = memory;
        this.base = baseGpa;
        this.pages = (int) (size / PAGE_SIZE);
        this.used = new BitSet(pages);
        // zeroed once, here (Chronicle's fixed-capacity native store clears what it allocates)
        this.block = BytesStore.nativeStoreWithFixedCapacity(size);
        memory.map(baseGpa, block, 0, size);
    }

    public HostMemory memory() {
        return memory;
    }

    /** Guest-physical address of a zeroed DMA buffer of at least {@code bytes}; throws when RAM is exhausted. */
    public synchronized long allocate(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("allocation of " + bytes + " bytes");
        }
        int n = (int) ((bytes + PAGE_SIZE - 1) / PAGE_SIZE);
        int align = Math.min(Integer.highestOneBit(n * 2 - 1), 512);
        for (int p = 0; p + n <= pages; p += align) {
            int next = used.nextSetBit(p);
            if (next < 0 || next >= p + n) {
                used.set(p, p + n);
                block.zeroOut((long) p * PAGE_SIZE, (long) (p + n) * PAGE_SIZE);
                return base + (long) p * PAGE_SIZE;
            }
        }
        throw new IllegalStateException("host RAM exhausted: no " + n + " free pages");
    }

    /** Frees a buffer returned by {@link #allocate(long)} of the same size. */
    public synchronized void free(long gpa, long bytes) {
        int p = (int) ((gpa - base) / PAGE_SIZE);
        int n = (int) ((bytes + PAGE_SIZE - 1) / PAGE_SIZE);
        if (gpa < base || (gpa - base) % PAGE_SIZE != 0 || p + n > pages) {
            throw new IllegalArgumentException("free of 0x" + Long.toHexString(gpa) + " outside host RAM");
        }
        used.clear(p, p + n);
    }

    public synchronized int pagesInUse() {
        return used.cardinality();
    }

    /** The store and offset of a host address, for the driver's own (CPU) accesses. */
    public BytesStore<?, Void> store() {
        return block;
    }

    public long offsetOf(long gpa) {
        if (gpa < base || gpa >= base + (long) pages * PAGE_SIZE) {
            throw new IllegalArgumentException("0x" + Long.toHexString(gpa) + " is not host RAM");
        }
        return gpa - base;
    }

    @Override
    public void close() {
        memory.unmap(base);
        block.releaseLast();
    }
}
