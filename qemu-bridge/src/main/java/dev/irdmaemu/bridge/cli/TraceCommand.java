package dev.irdmaemu.bridge.cli;

import dev.irdmaemu.bridge.trace.EventMatch;
import dev.irdmaemu.bridge.trace.TraceFormatException;
import dev.irdmaemu.bridge.trace.TraceQuery;
import dev.irdmaemu.bridge.trace.TraceSummary;
import dev.irdmaemu.bridge.trace.TraceTimeline;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code irdma-emu trace FILE}: the model's trace ({@code trace.jsonl} of {@code boot} and {@code e810} runs) as a
 * readable timeline on the simulated-time axis, filtered, or the events before the first error, or a summary.
 * Streams the file (a trace of any size), stops at a closed pipe.
 */
@Command(name = "trace", mixinStandardHelpOptions = true,
        description = {"Print a model trace (trace.jsonl) as a timeline: one line per event, simulated time in "
                + "seconds (ns resolution), kind, block, then the event decoded: register accesses by kernel name "
                + "with their fields, admin queue commands, CQP ops with their completion, AEs, CEQEs, MSI-X "
                + "messages, frames (as `irdma-emu decode` prints them), configuration-space writes.",
            "Filters combine (an event must pass all). Kinds: mmio, aq, cqp, ae, ceq, msix, frame, cfg, other, "
                + "or event names (reg_write, qp_state, ...).",
            "An event match (--before, --match) is space-separated terms that must all hold: a kind or event name, "
                + "`error`, or field=value / field!=value (globs; numbers compare as numbers) / field<n / field>n. "
                + "Fields: the trace's own, name, status (a CQP op's major code, an AQ command's retval), qp, "
                + "and a register's fields by kernel name (INTENA, CQP_OP_ERR, ...). "
                + "Example: --before 'cqp status!=0' --context 30."})
final class TraceCommand implements Callable<Integer> {
    @Mixin
    Verbosity verbosity;

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE", description = "A trace in JSON lines (trace.jsonl of a run folder).")
    Path file;

    @Option(names = "--kind", paramLabel = "K[,K...]",
            description = "Only these kinds (mmio,aq,cqp,ae,ceq,msix,frame,cfg,other) or event names.")
    String kinds;

    @Option(names = "--register", paramLabel = "GLOB",
            description = "Only register accesses whose name matches (the model's or the kernel's: CQPTAIL, "
                    + "PFPE_CQP*, GLINT_DYN_CTL).")
    String register;

    @Option(names = "--opcode", paramLabel = "NAME|N",
            description = "Only CQP ops and admin queue commands with this name (glob: CREATE_*, get_ver) or "
                    + "admin queue opcode (0x0001).")
    String opcode;

    @Option(names = "--qp", paramLabel = "N", description = "Only events that concern QP N.")
    Long qp;

    @Option(names = "--from", paramLabel = "T", description = "From this simulated time (1500, 12us, 1.5ms, 3s).")
    String from;

    @Option(names = "--to", paramLabel = "T", description = "Up to this simulated time, inclusive.")
    String to;

    @Option(names = "--match", paramLabel = "EXPR", description = "Only events matching EXPR.")
    String match;

    @Option(names = "--before", paramLabel = "EXPR",
            description = "Show only the events just before the first event matching EXPR, and that event (>>).")
    String before;

    @Option(names = "--until-error",
            description = "Same as --before error: the first CQP error completion, AQ error or fault, or AE.")
    boolean untilError;

    @Option(names = "--context", paramLabel = "N", defaultValue = "20",
            description = "How many events --before shows before the match (default ${DEFAULT-VALUE}).")
    int context;

    @Option(names = "--summary",
            description = "Counts instead of lines: per kind, event, register, AQ and CQP opcode; the errors.")
    boolean summary;

    @Override
    public Integer call() throws CliFailure {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        TraceQuery query = new TraceQuery();
        EventMatch trigger;
        try {
            if (kinds != null) {
                query.kinds(kinds);
            }
            query.register(register).opcode(opcode);
            if (qp != null) {
                query.qp(qp);
            }
            if (from != null) {
                query.from(TraceQuery.parseTime(from));
            }
            if (to != null) {
                query.to(TraceQuery.parseTime(to));
            }
            if (match != null) {
                query.match(EventMatch.parse(match));
            }
            if (before != null && untilError) {
                throw new IllegalArgumentException("--before and --until-error are one option: choose one");
            }
            trigger = untilError ? EventMatch.parse("error") : before == null ? null : EventMatch.parse(before);
            if (context < 0) {
                throw new IllegalArgumentException("--context must be 0 or more");
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "trace: " + e.getMessage());
        }
        TraceSummary counts = summary ? new TraceSummary() : null;
        TraceTimeline timeline = new TraceTimeline(query, trigger, context, counts);
        String name = file.toString();
        if (Files.isDirectory(file)) {
            throw new CliFailure(ExitCodes.IO_ERROR, "trace: " + name + ": is a directory", null);
        }
        TraceTimeline.Outcome outcome;
        try (Reader in = new InputStreamReader(Files.newInputStream(file), StandardCharsets.UTF_8)) {
            outcome = timeline.run(in, new TraceTimeline.Output() {
                @Override
                public void line(CharSequence l) {
                    out.append(l).append('\n');
                }

                @Override
                public boolean closed() {
                    return out.checkError();
                }
            });
        } catch (NoSuchFileException e) {
            throw new CliFailure(ExitCodes.NO_INPUT, "trace: " + name + ": no such file", e);
        } catch (AccessDeniedException e) {
            throw new CliFailure(ExitCodes.IO_ERROR, "trace: " + name + ": permission denied", e);
        } catch (TraceFormatException e) {
            out.flush();
            throw new CliFailure(ExitCodes.DATA_ERROR, "trace: " + name + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new CliFailure(ExitCodes.IO_ERROR, "trace: " + name + ": cannot read: " + e.getMessage(), e);
        }
        if (counts != null) {
            StringBuilder sb = new StringBuilder(4096);
            counts.print(sb);
            out.append(sb);
        }
        out.flush();
        if (outcome == TraceTimeline.Outcome.NOT_TRIGGERED) {
            err.println("irdma-emu: trace: no event matches '" + (untilError ? "error" : before) + "' ("
                    + timeline.events() + " events read)");
            err.flush();
            return ExitCodes.FAILED;
        }
        return ExitCodes.OK;
    }
}
