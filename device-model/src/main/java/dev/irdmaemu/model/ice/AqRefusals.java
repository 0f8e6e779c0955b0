package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Why the firmware refused an admin queue command, the one way every command handler of a function reports it: the
 * reason goes to the function's trace as an {@code "ev":"aq"} event ({@code "refused"} with the command, the reason
 * and the retval, right before the AQ's own event for the command), is logged at debug level, and is counted. The
 * driver only sees the retval (ice prints it with the command); the trace is where a developer finds why.
 */
public final class AqRefusals {
    private static final Logger LOG = LoggerFactory.getLogger(AqRefusals.class);

    private Trace trace;
    private long refusals;

    /** Refusals traced to nothing until {@link #traceTo} names the function's trace. */
    public AqRefusals() {
        this.trace = null;
    }

    public void traceTo(Trace t) {
        this.trace = t;
    }

    /** Reports that {@code command} was refused because {@code why}; answers {@code retval}, the AQ error to return. */
    public int refuse(String command, String why, int retval) {
        refusals++;
        LOG.debug("AQ {}: {} (retval {})", command, why, AqError.name(retval));
        Trace t = trace;
        if (t != null) {
            TraceEvent e = t.start(TraceKind.AQ);
            if (e != null) {
                e.text("refused", command).text("why", why).text("retval", AqError.name(retval)).emit();
            }
        }
        return retval;
    }

    /** Commands refused so far. */
    public long count() {
        return refusals;
    }
}
