package dev.irdmaemu.bridge.cli;

import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;

/**
 * {@code -v/--verbose}, accepted by the top command and by every subcommand ({@code irdma-emu -v decode f} and
 * {@code irdma-emu decode -v f} mean the same); occurrences add up.
 */
final class Verbosity {
    static final String LOGGER = "dev.irdmaemu";

    @Option(names = {"-v", "--verbose"},
            description = "Log more to stderr: -v info, -vv debug (with stack traces of errors), -vvv trace.")
    boolean[] verbose = new boolean[0];

    /** The -v count over the command and its subcommands in {@code parsed}. */
    static int count(ParseResult parsed) {
        int n = 0;
        for (ParseResult p = parsed; p != null; p = p.subcommand()) {
            n += p.matchedOptionValue("-v", new boolean[0]).length;
        }
        return n;
    }

    /**
     * Sets the level of irdma-emu's loggers: WARN (from logback.xml) at 0, INFO at 1, DEBUG at 2, TRACE above.
     * A no-op unless the SLF4J binding is logback (it is, in the executable).
     */
    static void apply(int count) {
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        if (!(factory instanceof ch.qos.logback.classic.LoggerContext)) {
            return;
        }
        ch.qos.logback.classic.Level level = switch (count) {
            case 0 -> null; // inherit the configured root level
            case 1 -> ch.qos.logback.classic.Level.INFO;
            case 2 -> ch.qos.logback.classic.Level.DEBUG;
            default -> ch.qos.logback.classic.Level.TRACE;
        };
        ((ch.qos.logback.classic.LoggerContext) factory).getLogger(LOGGER).setLevel(level);
    }
}
