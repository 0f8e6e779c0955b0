package dev.irdmaemu.model.ice;

import static dev.irdmaemu.fw.aq.AqLayout.AllocFreeRes.*;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import java.util.BitSet;
import java.util.function.BiConsumer;
import net.openhft.chronicle.bytes.Bytes;

/**
 * Switch and flow resources by id: allocate (0x0208) and free (0x0209) resources, struct ice_aqc_alloc_free_res_cmd
 * with the buffer ice_aqc_alloc_free_res_elem (res_type u16, num_elems u16, one u16 id per element), as
 * ice_common.c ice_alloc_hw_res / ice_free_hw_res and ice_switch.c send them. One pool of ids per resource type
 * (res_type bits 6:0); recipes are limited to 64 ids (ICE_MAX_NUM_RECIPES), every other type to 1024. An allocation
 * is all or nothing (ENOSPC); a free naming an id not allocated frees nothing and answers ENOENT.
 */
public final class ResourcePool {
    public static final int RECIPES = 64;
    public static final int IDS_PER_TYPE = 1024;

    private final BitSet[] used = new BitSet[RES_TYPE_M + 1];
    private final int[] scratch = new int[2048];

    public void registerWith(BiConsumer<Integer, AqCommandHandler> r) {
        r.accept(AqOpcode.ALLOC_RES, (d, b) -> allocOrFree(d, b, true));
        r.accept(AqOpcode.FREE_RES, (d, b) -> allocOrFree(d, b, false));
    }

    private static int capacity(int type) {
        return type == RES_TYPE_RECIPE ? RECIPES : IDS_PER_TYPE;
    }

    private BitSet pool(int type) {
        if (used[type] == null) {
            used[type] = new BitSet(capacity(type));
        }
        return used[type];
    }

    private int allocOrFree(AqDescriptor d, Bytes<?> b, boolean alloc) {
        if (b == null || d.paramU16(NUM_ENTRIES) != 1 || b.readRemaining() < BUF_ELEM) {
            return AqError.EINVAL;
        }
        int type = b.readUnsignedShort(BUF_RES_TYPE) & RES_TYPE_M;
        int n = b.readUnsignedShort(BUF_NUM_ELEMS);
        if (n == 0 || BUF_ELEM + 2L * n > b.readRemaining()) {
            return AqError.EINVAL;
        }
        BitSet p = pool(type);
        int cap = capacity(type);
        if (alloc) {
            int found = 0;
            for (int id = p.nextClearBit(0); id < cap && found < n; id = p.nextClearBit(id + 1)) {
                scratch[found++] = id;
            }
            if (found < n) {
                return AqError.ENOSPC;
            }
            for (int i = 0; i < n; i++) {
                p.set(scratch[i]);
                b.writeShort(BUF_ELEM + 2L * i, (short) scratch[i]);
            }
            return AqError.OK;
        }
        for (int i = 0; i < n; i++) {
            int id = b.readUnsignedShort(BUF_ELEM + 2L * i);
            if (id >= cap || !p.get(id)) {
                return AqError.ENOENT;
            }
        }
        for (int i = 0; i < n; i++) {
            p.clear(b.readUnsignedShort(BUF_ELEM + 2L * i));
        }
        return AqError.OK;
    }

    /** Ids of {@code type} in use. */
    public int inUse(int type) {
        return type < 0 || type > RES_TYPE_M || used[type] == null ? 0 : used[type].cardinality();
    }

    void clear() {
        for (BitSet s : used) {
            if (s != null) {
                s.clear();
            }
        }
    }
}
