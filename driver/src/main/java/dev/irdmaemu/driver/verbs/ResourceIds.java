package dev.irdmaemu.driver.verbs;

import java.util.BitSet;
import java.util.OptionalInt;

/**
 * One of irdma's resource bitmaps (allocated_pds, allocated_cqs, allocated_qps, allocated_mrs): ids are handed out
 * next-fit from where the last search ended, wrapping once (utils.c irdma_alloc_rsrc), and returned with
 * irdma_free_rsrc. Ids reserved at probe (hw.c irdma_initialize_hw_rsrc) are set at construction.
 */
final class ResourceIds {
    private final BitSet used;
    private final int max;
    private int next;

    ResourceIds(int max, int... reserved) {
        this.max = max;
        this.used = new BitSet(Math.max(1, max));
        for (int r : reserved) {
            if (r < max) {
                used.set(r);
            }
        }
    }

    /** utils.c irdma_alloc_rsrc: the next free id at or after the last one handed out; empty when none is free. */
    OptionalInt allocate() {
        return allocateFrom(next);
    }

    /** irdma_alloc_rsrc with a caller's starting point (irdma_create_stag starts at a random index). */
    OptionalInt allocateFrom(int start) {
        int from = start >= 0 && start < max ? start : 0;
        int id = used.nextClearBit(from);
        if (id >= max) {
            id = used.nextClearBit(0);
            if (id >= max) {
                return OptionalInt.empty();
            }
        }
        used.set(id);
        next = id + 1 >= max ? 0 : id + 1;
        return OptionalInt.of(id);
    }

    void free(int id) {
        if (id >= 0 && id < max) {
            used.clear(id);
        }
    }

    int max() {
        return max;
    }

    int inUseCount() {
        return used.cardinality();
    }
}
