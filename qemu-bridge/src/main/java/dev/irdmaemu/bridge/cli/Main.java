package dev.irdmaemu.bridge.cli;

import java.io.BufferedWriter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/** Entry point of the {@code irdma-emu} executable (started by the {@code ./irdma-emu} launcher). */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        // UTF-8 whatever the locale: the summaries contain "→"
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(
                new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8), 1 << 16));
        PrintWriter err = new PrintWriter(new OutputStreamWriter(
                new FileOutputStream(FileDescriptor.err), StandardCharsets.UTF_8), true);
        int code = commandLine().setOut(out).setErr(err).execute(args);
        out.flush();
        err.flush();
        System.exit(code);
    }

    /**
     * The {@code irdma-emu} command with its handlers: usage errors and failures are short messages on the
     * command's err writer with the codes of {@link ExitCodes}, never a stack trace.
     */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new IrdmaEmuCommand());
        cl.getCommandSpec().usageMessage().exitCodeListHeading("%nExit codes:%n").exitCodeList(ExitCodes.helpList());
        cl.setExecutionStrategy(Main::executeWithLogLevel);
        cl.setParameterExceptionHandler(Main::usageError);
        cl.setExecutionExceptionHandler(Main::failure);
        return cl;
    }

    private static int executeWithLogLevel(ParseResult parsed) {
        Verbosity.apply(Verbosity.count(parsed));
        return new CommandLine.RunLast().execute(parsed);
    }

    /** "irdma-emu: Unknown option: '--x'" and a pointer to the help, not the whole usage. */
    private static int usageError(ParameterException e, String[] args) {
        CommandLine cl = e.getCommandLine();
        PrintWriter err = cl.getErr();
        err.println("irdma-emu: " + e.getMessage());
        err.println("Try '" + cl.getCommandSpec().qualifiedName() + " --help' for more information.");
        err.flush();
        return ExitCodes.USAGE;
    }

    private static int failure(Exception e, CommandLine cl, ParseResult parsed) {
        PrintWriter err = cl.getErr();
        if (e instanceof CliFailure f) {
            LoggerFactory.getLogger(Main.class).debug("{}", f.getMessage(), f.getCause());
            err.println("irdma-emu: " + oneLine(f.getMessage()));
            err.flush();
            return f.exitCode();
        }
        LoggerFactory.getLogger(Main.class).debug("internal error", e);
        err.println("irdma-emu: internal error: " + oneLine(e.toString()) + " (rerun with -vv for the stack trace)");
        err.flush();
        return ExitCodes.SOFTWARE;
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.replace('\n', ' ').replace('\r', ' ');
    }
}
