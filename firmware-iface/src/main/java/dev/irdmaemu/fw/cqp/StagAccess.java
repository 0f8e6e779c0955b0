package dev.irdmaemu.fw.cqp;

/**
 * The rights of an STag (user.h IRDMA_ACCESS_FLAGS_*), as the driver writes them into Alloc STag / Register MR
 * (IRDMA_CQPSQ_STAG_ARIGHTS, {@link StagFields#accessRights}) and into a Fast Register SQ WQE (IRDMAQPSQ_STAGRIGHTS),
 * and as the device checks them on every access. The single-bit rights are the *_ONLY values; user.h's
 * IRDMA_ACCESS_FLAGS_REMOTEREAD and _REMOTEWRITE, what verbs.c irdma_get_mr_access writes for IB_ACCESS_REMOTE_READ
 * and IB_ACCESS_REMOTE_WRITE, carry the matching local right with them.
 */
public final class StagAccess {
    public static final int LOCAL_READ = 0x01;
    public static final int LOCAL_WRITE = 0x02;
    public static final int REMOTE_READ_ONLY = 0x04;
    /** IRDMA_ACCESS_FLAGS_REMOTEREAD: remote and local read. */
    public static final int REMOTE_READ = REMOTE_READ_ONLY | LOCAL_READ;
    public static final int REMOTE_WRITE_ONLY = 0x08;
    /** IRDMA_ACCESS_FLAGS_REMOTEWRITE: remote and local write. */
    public static final int REMOTE_WRITE = REMOTE_WRITE_ONLY | LOCAL_WRITE;
    public static final int BIND_WINDOW = 0x10;
    public static final int ZERO_BASED = 0x20;
    /** The 5-bit rights field (STAG_ARIGHTS, STAGRIGHTS); ZERO_BASED travels as the VA-based flag instead. */
    public static final int RIGHTS_FIELD = 0x1f;

    private StagAccess() {
    }

    /** ctrl.c irdma_sc_mr_reg_non_shared / irdma_sc_alloc_stag: REMACCENABLED goes with either remote right. */
    public static boolean remoteAccess(int rights) {
        return (rights & (REMOTE_READ_ONLY | REMOTE_WRITE_ONLY)) != 0;
    }
}
