package dev.irdmaemu.driver;

import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.RdmaFeatureBuffer;
import dev.irdmaemu.fw.reg.Bits;
import java.util.Arrays;

/**
 * dev->feature_info[] as ctrl.c irdma_get_rdma_features fills it (gen2: between irdma_create_cqp and
 * irdma_hmc_setup), and what verbs.h and irdma read from it (irdma_fw_major_ver / irdma_fw_minor_ver, the function's
 * feature flags). Callers reach it as {@link IrdmaDriver#features()}.
 */
public final class RdmaFeatures {
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
     * ctrl.c irdma_get_rdma_features (the bring-up runs it between irdma_create_cqp and irdma_hmc_setup): query
     * into a 272-byte buffer; when the device reports more than IRDMA_MAX_FEATURES entries, query again into
     * ALIGN(8 x count, 16) bytes. Each entry whose type is below IRDMA_MAX_FEATURES is kept whole, as
     * dev->feature_info[type] ({@link #info(int)}); FW_INFO starts as IRDMA_FW_VER_DEFAULT.
     *
     * @throws CqpException fewer than two entries ({@link CqpException.Kind#BAD_FEATURES}), or a refused op
     */
    public void query() {
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

    /** Feature entries the device reported (irdma_get_rdma_features' feature_cnt). */
    public int count() {
        return count;
    }

    /** dev->feature_info[type]: the whole entry the device reported for {@code type}, 0 if none. */
    public long info(int type) {
        return info[type];
    }

    /** verbs.h irdma_fw_major_ver: IRDMA_FW_VER_MAJOR of the FW_INFO entry. */
    public int fwMajorVersion() {
        return (int) Bits.get(info[RdmaFeatureBuffer.FEATURE_FW_INFO], RdmaFeatureBuffer.FW_VER_MAJOR);
    }

    /** verbs.h irdma_fw_minor_ver: IRDMA_FW_VER_MINOR of the FW_INFO entry. */
    public int fwMinorVersion() {
        return (int) Bits.get(info[RdmaFeatureBuffer.FEATURE_FW_INFO], RdmaFeatureBuffer.FW_VER_MINOR);
    }

    /** dev->feature_info[IRDMA_FTN_FLAGS]: the function's feature flags (0 when the device sent none). */
    public long flags() {
        return info[RdmaFeatureBuffer.FTN_FLAGS];
    }

    /** IRDMA_FEATURE_ATOMIC_OPS: set when FTN_FLAGS carries IRDMA_ATOMICS_ALLOWED_BIT. */
    public boolean atomicsAllowed() {
        return (flags() & RdmaFeatureBuffer.FLAG_ATOMICS_ALLOWED) != 0;
    }
}
