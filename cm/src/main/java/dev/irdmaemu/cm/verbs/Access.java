package dev.irdmaemu.cm.verbs;

/**
 * Memory access flags as a verbs consumer gives them (include/rdma/ib_verbs.h enum ib_access_flags) and their
 * translation into the device's STag rights (verbs.c irdma_get_mr_access, user.h IRDMA_ACCESS_FLAGS_*).
 */
public final class Access {
    /** ib_verbs.h IB_ACCESS_*. */
    public static final int LOCAL_WRITE = 1;
    public static final int REMOTE_WRITE = 1 << 1;
    public static final int REMOTE_READ = 1 << 2;
    public static final int REMOTE_ATOMIC = 1 << 3;
    public static final int MW_BIND = 1 << 4;
    public static final int ZERO_BASED = 1 << 5;

    /** user.h IRDMA_ACCESS_FLAGS_*: the rights field of Register MR / Fast Register. */
    public static final int HW_LOCAL_READ = 0x01;
    public static final int HW_LOCAL_WRITE = 0x02;
    public static final int HW_REMOTE_READ_ONLY = 0x04;
    public static final int HW_REMOTE_WRITE_ONLY = 0x08;
    public static final int HW_BIND_WINDOW = 0x10;
    public static final int HW_ZERO_BASED = 0x20;

    private Access() {
    }

    /**
     * verbs.c irdma_get_mr_access for gen2: local write, remote write, remote read and zero-based map across,
     * local read is always granted, the memory-window bind right is gen3 only.
     */
    public static int hardwareRights(int access) {
        int hw = HW_LOCAL_READ;
        hw |= (access & LOCAL_WRITE) != 0 ? HW_LOCAL_WRITE : 0;
        hw |= (access & REMOTE_WRITE) != 0 ? HW_REMOTE_WRITE_ONLY : 0;
        hw |= (access & REMOTE_READ) != 0 ? HW_REMOTE_READ_ONLY : 0;
        hw |= (access & ZERO_BASED) != 0 ? HW_ZERO_BASED : 0;
        return hw;
    }

    /** ctrl.c irdma_sc_mr_reg_non_shared: remote access is enabled when either remote right is granted. */
    public static boolean remoteAccess(int hardwareRights) {
        return (hardwareRights & (HW_REMOTE_READ_ONLY | HW_REMOTE_WRITE_ONLY)) != 0;
    }
}
