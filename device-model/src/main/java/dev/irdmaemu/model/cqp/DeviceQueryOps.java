package dev.irdmaemu.model.cqp;

import static dev.irdmaemu.model.cqp.CqpOperations.FEATURE_COUNT;
import static dev.irdmaemu.model.cqp.CqpOperations.FTN_FLAGS;
import static dev.irdmaemu.model.cqp.CqpOperations.FW_VERSION_MAJOR;
import static dev.irdmaemu.model.cqp.CqpOperations.FW_VERSION_MINOR;
import static dev.irdmaemu.model.cqp.CqpOperations.HW_VERSION;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.GatherStatsBuffer;
import dev.irdmaemu.fw.cqp.RdmaFeatureBuffer;
import dev.irdmaemu.model.iwarp.IwarpDataPath;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The CQP ops that answer the driver's questions about the function into a host buffer: Query RDMA Features
 * (ctrl.c irdma_sc_query_rdma_features, read by irdma_get_rdma_features at probe) and Gather Stats (ctrl.c
 * irdma_sc_gather_stats, sent by utils.c irdma_hw_stats_timeout). The feature values are
 * {@link CqpOperations}' constants.
 */
final class DeviceQueryOps {
    private final HostMemory memory;
    private final HmcOps hmcOps;
    private final IwarpDataPath dataPath;

    DeviceQueryOps(HostMemory memory, HmcOps hmcOps, IwarpDataPath dataPath) {
        this.memory = memory;
        this.hmcOps = hmcOps;
        this.dataPath = dataPath;
    }

    /**
     * Query RDMA features (ctrl.c irdma_sc_query_rdma_features): the feature entries go to the buffer at quadword
     * 4, entry 0 carrying IRDMA_FEATURE_CNT so that a driver whose buffer holds fewer entries can retry with a
     * larger one (irdma_get_rdma_features); entries beyond the buffer's length are not written. The whole buffer
     * the WQE declares must be mapped; a length that is 0 or not whole quadwords is refused.
     */
    void queryRdmaFeatures(CqpWqe w, CqpResult r) {
        long pa = w.featuresBufferAddress();
        // IRDMA_CQPSQ_QUERY_RDMA_FEATURES_BUF_LEN is 32 bits, unsigned
        long len = Integer.toUnsignedLong(w.featuresBufferLength());
        if (len == 0 || (len & 7) != 0) {
            r.fail(CqpFault.INVALID_FIELD, "feature buffer length is 0 or not whole quadwords");
            return;
        }
        int region = memory.find(pa, len);
        if (region < 0) {
            r.fail(CqpFault.DMA_FAULT, "feature buffer outside mapped memory");
            return;
        }
        BytesStore<?, ?> store = memory.store(region);
        long at = memory.offset(region, pa);
        int room = (int) Math.min(len, 8L * FEATURE_COUNT);
        RdmaFeatureBuffer.write(store, at, room, 0,
                RdmaFeatureBuffer.firstEntry(FEATURE_COUNT, FW_VERSION_MAJOR, FW_VERSION_MINOR));
        RdmaFeatureBuffer.write(store, at, room, 1, RdmaFeatureBuffer.entry(RdmaFeatureBuffer.HW_VERSION_INFO,
                HW_VERSION));
        RdmaFeatureBuffer.write(store, at, room, 2, RdmaFeatureBuffer.entry(RdmaFeatureBuffer.FTN_FLAGS,
                FTN_FLAGS));
    }

    /**
     * Gather stats (ctrl.c irdma_sc_gather_stats, sent every 60 s by utils.c irdma_hw_stats_timeout): the
     * function's counters into the 1024-byte buffer at quadword 4 in the gen2 layout (icrdma_hw_stat_map). The gen2
     * PF gathers its own function's counters: it sets neither USE_HMC_FCN_INDEX nor USE_INST (hw.c
     * irdma_rt_init_hw leaves alloc_stats_inst off). An index naming another function, a statistics instance (the
     * model has no Manage Stats) or a buffer outside host memory is refused with an error completion.
     */
    void gatherStats(CqpWqe w, CqpResult r) {
        if (w.statsUseHmcFnIndex() && !hmcOps.ownFunction(w.statsHmcFnIndex(), r)) {
            return;
        }
        if (w.statsUseInstance()) {
            r.fail(CqpFault.INVALID_FIELD, "statistics instances are not modelled (no Manage Stats)");
            return;
        }
        long pa = w.statsBufferAddress();
        int region = memory.find(pa, GatherStatsBuffer.SIZE);
        if (region < 0) {
            r.fail(CqpFault.DMA_FAULT, "stats buffer outside mapped memory");
            return;
        }
        dataPath.counters().gather(memory.store(region), memory.offset(region, pa), dataPath.retransmittedSegments());
    }

}
