package dev.irdmaemu.bridge.kit;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The guest's result line, as its init prints it on the console:
 * {@code IRDMA-EMU-RESULT scenario=NAME status=ok|fail [step=STEP] [KEY=VALUE ...]} (values hold no spaces).
 * The console is the guest's to write: a line that does not parse is not a result.
 */
public record GuestResult(String scenario, String status, Map<String, String> fields, Duration afterStart) {
    /** The marker that starts the line. */
    public static final String MARKER = "IRDMA-EMU-RESULT";
    private static final int MAX_FIELDS = 64;
    private static final int MAX_LINE = 4096;

    public GuestResult {
        fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }

    /** Whether the scenario passed. */
    public boolean ok() {
        return "ok".equals(status);
    }

    /** A field's value, or "" when the line lacks it. */
    public String field(String key) {
        return fields.getOrDefault(key, "");
    }

    /**
     * The result in a console line (anywhere in it: a terminal escape or a kernel message may come first), or
     * empty when the line holds none or a malformed one (no scenario or status, a word without '=', a repeated
     * key, too long).
     */
    public static Optional<GuestResult> parse(String line, Duration afterStart) {
        if (line == null || line.length() > MAX_LINE) {
            return Optional.empty();
        }
        int at = line.indexOf(MARKER + " ");
        if (at < 0) {
            return Optional.empty();
        }
        String[] words = line.substring(at + MARKER.length() + 1).trim().split(" +");
        if (words.length > MAX_FIELDS) {
            return Optional.empty();
        }
        Map<String, String> fields = new LinkedHashMap<>();
        for (String w : words) {
            int eq = w.indexOf('=');
            if (eq <= 0 || fields.putIfAbsent(w.substring(0, eq), w.substring(eq + 1)) != null) {
                return Optional.empty();
            }
        }
        String scenario = fields.remove("scenario");
        String status = fields.remove("status");
        if (scenario == null || scenario.isEmpty() || !("ok".equals(status) || "fail".equals(status))) {
            return Optional.empty();
        }
        return Optional.of(new GuestResult(scenario, status, fields, afterStart));
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(MARKER).append(" scenario=").append(scenario).append(" status=").append(status);
        fields.forEach((k, v) -> b.append(' ').append(k).append('=').append(v));
        return b.toString();
    }
}
