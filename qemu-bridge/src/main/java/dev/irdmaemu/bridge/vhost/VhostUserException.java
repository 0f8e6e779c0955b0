package dev.irdmaemu.bridge.vhost;

/** A broken rule of the vhost-user protocol or of a guest ring: ends the connection. */
public final class VhostUserException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient VhostUserFailure failure;

    public VhostUserException(VhostUserFailure failure, String detail) {
        super(failure.name() + ": " + failure.describe() + " (" + detail + ")");
        this.failure = failure;
    }

    public VhostUserFailure failure() {
        return failure;
    }
}
