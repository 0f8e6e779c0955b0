package dev.irdmaemu.fw.aq;

import dev.irdmaemu.fw.Flyweight;

/**
 * The query_sched_res (0x0412) reply (ice_adminq_cmd.h struct ice_aqc_query_txsched_res_resp): 32 bytes of
 * struct ice_aqc_generic_sched_props (phys_levels le16, logical_levels le16, flattening_bitmap u8,
 * max_device_cgds u8, max_pf_cgds u8, rsvd, rdma_qsets le16, 22 reserved) and 9 struct ice_aqc_layer_props of 32
 * bytes (logical_layer u8, chunk_size u8, max_device_nodes le16, max_pf_nodes le16, 4 reserved,
 * max_sibl_grp_sz le16, max_cir/eir/srl profiles le16, 14 reserved). ice_sched.c ice_sched_query_res_alloc takes
 * the layer count from logical_levels and each layer's max children from the NEXT layer's max_sibl_grp_sz.
 * The whole reply is 320 bytes, the size of the buffer ice sends; a shorter reply leaves the deeper layers' sibling
 * sizes zero, and the stock ice.ko of Linux 7.3 then dereferences a NULL children array in ice_sched_add_node (found
 * by booting it on the model).
 */
public final class SchedResources extends LeView implements Flyweight<SchedResources> {
    public static final int GENERIC_SIZE = 32;
    public static final int LAYER_SIZE = 32;
    public static final int SIZE = GENERIC_SIZE + SchedGroup.MAX_LEVELS * LAYER_SIZE;

    public boolean complete() {
        return has(0, SIZE);
    }

    public SchedResources generic(int physLevels, int logicalLevels, int maxPfCgds, int rdmaQsets) {
        zero(0, SIZE);
        put16(0, physLevels);
        put16(2, logicalLevels);
        put8(6, maxPfCgds);
        put16(8, rdmaQsets);
        return this;
    }

    public SchedResources layer(int layer, int maxDeviceNodes, int maxPfNodes, int maxSiblingGroup) {
        long at = GENERIC_SIZE + (long) layer * LAYER_SIZE;
        put8(at, layer);
        put16(at + 2, maxDeviceNodes);
        put16(at + 4, maxPfNodes);
        put16(at + 10, maxSiblingGroup);
        return this;
    }

    public int physLevels() {
        return u16(0);
    }

    public int logicalLevels() {
        return u16(2);
    }

    public int maxSiblingGroup(int layer) {
        return u16(GENERIC_SIZE + (long) layer * LAYER_SIZE + 10);
    }

    public int logicalLayer(int layer) {
        return u8(GENERIC_SIZE + (long) layer * LAYER_SIZE);
    }
}
