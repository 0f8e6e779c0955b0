package dev.irdmaemu.model.trace;

import dev.irdmaemu.fw.sim.SimScheduler;

/**
 * The model's structured trace. Emitting code asks {@link #start(TraceKind)}: null when the kind is off (one mask
 * test, nothing built), else the reusable event to fill and {@link TraceEvent#emit()}. Single-threaded, like the
 * scheduler it takes its clock from.
 */
public final class Trace {
    private final SimScheduler clock;
    private final TraceEvent event = new TraceEvent(this);
    private TraceSink sink = TraceSink.NONE;
    private long mask;
    private long emitted;

    public Trace(SimScheduler clock) {
        this.clock = clock;
    }

    /** Sends every kind to {@code sink}. */
    public Trace enableAll(TraceSink s) {
        this.sink = s;
        this.mask = -1L;
        return this;
    }

    public Trace enable(TraceSink s, TraceKind... kinds) {
        this.sink = s;
        for (TraceKind k : kinds) {
            mask |= k.bit();
        }
        return this;
    }

    public Trace disable(TraceKind k) {
        mask &= ~k.bit();
        return this;
    }

    public Trace off() {
        mask = 0;
        sink = TraceSink.NONE;
        return this;
    }

    public boolean on(TraceKind k) {
        return (mask & k.bit()) != 0;
    }

    /** The event to fill for {@code k}, or null when {@code k} is not traced. */
    public TraceEvent start(TraceKind k) {
        if ((mask & k.bit()) == 0) {
            return null;
        }
        event.reset(k, clock.now());
        return event;
    }

    void deliver(TraceEvent e) {
        emitted++;
        sink.accept(e);
    }

    public long emitted() {
        return emitted;
    }
}
