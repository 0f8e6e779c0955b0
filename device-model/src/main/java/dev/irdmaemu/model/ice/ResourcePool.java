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
 *
 * <p>Flow director filter entries are counted, not named: ice_switch.c ice_alloc_res_cntr asks for {@code
 * num_elems} guaranteed or shared entries with a one-element buffer and reads the block's first id back from
 * elem[0]; ice_free_res_cntr frees {@code num_elems} from that id. Their pools hold {@link
 * Capabilities#FD_GUARANTEED} and {@link Capabilities#FD_BEST_EFFORT} entries (GLQF_FD_SIZE).
 */
public final class ResourcePool {
    public static final int RECIPES = 64;
    public static final int IDS_PER_TYPE = 1024;

    /** Told of each id a free_res released (the switch drops a VSI list whose id ice freed). */
    public interface FreeListener {
        void freed(int type, int id);
    }

    private final BitSet[] used = new BitSet[RES_TYPE_M + 1];
    private FreeListener freeListener = (type, id) -> { };
    private final int[] scratch = new int[2048];

    public void registerWith(BiConsumer<Integer, AqCommandHandler> r) {
        r.accept(AqOpcode.ALLOC_RES, (d, b) -> allocOrFree(d, b, true));
        r.accept(AqOpcode.FREE_RES, (d, b) -> allocOrFree(d, b, false));
    }

    private static int capacity(int type) {
        return switch (type) {
            case RES_TYPE_RECIPE -> RECIPES;
            case RES_TYPE_FDIR_GUARANTEED_ENTRIES -> Capabilities.FD_GUARANTEED;
            case RES_TYPE_FDIR_SHARED_ENTRIES -> Capabilities.FD_BEST_EFFORT;
            default -> IDS_PER_TYPE;
        };
    }

    private static boolean counted(int type) {
        return type == RES_TYPE_FDIR_GUARANTEED_ENTRIES || type == RES_TYPE_FDIR_SHARED_ENTRIES;
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
        if (counted(type)) {
            return allocOrFreeBlock(b, type, n, alloc);
        }
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
            int id = b.readUnsignedShort(BUF_ELEM + 2L * i);
            p.clear(id);
            freeListener.freed(type, id);
        }
        return AqError.OK;
    }

    /** A block of {@code n} counted entries: found first-fit and answered by its first id, or freed from it. */
    private int allocOrFreeBlock(Bytes<?> b, int type, int n, boolean alloc) {
        int cap = capacity(type);
        if (n == 0 || b.readRemaining() < BUF_ELEM + 2) {
            return AqError.EINVAL;
        }
        if (n > cap) {
            return alloc ? AqError.ENOSPC : AqError.ENOENT;
        }
        BitSet p = pool(type);
        if (!alloc) {
            int first = b.readUnsignedShort(BUF_ELEM);
            if (first + n > cap || p.get(first, first + n).cardinality() != n) {
                return AqError.ENOENT;
            }
            p.clear(first, first + n);
            return AqError.OK;
        }
        for (int first = p.nextClearBit(0); first + n <= cap; first = p.nextClearBit(first + 1)) {
            int used = p.nextSetBit(first);
            if (used < 0 || used >= first + n) {
                p.set(first, first + n);
                b.writeShort(BUF_ELEM, (short) first);
                return AqError.OK;
            }
            first = used;
        }
        return AqError.ENOSPC;
    }

    /**
     * Calls {@code l} for each id free_res releases. In Linux 7.3 ice_switch.c ice_remove_vsi_list_rule builds the
     * VSI_LIST_CLEAR rule but only sends free_res for the list's id, so the firmware must drop the list with its id.
     */
    public void onFree(FreeListener l) {
        this.freeListener = l == null ? (type, id) -> { } : l;
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
