package dev.irdmaemu.bridge.vfiouser;

/**
 * What a codec's {@code validate()} or a handler answers about one request: {@link #OK}, or the rule it broke and
 * the errno its error reply carries (vfio-user.rst "Header": the error field holds a positive errno).
 */
public enum VfioUserStatus {
    OK(0),
    /** The payload is shorter or longer than the command's structure. */
    BAD_SIZE(Errno.EINVAL),
    /** argsz smaller than the structure the reply needs. */
    BAD_ARGSZ(Errno.EINVAL),
    /** Flag bits this server does not define or does not support in that combination. */
    BAD_FLAGS(Errno.EINVAL),
    /** A region or IRQ index the device does not have. */
    BAD_INDEX(Errno.EINVAL),
    /** An offset, count, start or address outside its region, vector table or address space. */
    OUT_OF_RANGE(Errno.EINVAL),
    /** An access size other than 1, 2, 4 or 8 (or 4096 for the one whole-config read). */
    BAD_ACCESS_SIZE(Errno.EINVAL),
    /** The message came with a number of file descriptors its command does not allow. */
    BAD_FD_COUNT(Errno.EINVAL),
    /** A received descriptor could not be used (not mappable, file too short). */
    BAD_FD(Errno.EINVAL),
    /** VERSION with a major other than 0, an unterminated JSON string, or a second VERSION. */
    BAD_VERSION(Errno.EINVAL),
    /** A command before VERSION was negotiated. */
    NOT_NEGOTIATED(Errno.EINVAL),
    /**
     * Guest RAM the device cannot share with the guest: a writable window with no file descriptor (QEMU's RAM is
     * anonymous memory), or one the client maps privately (a memory backend with share=off).
     */
    NOT_SHARED(Errno.EINVAL),
    /** A DMA window overlapping one already mapped (vfio-user.rst DMA_MAP: EEXIST). */
    OVERLAP(Errno.EEXIST),
    /** DMA_UNMAP of a window no DMA_MAP created with exactly that address and size. */
    NOT_MAPPED(Errno.ENOENT),
    /** A defined feature this server does not offer (dirty-page bitmaps, DATA_BOOL, MASK/UNMASK with fds). */
    UNSUPPORTED(Errno.ENOTSUP),
    /** A command number this server does not serve. */
    UNKNOWN_COMMAND(Errno.ENOSYS),
    /** The device model failed the access (a bug in the model, logged). */
    DEVICE_ERROR(Errno.EIO);

    private final int errno;

    VfioUserStatus(int errno) {
        this.errno = errno;
    }

    /** The positive errno of the error reply; 0 for {@link #OK}. */
    public int errno() {
        return errno;
    }

    /** Linux errno values (include/uapi/asm-generic/errno-base.h, errno.h). */
    static final class Errno {
        static final int ENOENT = 2;
        static final int EIO = 5;
        static final int EEXIST = 17;
        static final int EINVAL = 22;
        static final int ENOSYS = 38;
        static final int ENOTSUP = 95;

        private Errno() {
        }
    }
}
