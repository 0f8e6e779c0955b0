package dev.irdmaemu.driver.verbs;

import dev.irdmaemu.driver.CqpException;

/**
 * A verb the driver refused, with the errno irdma answers it with: a bad argument (-EINVAL), no resource or host
 * memory left (-ENOMEM), an object still in use or a CQP op irdma answers -EBUSY for (-EBUSY), or the device's
 * error completion for the CQP op (-EIO); a CQP failure is the {@link CqpException} cause. Control path only: the post and poll paths answer a
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

    /**
     * The verb's CQP op failed: -EBUSY when irdma_handle_cqp_op answers it (a completion with major 0xffff, minor
     * 0x8002, or an op refused after a reset request: utils.c irdma_wait_event and irdma_handle_cqp_op), -EIO
     * otherwise.
     */
    public VerbsException(String verb, CqpException cause) {
        this(kindOf(cause), verb, cause);
    }

    private VerbsException(Kind kind, String verb, CqpException cause) {
        super(kind + ": " + verb + ": " + cause.getMessage(), cause);
        this.kind = kind;
    }

    private static Kind kindOf(CqpException cause) {
        return switch (cause.kind()) {
            case BUSY, RESET_REQUESTED -> Kind.BUSY;
            default -> Kind.DEVICE_ERROR;
        };
    }

    public Kind kind() {
        return kind;
    }

    /** The CQP op's failure, when the verb failed there (DEVICE_ERROR, and BUSY from the CQP). */
    public CqpException cqpError() {
        return getCause() instanceof CqpException c ? c : null;
    }
}
