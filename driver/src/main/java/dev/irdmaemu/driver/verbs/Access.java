package dev.irdmaemu.driver.verbs;

import dev.irdmaemu.fw.cqp.StagAccess;

/**
 * Memory access flags as a verbs consumer gives them (include/rdma/ib_verbs.h enum ib_access_flags) and their
 * translation into the device's STag rights (verbs.c irdma_get_mr_access; the rights are firmware-iface's
 * {@link StagAccess}, user.h IRDMA_ACCESS_FLAGS_*).
 */
public final class Access {
    /** ib_verbs.h IB_ACCESS_*. */
    public static final int LOCAL_WRITE = 1;
    public static final int REMOTE_WRITE = 1 << 1;
    public static final int REMOTE_READ = 1 << 2;
    public static final int REMOTE_ATOMIC = 1 << 3;
    public static final int MW_BIND = 1 << 4;
    public static final int ZERO_BASED = 1 << 5;

    private Access() {
    }

    /**
     * verbs.c irdma_get_mr_access for gen2 ({@link StagAccess} values): remote write brings local write with it
     * (IRDMA_ACCESS_FLAGS_REMOTEWRITE), remote read local read (IRDMA_ACCESS_FLAGS_REMOTEREAD), zero-based maps
     * across, local read is always granted, the memory-window bind right is gen3 only.
     */
    public static int hardwareRights(int access) {
        int hw = StagAccess.LOCAL_READ;
        hw |= (access & LOCAL_WRITE) != 0 ? StagAccess.LOCAL_WRITE : 0;
        hw |= (access & REMOTE_WRITE) != 0 ? StagAccess.REMOTE_WRITE : 0;
        hw |= (access & REMOTE_READ) != 0 ? StagAccess.REMOTE_READ : 0;
        hw |= (access & ZERO_BASED) != 0 ? StagAccess.ZERO_BASED : 0;
        return hw;
    }

    /** ctrl.c irdma_sc_mr_reg_non_shared: remote access is enabled when either remote right is granted. */
    public static boolean remoteAccess(int hardwareRights) {
        return StagAccess.remoteAccess(hardwareRights);
    }
}
