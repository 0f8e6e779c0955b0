package dev.irdmaemu.bridge.trace;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code irdma-emu trace --summary}: counts per kind and per event name, register accesses per register and
 * direction, admin queue commands and CQP ops per opcode with their errors, the errors, and the time span. Memory
 * grows with the number of distinct names, not with the trace.
 */
public final class TraceSummary {
    private static final class Count {
        long count;
        long errors;
    }

    private final Map<EventKind, Long> kinds = new EnumMap<>(EventKind.class);
    private final Map<String, Count> events = new HashMap<>();
    private final Map<String, Count> registers = new HashMap<>();
    private final Map<String, Count> aq = new HashMap<>();
    private final Map<String, Count> cqp = new HashMap<>();
    private final List<String> firstErrors = new ArrayList<>();
    private final EventDecoder decoder = new EventDecoder();
    private long total;
    private long errors;
    private long first = Long.MAX_VALUE;
    private long last = Long.MIN_VALUE;

    /** How many error lines the summary quotes. */
    public static final int ERRORS_SHOWN = 10;

    public void add(TraceRecord r) {
        total++;
        first = Math.min(first, r.timeNanos());
        last = Math.max(last, r.timeNanos());
        EventKind k = EventDecoder.kind(r);
        kinds.merge(k, 1L, Long::sum);
        boolean error = EventDecoder.isError(r);
        bump(events, r.event(), error);
        String ev = r.event();
        if (ev.equals("reg_read") || ev.equals("reg_write") || ev.equals("reg_read_only")) {
            bump(registers, EventDecoder.name(r) + (ev.equals("reg_read") ? " R" : " W"), false);
        } else if (ev.equals("aq") && "cmd".equals(r.get("dir"))) {
            bump(aq, r.get("op") + " (" + r.get("opcode") + ")", error);
        } else if (ev.equals("cqp_op") || ev.equals("cqp_error") && r.has("op")) {
            bump(cqp, r.get("op"), error);
        }
        if (error) {
            errors++;
            if (firstErrors.size() < ERRORS_SHOWN) {
                StringBuilder sb = new StringBuilder(160);
                sb.append("line ").append(r.lineNumber()).append(": ");
                decoder.format(r, sb);
                firstErrors.add(sb.toString());
            }
        }
    }

    private static void bump(Map<String, Count> m, String key, boolean error) {
        Count c = m.computeIfAbsent(key, x -> new Count());
        c.count++;
        if (error) {
            c.errors++;
        }
    }

    public long total() {
        return total;
    }

    public long errors() {
        return errors;
    }

    /** How many events of {@code kind} were counted. */
    public long count(EventKind kind) {
        return kinds.getOrDefault(kind, 0L);
    }

    /** How many times the CQP op {@code op} ran (0 when never). */
    public long cqpOps(String op) {
        Count c = cqp.get(op);
        return c == null ? 0 : c.count;
    }

    public void print(StringBuilder out) {
        out.append("events    ").append(total);
        if (total > 0) {
            out.append(", simulated time ");
            EventDecoder.appendTime(first, out);
            out.append(" to ");
            EventDecoder.appendTime(last, out);
        }
        out.append('\n');
        out.append("errors    ").append(errors).append('\n');
        out.append("\nper kind\n");
        for (Map.Entry<EventKind, Long> e : kinds.entrySet()) {
            out.append(String.format("  %-8s %10d%n", e.getKey().label(), e.getValue()));
        }
        table("per event", events, false, out);
        table("per register (R read, W write)", registers, false, out);
        table("admin queue commands", aq, true, out);
        table("CQP ops", cqp, true, out);
        if (!firstErrors.isEmpty()) {
            out.append("\nfirst errors\n");
            for (String e : firstErrors) {
                out.append("  ").append(e).append('\n');
            }
        }
    }

    private static void table(String title, Map<String, Count> m, boolean withErrors, StringBuilder out) {
        if (m.isEmpty()) {
            return;
        }
        out.append('\n').append(title).append('\n');
        List<Map.Entry<String, Count>> rows = new ArrayList<>(m.entrySet());
        rows.sort((a, b) -> a.getValue().count != b.getValue().count
                ? Long.compare(b.getValue().count, a.getValue().count) : a.getKey().compareTo(b.getKey()));
        for (Map.Entry<String, Count> e : rows) {
            out.append(String.format("  %-40s %10d", e.getKey(), e.getValue().count));
            if (withErrors && e.getValue().errors > 0) {
                out.append(String.format("  errors %d", e.getValue().errors));
            }
            out.append('\n');
        }
    }
}
