package dev.irdmaemu.fw.aq;

/**
 * The admin queue return codes, enum libie_aq_err of include/linux/net/intel/libie/adminq.h: the firmware writes one
 * into a completed descriptor's retval (with {@link AqDescriptor#ERR} when not {@link #OK}). ice_sq_send_cmd keeps
 * the low 8 bits, turns any non-OK code into -EIO and records it as sq_last_status, which callers test (e.g.
 * ice_nvm.c's flash-size search takes {@link #EINVAL} as "past the end", ice_ddp.c maps the signature codes to DDP
 * states).
 */
public final class AqError {
    private AqError() {
    }

    public static final int OK = 0;
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    /** "Bad opcode" in adminq.h. */
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

    private static final String[] NAMES = new String[29];

    static {
        NAMES[OK] = "OK";
        NAMES[EPERM] = "EPERM";
        NAMES[ENOENT] = "ENOENT";
        NAMES[ESRCH] = "ESRCH";
        NAMES[EIO] = "EIO";
        NAMES[EAGAIN] = "EAGAIN";
        NAMES[ENOMEM] = "ENOMEM";
        NAMES[EACCES] = "EACCES";
        NAMES[EBUSY] = "EBUSY";
        NAMES[EEXIST] = "EEXIST";
        NAMES[EINVAL] = "EINVAL";
        NAMES[ENOSPC] = "ENOSPC";
        NAMES[ENOSYS] = "ENOSYS";
        NAMES[EMODE] = "EMODE";
        NAMES[ENOSEC] = "ENOSEC";
        NAMES[EBADSIG] = "EBADSIG";
        NAMES[ESVN] = "ESVN";
        NAMES[EBADMAN] = "EBADMAN";
        NAMES[EBADBUF] = "EBADBUF";
    }

    /** True for a code adminq.h defines. */
    public static boolean defined(int code) {
        return code >= 0 && code < NAMES.length && NAMES[code] != null;
    }

    /** The adminq.h name without the LIBIE_AQ_RC_ prefix, or "UNKNOWN" (a constant: no allocation). */
    public static String name(int code) {
        return defined(code) ? NAMES[code] : "UNKNOWN";
    }
}
