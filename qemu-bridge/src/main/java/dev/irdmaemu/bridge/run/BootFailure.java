package dev.irdmaemu.bridge.run;

/** The boot could not go on: QEMU's console failed, the model stopped, or the run was interrupted. */
final class BootFailure extends Exception {
    private static final long serialVersionUID = 1L;

    BootFailure(String message) {
        super(message);
    }
}
