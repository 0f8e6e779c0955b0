package dev.irdmaemu.bridge.cli;

/** A failure a subcommand explains itself: one line for stderr and the exit code. */
final class CliFailure extends Exception {
    private static final long serialVersionUID = 1L;

    private final int exitCode;

    CliFailure(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }
}
