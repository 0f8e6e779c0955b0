package dev.irdmaemu.bridge.boot;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** What a {@link HostedService} reports: whether it did its part, and named values for the summary. */
public record ServiceOutcome(String service, boolean ok, Map<String, String> fields) {
    public ServiceOutcome {
        fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }

    public String field(String key) {
        return fields.getOrDefault(key, "");
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(service).append(ok ? " ok" : " FAILED");
        fields.forEach((k, v) -> b.append(' ').append(k).append('=').append(v));
        return b.toString();
    }
}
