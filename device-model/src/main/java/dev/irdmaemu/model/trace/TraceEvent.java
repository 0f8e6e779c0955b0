package dev.irdmaemu.model.trace;

/**
 * One trace event under construction: a kind, the simulated time and up to {@link #MAX_FIELDS} named fields
 * (numbers or short texts). Reused for every event of its {@link Trace}: a sink must copy what it keeps. Field
 * names are string constants of the emitting code, so building an event allocates nothing.
 */
public final class TraceEvent {
    public static final int MAX_FIELDS = 16;

    private final Trace owner;
    TraceKind kind;
    long timeNanos;
    final String[] names = new String[MAX_FIELDS];
    final long[] numbers = new long[MAX_FIELDS];
    final String[] texts = new String[MAX_FIELDS];
    final boolean[] hex = new boolean[MAX_FIELDS];
    int count;

    TraceEvent(Trace owner) {
        this.owner = owner;
    }

    void reset(TraceKind k, long time) {
        kind = k;
        timeNanos = time;
        count = 0;
    }

    /** A decimal field. Extra fields past {@link #MAX_FIELDS} are dropped. */
    public TraceEvent num(String name, long value) {
        return put(name, value, null, false);
    }

    /** A field written in hexadecimal (addresses, register values, raw words). */
    public TraceEvent hex(String name, long value) {
        return put(name, value, null, true);
    }

    public TraceEvent text(String name, String value) {
        return put(name, 0, value == null ? "null" : value, false);
    }

    public TraceEvent flag(String name, boolean value) {
        return put(name, 0, value ? "true" : "false", false);
    }

    private TraceEvent put(String name, long n, String t, boolean h) {
        if (count < MAX_FIELDS) {
            names[count] = name;
            numbers[count] = n;
            texts[count] = t;
            hex[count] = h;
            count++;
        }
        return this;
    }

    /** Hands the event to the sink. */
    public void emit() {
        owner.deliver(this);
    }

    public TraceKind kind() {
        return kind;
    }

    public long timeNanos() {
        return timeNanos;
    }

    public int fieldCount() {
        return count;
    }

    public String name(int i) {
        return names[i];
    }

    /** The text of field {@code i}, or null when it is a number. */
    public String textAt(int i) {
        return texts[i];
    }

    public long numberAt(int i) {
        return numbers[i];
    }

    public boolean isHex(int i) {
        return hex[i];
    }

    /** The field called {@code name} as text (numbers in decimal or 0x-hex), or null when absent. */
    public String get(String name) {
        for (int i = 0; i < count; i++) {
            if (names[i].equals(name)) {
                return valueText(i);
            }
        }
        return null;
    }

    String valueText(int i) {
        if (texts[i] != null) {
            return texts[i];
        }
        return hex[i] ? "0x" + Long.toHexString(numbers[i]) : Long.toString(numbers[i]);
    }
}
