package dev.irdmaemu.model.trace;

/** Where trace events go. Called synchronously; the event is reused after the call returns. */
@FunctionalInterface
public interface TraceSink {
    TraceSink NONE = e -> { };

    void accept(TraceEvent event);
}
