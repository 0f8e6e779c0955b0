package dev.irdmaemu.model.trace;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Keeps a copy of every event (for tests and the demo's printed trace). Allocates per event: not for hot runs. */
public final class RecordingTraceSink implements TraceSink {
    /** A copied event: kind, time and fields as text. */
    public record Recorded(TraceKind kind, long timeNanos, Map<String, String> fields) {
        public String get(String name) {
            return fields.get(name);
        }
    }

    private final List<Recorded> events = new ArrayList<>();

    @Override
    public void accept(TraceEvent e) {
        Map<String, String> f = new LinkedHashMap<>();
        for (int i = 0; i < e.fieldCount(); i++) {
            f.put(e.name(i), e.valueText(i));
        }
        events.add(new Recorded(e.kind(), e.timeNanos(), f));
    }

    public List<Recorded> events() {
        return events;
    }

    public List<Recorded> of(TraceKind k) {
        List<Recorded> r = new ArrayList<>();
        for (Recorded e : events) {
            if (e.kind() == k) {
                r.add(e);
            }
        }
        return r;
    }

    public void clear() {
        events.clear();
    }
}
