package dev.irdmaemu.bridge.trace;

import java.util.ArrayList;
import java.util.List;

/**
 * One event of a trace as read back: its line number, simulated time in nanoseconds, event name ({@code ev}) and the
 * other fields in line order, each as text (strings unescaped, numbers and booleans as written, a nested value as its
 * JSON text). Reused by {@link TraceReader} for every line: copy what you keep ({@link #copy()}).
 */
public final class TraceRecord {
    private long line;
    private long time;
    private String event;
    private final List<String> keys = new ArrayList<>();
    private final List<String> values = new ArrayList<>();

    void reset(long lineNumber) {
        line = lineNumber;
        time = 0;
        event = null;
        keys.clear();
        values.clear();
    }

    void put(String key, String value) {
        if ("t".equals(key)) {
            time = TraceValues.parseLong(value, Long.MIN_VALUE);
        } else if ("ev".equals(key)) {
            event = value;
        } else {
            keys.add(key);
            values.add(value);
        }
    }

    void time(long t) {
        time = t;
    }

    public long lineNumber() {
        return line;
    }

    public long timeNanos() {
        return time;
    }

    public String event() {
        return event;
    }

    public int fieldCount() {
        return keys.size();
    }

    public String key(int i) {
        return keys.get(i);
    }

    public String value(int i) {
        return values.get(i);
    }

    /** The field {@code key} as text, or null when absent. */
    public String get(String key) {
        for (int i = 0; i < keys.size(); i++) {
            if (keys.get(i).equals(key)) {
                return values.get(i);
            }
        }
        return null;
    }

    public boolean has(String key) {
        return get(key) != null;
    }

    /** The field {@code key} as a number (decimal or 0x-hexadecimal), or {@code absent} when missing or not one. */
    public long number(String key, long absent) {
        String v = get(key);
        return v == null ? absent : TraceValues.parseLong(v, absent);
    }

    /** A copy that stays valid after the reader moves on. */
    public TraceRecord copy() {
        TraceRecord r = new TraceRecord();
        r.line = line;
        r.time = time;
        r.event = event;
        r.keys.addAll(keys);
        r.values.addAll(values);
        return r;
    }

    /** Builds a record by hand (tests, the synthetic fields of a query): time, event, then key, value pairs. */
    public static TraceRecord of(long time, String event, String... keyValues) {
        TraceRecord r = new TraceRecord();
        r.time = time;
        r.event = event;
        for (int i = 0; i + 1 < keyValues.length; i += 2) {
            r.keys.add(keyValues[i]);
            r.values.add(keyValues[i + 1]);
        }
        return r;
    }
}
