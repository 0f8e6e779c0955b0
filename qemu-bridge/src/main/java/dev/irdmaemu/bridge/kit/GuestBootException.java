package dev.irdmaemu.bridge.kit;

/** The guest gave no result: QEMU would not start, exited first, or the result line did not come in time. */
public final class GuestBootException extends Exception {
    private static final long serialVersionUID = 1L;

    GuestBootException(String message) {
        super(message);
    }

    GuestBootException(String message, Throwable cause) {
        super(message, cause);
    }
}
