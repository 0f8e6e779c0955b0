package dev.irdmaemu.driver.verbs;

import dev.irdmaemu.driver.CqpException;

/**
 * A verb the driver refused, with the errno irdma answers it with: a bad argument (-EINVAL), no resource or host
 * memory left (-ENOMEM), an object still in use (-EBUSY), or the device's error completion for the CQP op (-EIO,
 * with the {@link CqpException} as cause). Control path only: the post and poll paths answer a
 * {@link PostStatus} instead and never throw.
 */
public final class VerbsException extends RuntimeException {
    /** What went wrong, with the kernel's errno. */
    public enum Kind {
        INVALID_ARGUMENT(-22),
        NO_MEMORY(-12),
        BUSY(-16),
        DEVICE_ERROR(-5);

        private final int errno;

        Kind(int errno) {
            this.errno = errno;
        }

        public int errno() {
            return errno;
        }
    }

    private final Kind kind;

    public VerbsException(Kind kind, String message) {
        super(kind + ": " + message);
        this.kind = kind;
    }

    public VerbsException(String verb, CqpException cause) {
        super(Kind.DEVICE_ERROR + ": " + verb + ": " + cause.getMessage(), cause);
        this.kind = Kind.DEVICE_ERROR;
    }

    public Kind kind() {
        return kind;
    }

    /** The device's error completion, when {@link #kind()} is DEVICE_ERROR. */
    public CqpException cqpError() {
        return getCause() instanceof CqpException c ? c : null;
    }
}
