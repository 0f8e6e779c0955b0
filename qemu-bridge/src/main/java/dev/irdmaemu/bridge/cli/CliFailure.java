package dev.irdmaemu.bridge.cli;

/** A failure a subcommand explains itself: one line for stderr and the exit code. */
final class CliFailure extends Exception {
    private static final long serialVersionUID = 1L;

    private final int exitCode;

    CliFailure(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    /**
     * A wait the command was in was interrupted (a signal's teardown, a test's interrupt): the thread's interrupt
     * flag set again for whoever runs next, and the failure "COMMAND: interrupted".
     */
    static CliFailure interrupted(String command, InterruptedException cause) {
        Thread.currentThread().interrupt();
        return new CliFailure(ExitCodes.FAILED, command + ": interrupted", cause);
    }

    int exitCode() {
        return exitCode;
    }
}
