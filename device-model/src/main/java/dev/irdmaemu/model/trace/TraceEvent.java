package dev.irdmaemu.model.trace;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * One trace event under construction: a kind, the simulated time and up to {@link #MAX_FIELDS} named fields
 * (numbers or short texts). Reused for every event of its {@link Trace}: a sink must copy what it keeps. Field
 * names are string constants of the emitting code, so building an event allocates nothing. A {@link #bytes} field
 * refers to the emitter's buffer (at most {@link #MAX_BYTES} of it) until the sink has written it: no copy.
 */
public final class TraceEvent {
    public static final int MAX_FIELDS = 16;
    /** A {@link #bytes} field keeps at most this many bytes: a frame's headers (Ethernet to RDMAP) fit. */
    public static final int MAX_BYTES = 128;

    private final Trace owner;
    TraceKind kind;
    long timeNanos;
    final String[] names = new String[MAX_FIELDS];
    final long[] numbers = new long[MAX_FIELDS];
    final String[] texts = new String[MAX_FIELDS];
    final boolean[] hex = new boolean[MAX_FIELDS];
    final BytesStore<?, ?>[] stores = new BytesStore<?, ?>[MAX_FIELDS];
    final int[] lengths = new int[MAX_FIELDS];
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

    /**
     * Bytes {@code offset..offset+length} of {@code store}, written as hexadecimal (the first {@link #MAX_BYTES};
     * a range outside the store's readable bytes is cut to what is there). The store is read when the sink writes
     * the event, not copied.
     */
    public TraceEvent bytes(String name, BytesStore<?, ?> store, long offset, int length) {
        int n = 0;
        if (store != null && length > 0 && offset >= store.start() && offset < store.readLimit()) {
            n = (int) Math.min(Math.min(length, MAX_BYTES), store.readLimit() - offset);
        }
        if (count < MAX_FIELDS) {
            put(name, offset, null, false);
            stores[count - 1] = n > 0 ? store : null;
            lengths[count - 1] = n;
            if (n == 0) {
                texts[count - 1] = "";
            }
        }
        return this;
    }

    private TraceEvent put(String name, long n, String t, boolean h) {
        if (count < MAX_FIELDS) {
            names[count] = name;
            numbers[count] = n;
            texts[count] = t;
            hex[count] = h;
            stores[count] = null;
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

    /** Whether field {@code i} is a {@link #bytes} field (then {@link #appendHex} writes it). */
    public boolean isBytes(int i) {
        return stores[i] != null;
    }

    /** Appends the bytes of {@link #bytes} field {@code i} as lower-case hexadecimal, two digits a byte. */
    public void appendHex(int i, StringBuilder out) {
        BytesStore<?, ?> s = stores[i];
        if (s == null) {
            return;
        }
        long at = numbers[i];
        for (int k = 0; k < lengths[i]; k++) {
            int b = s.readUnsignedByte(at + k);
            out.append(HEX[b >>> 4]).append(HEX[b & 15]);
        }
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** The text of field {@code i}, or null when it is a number or bytes. */
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
        if (stores[i] != null) {
            StringBuilder sb = new StringBuilder(lengths[i] * 2);
            appendHex(i, sb);
            return sb.toString();
        }
        if (texts[i] != null) {
            return texts[i];
        }
        return hex[i] ? "0x" + Long.toHexString(numbers[i]) : Long.toString(numbers[i]);
    }
}
