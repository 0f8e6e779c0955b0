package dev.irdmaemu.bridge.trace;

/** A line of a trace that is not an event: not a flat JSON object, or without its time or event name. */
public final class TraceFormatException extends Exception {
    private static final long serialVersionUID = 1L;

    private final long lineNumber;

    public TraceFormatException(long lineNumber, String message) {
        super("line " + lineNumber + ": " + message);
        this.lineNumber = lineNumber;
    }

    /** The 1-based number of the offending line. */
    public long lineNumber() {
        return lineNumber;
    }
}
