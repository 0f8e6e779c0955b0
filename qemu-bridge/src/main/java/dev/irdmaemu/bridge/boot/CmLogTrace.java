package dev.irdmaemu.bridge.boot;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.io.IOException;
import java.util.function.LongSupplier;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;

/**
 * The connection manager's own account of a run, in the run's trace: the CM reports why it refused a passive
 * connection (cm.c irdma_handle_rcv_mpa: irdma_passive_open_err after irdma_parse_mpa said no, e.g. an MPA v2
 * request without the peer-to-peer bit: {@code NOT_PEER_TO_PEER}) only in its log, not as an upcall (no
 * CM_EVENT reaches a listener before CONNECT_REQUEST). This appender takes the cm module's log events made on the
 * model thread at DEBUG and writes each as a trace line,
 * {@code {"t":SIM_NS,"ev":"cm_log","level":"DEBUG","logger":"ConnectionManager","msg":"MPA refused (NOT_PEER_TO_PEER) on ..."}}.
 *
 * <p>While attached it raises the {@value #LOGGER} logger to DEBUG and stops that logger's events from reaching
 * the usual appenders itself: it passes on to them only what they would have taken before (at the level in force
 * then), so stderr does not fill with the CM's debug lines. {@link #close()} puts everything back. A no-op when
 * SLF4J is not bound to logback.
 */
public final class CmLogTrace extends AppenderBase<ILoggingEvent> implements AutoCloseable {
    /** The cm module's loggers. */
    public static final String LOGGER = "dev.irdmaemu.cm";

    private final Appendable out;
    private final LongSupplier clock;
    private final Thread modelThread;
    private final StringBuilder line = new StringBuilder(256);
    private Logger logger;
    private Logger parent;
    private Level previousLevel;
    private Level passOnFrom;
    private boolean previousAdditive;
    private long written;

    private CmLogTrace(Appendable out, LongSupplier clock, Thread modelThread) {
        this.out = out;
        this.clock = clock;
        this.modelThread = modelThread;
    }

    /** Starts copying the CM's log events made on {@code modelThread} into {@code out}, stamped by {@code clock}. */
    public static CmLogTrace attach(Appendable out, LongSupplier clock, Thread modelThread) {
        CmLogTrace t = new CmLogTrace(out, clock, modelThread);
        ILoggerFactory f = LoggerFactory.getILoggerFactory();
        if (f instanceof LoggerContext context) {
            synchronized (CmLogTrace.class) {
                t.logger = context.getLogger(LOGGER);
                t.parent = context.getLogger("dev.irdmaemu");
                t.previousLevel = t.logger.getLevel();
                t.passOnFrom = t.logger.getEffectiveLevel();
                t.previousAdditive = t.logger.isAdditive();
                t.setContext(context);
                t.setName("cm-log-trace");
                t.start();
                t.logger.addAppender(t);
                t.logger.setAdditive(false);
                t.logger.setLevel(Level.DEBUG);
            }
        }
        return t;
    }

    @Override
    protected void append(ILoggingEvent e) {
        if (e.getLevel().isGreaterOrEqual(passOnFrom) && parent != null) {
            parent.callAppenders(e);
        }
        if (Thread.currentThread() != modelThread) {
            return;
        }
        line.setLength(0);
        line.append("{\"t\":").append(clock.getAsLong()).append(",\"ev\":\"cm_log\",\"level\":\"")
                .append(e.getLevel()).append("\",\"logger\":\"");
        String name = e.getLoggerName();
        escape(name.substring(name.lastIndexOf('.') + 1));
        line.append("\",\"msg\":\"");
        escape(e.getFormattedMessage());
        line.append("\"}\n");
        try {
            out.append(line);
            written++;
        } catch (IOException ex) {
            addError("cannot write the trace: " + ex);
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

    /** Lines written so far. */
    public long written() {
        return written;
    }

    /** Detaches and puts the logger's level and additivity back. Idempotent. */
    @Override
    public void close() {
        synchronized (CmLogTrace.class) {
            if (logger != null) {
                logger.detachAppender(this);
                logger.setLevel(previousLevel);
                logger.setAdditive(previousAdditive);
                logger = null;
            }
        }
        stop();
    }
}
