package dev.irdmaemu.driver;

import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.RdmaFeatureBuffer;
import dev.irdmaemu.fw.reg.Bits;
import java.util.Arrays;

/**
 * dev->feature_info[] as ctrl.c irdma_get_rdma_features fills it (gen2: between irdma_create_cqp and
 * irdma_hmc_setup), and what verbs.h and irdma read from it (irdma_fw_major_ver / irdma_fw_minor_ver, the function's
 * feature flags).
 */
final class RdmaFeatures {
    /** main.h IRDMA_FW_VER_DEFAULT: feature_info[IRDMA_FEATURE_FW_INFO] before the query answers. */
    static final long IRDMA_FW_VER_DEFAULT = 2;
    /** defs.h IRDMA_FEATURE_BUF_ALIGNMENT. */
    static final int IRDMA_FEATURE_BUF_ALIGNMENT = 0x10;

    private final IrdmaHw hw;
    private final CqpChannel cqp;
    /** dev->feature_info[]: each feature entry the device reported, by type (IRDMA_MAX_FEATURES of them). */
    private final long[] info = new long[RdmaFeatureBuffer.MAX_FEATURES];
    private int count;

    RdmaFeatures(IrdmaHw hw, CqpChannel cqp) {
        this.hw = hw;
        this.cqp = cqp;
    }

    /**
     * Query into a 272-byte buffer; when the device reports more than IRDMA_MAX_FEATURES entries, query again into
     * ALIGN(8 x count, 16) bytes. Fewer than two entries is an error. Each entry whose type is below
     * IRDMA_MAX_FEATURES is kept whole, as dev->feature_info[type]; FW_INFO starts as IRDMA_FW_VER_DEFAULT.
     */
    void query() {
        Arrays.fill(info, 0);
        info[RdmaFeatureBuffer.FEATURE_FW_INFO] = IRDMA_FW_VER_DEFAULT;
        long buf = hw.allocate(RdmaFeatureBuffer.DRIVER_BUFFER_SIZE);
        cqp.op("QUERY_RDMA_FEATURES", (o, v) -> CqpWqeWriter.queryRdmaFeatures(hw.store, o, buf,
                RdmaFeatureBuffer.DRIVER_BUFFER_SIZE, v));
        RdmaFeatureBuffer f = new RdmaFeatureBuffer().wrap(hw.store, hw.off(buf), RdmaFeatureBuffer.DRIVER_BUFFER_SIZE);
        int n = f.count();
        if (n >= 2 && n > RdmaFeatureBuffer.MAX_FEATURES) {
            int size = (8 * n + IRDMA_FEATURE_BUF_ALIGNMENT - 1) & -IRDMA_FEATURE_BUF_ALIGNMENT;
            long big = hw.allocate(size);
            cqp.op("QUERY_RDMA_FEATURES", (o, v) -> CqpWqeWriter.queryRdmaFeatures(hw.store, o, big, size, v));
            f.wrap(hw.store, hw.off(big), size);
            n = f.count();
        }
        if (n < 2) {
            throw new CqpException(CqpException.Kind.BAD_FEATURES, "QUERY_RDMA_FEATURES", 0, 0);
        }
        for (int i = 0; i < Math.min(n, RdmaFeatureBuffer.MAX_FEATURES); i++) {
            int type = f.type(i);
            if (type < RdmaFeatureBuffer.MAX_FEATURES) {
                info[type] = f.entry(i);
            }
        }
        count = n;
    }

    int count() {
        return count;
    }

    long info(int type) {
        return info[type];
    }

    int fwMajorVersion() {
        return (int) Bits.get(info[RdmaFeatureBuffer.FEATURE_FW_INFO], RdmaFeatureBuffer.FW_VER_MAJOR);
    }

    int fwMinorVersion() {
        return (int) Bits.get(info[RdmaFeatureBuffer.FEATURE_FW_INFO], RdmaFeatureBuffer.FW_VER_MINOR);
    }

    long flags() {
        return info[RdmaFeatureBuffer.FTN_FLAGS];
    }
}
