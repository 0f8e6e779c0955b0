package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.cm.PassiveRefusal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The connection manager's refusals in the run's trace: irdma makes no upcall for a connection it drops on the
 * passive side (cm.c irdma_passive_open_err, e.g. after irdma_parse_mpa refused an MPA v2 request without the
 * peer-to-peer bit), so the CM reports each one to its {@link dev.irdmaemu.cm.ConnectionManager#onPassiveRefusal}
 * listener, and this writes it as one line of the model's trace, on the same clock:
 * <pre>{"t":SIM_NS,"ev":"cm_refusal","local":"192.0.2.1:7174","remote":"192.0.2.2:38655","reason":"BAD_MPA",
 * "mpa":"NOT_PEER_TO_PEER","rule":"MPA v2 RTR message without the peer-to-peer bit","reset":true}</pre>
 * Runs on the model thread, which is the only one writing the trace.
 */
public final class PassiveRefusalTrace implements Consumer<PassiveRefusal> {
    /** The trace event's name. */
    static final String EVENT = "cm_refusal";

    private final Appendable out;
    private final LongSupplier clock;
    private long written;

    public PassiveRefusalTrace(Appendable out, LongSupplier clock) {
        this.out = out;
        this.clock = clock;
    }

    @Override
    public void accept(PassiveRefusal r) {
        StringBuilder line = new StringBuilder(192).append("{\"t\":").append(clock.getAsLong())
                .append(",\"ev\":\"").append(EVENT).append("\",\"local\":\"").append(r.local())
                .append("\",\"remote\":\"").append(r.remote()).append("\",\"reason\":\"").append(r.reason())
                .append('"');
        if (r.mpa() != null) {
            // the rule texts are the project's own constants: no quote or backslash to escape
            line.append(",\"mpa\":\"").append(r.mpa().name()).append("\",\"rule\":\"").append(r.mpa().describe())
                    .append('"');
        }
        line.append(",\"reset\":").append(r.reset()).append("}\n");
        try {
            out.append(line);
            written++;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Lines written so far. */
    long written() {
        return written;
    }
}
