package dev.irdmaemu.model.trace;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Writes each event as one JSON object per line: {@code {"t":123,"ev":"cqp_op","op":"CREATE_CQ",...}}, the time in
 * simulated nanoseconds. Meant to sit next to the pcap of the same run. Reuses one StringBuilder.
 */
public final class JsonLinesTraceSink implements TraceSink {
    private final Appendable out;
    private final StringBuilder line = new StringBuilder(256);

    public JsonLinesTraceSink(Appendable out) {
        this.out = out;
    }

    @Override
    public void accept(TraceEvent e) {
        line.setLength(0);
        line.append("{\"t\":").append(e.timeNanos()).append(",\"ev\":\"").append(e.kind().wireName()).append('"');
        for (int i = 0; i < e.fieldCount(); i++) {
            line.append(",\"");
            escape(e.name(i));
            line.append("\":");
            if (e.isBytes(i)) {
                line.append('"');
                e.appendHex(i, line);
                line.append('"');
            } else if (e.textAt(i) != null) {
                String t = e.textAt(i);
                if (t.equals("true") || t.equals("false")) {
                    line.append(t);
                } else {
                    line.append('"');
                    escape(t);
                    line.append('"');
                }
            } else if (e.isHex(i)) {
                line.append("\"0x").append(Long.toHexString(e.numberAt(i))).append('"');
            } else {
                line.append(e.numberAt(i));
            }
        }
        line.append("}\n");
        try {
            out.append(line);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private void escape(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                line.append('\\').append(c);
            } else if (c < 0x20) {
                line.append(String.format("\\u%04x", (int) c));
            } else {
                line.append(c);
            }
        }
    }
}
