package dev.irdmaemu.bridge.trace;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;

/**
 * One pass over a trace: each event the {@link TraceQuery} accepts becomes a line of the timeline (or a count of
 * the {@link TraceSummary}); with a trigger ({@code --before}), nothing is printed until the first event that
 * matches it, and then only the last {@code context} accepted events before it and the trigger itself (marked
 * {@code >>}), and the pass stops. Streams: memory is the context ring and the summary's tables, whatever the
 * trace's size.
 */
public final class TraceTimeline {
    /** How the pass ended. */
    public enum Outcome {
        /** The whole trace was read (no trigger asked). */
        DONE,
        /** The trigger matched: its context was printed. */
        TRIGGERED,
        /** A trigger was asked and no event matched it. */
        NOT_TRIGGERED,
        /** The output went away (a closed pipe): the pass stopped early. */
        OUTPUT_CLOSED
    }

    /** Where lines go; {@link #closed()} lets a pass stop when nobody reads any more. */
    public interface Output {
        void line(CharSequence line);

        default boolean closed() {
            return false;
        }
    }

    private final TraceQuery query;
    private final EventMatch trigger;
    private final int context;
    private final TraceSummary summary;
    private final EventDecoder decoder = new EventDecoder();
    private long events;

    /**
     * @param trigger {@code --before}: null for a plain timeline
     * @param context how many accepted events before the trigger to show
     * @param summary counts instead of lines: null for lines
     */
    public TraceTimeline(TraceQuery query, EventMatch trigger, int context, TraceSummary summary) {
        this.query = query;
        this.trigger = trigger;
        this.context = Math.max(0, context);
        this.summary = summary;
    }

    public Outcome run(Reader in, Output out) throws IOException, TraceFormatException {
        TraceReader reader = new TraceReader(in);
        // copies of the accepted events before the trigger, formatted only when it matches
        TraceRecord[] ring = new TraceRecord[Math.max(1, context)];
        int ringStart = 0;
        int ringSize = 0;
        StringBuilder line = new StringBuilder(256);
        TraceRecord r;
        while ((r = reader.next()) != null) {
            events++;
            if (trigger != null && trigger.matches(r)) {
                if (summary != null) {
                    summary.add(r);
                    return Outcome.TRIGGERED;
                }
                for (int i = 0; i < ringSize; i++) {
                    line.setLength(0);
                    line.append("   ");
                    decoder.format(ring[(ringStart + i) % ring.length], line);
                    out.line(line);
                }
                line.setLength(0);
                line.append(">> ");
                decoder.format(r, line);
                out.line(line);
                return Outcome.TRIGGERED;
            }
            if (!query.accepts(r)) {
                continue;
            }
            if (summary != null) {
                summary.add(r);
                continue;
            }
            line.setLength(0);
            if (trigger != null) {
                if (context == 0) {
                    continue;
                }
                if (ringSize < ring.length) {
                    ring[(ringStart + ringSize++) % ring.length] = r.copy();
                } else {
                    ring[ringStart] = r.copy();
                    ringStart = (ringStart + 1) % ring.length;
                }
                continue;
            }
            decoder.format(r, line);
            out.line(line);
            if ((events & 1023) == 0 && out.closed()) {
                return Outcome.OUTPUT_CLOSED;
            }
        }
        return trigger == null ? Outcome.DONE : Outcome.NOT_TRIGGERED;
    }

    /** Events read so far (all of them, not only the accepted). */
    public long events() {
        return events;
    }

    /** An {@link Output} that appends each line and a newline to {@code a}. */
    public static Output to(Appendable a) {
        return l -> {
            try {
                a.append(l).append('\n');
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
    }
}
