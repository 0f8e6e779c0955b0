package dev.irdmaemu.fw.aq;

/**
 * The AQ return codes (libie/adminq.h enum libie_aq_err), as written into the descriptor's retval. Placeholder
 * with the constants agreed with branch aqcore, which owns this class.
 */
public final class AqError {
    private AqError() {
    }

    public static final int OK = 0;
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int ESRCH = 3;
    public static final int EIO = 5;
    public static final int EAGAIN = 8;
    public static final int ENOMEM = 9;
    public static final int EACCES = 10;
    public static final int EBUSY = 12;
    public static final int EEXIST = 13;
    public static final int EINVAL = 14;
    public static final int ENOSPC = 16;
    public static final int ENOSYS = 17;
    public static final int EMODE = 21;
    public static final int ENOSEC = 24;
    public static final int EBADSIG = 25;
    public static final int ESVN = 26;
    public static final int EBADMAN = 27;
    public static final int EBADBUF = 28;
}
