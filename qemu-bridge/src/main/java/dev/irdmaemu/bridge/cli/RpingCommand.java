package dev.irdmaemu.bridge.cli;

import dev.irdmaemu.bridge.model.ModelPair;
import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.cm.rping.RpingClient;
import dev.irdmaemu.cm.rping.RpingOptions;
import dev.irdmaemu.cm.rping.RpingResult;
import dev.irdmaemu.cm.rping.RpingServer;
import dev.irdmaemu.fw.pcap.FrameTap;
import dev.irdmaemu.fw.pcap.PcapWriter;
import dev.irdmaemu.fw.pcap.TimestampResolution;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code irdma-emu rping}: the Java rping server (node B, 192.0.2.2) and client (node A, 192.0.2.1) on two
 * in-process model nodes, through the verbs, the CM and the model's iWARP data path; prints each side's result, the
 * simulated and the wall time, and optionally writes the wire to a pcap.
 */
@Command(name = "rping", mixinStandardHelpOptions = true,
        description = {"rping between two in-process model nodes: the Java rping client (192.0.2.1) against the "
                + "Java rping server (192.0.2.2, port 7174), as rdma-core's rping runs them.",
            "Prints both sides' results (pings, verified, bytes read and written); exit code 0 when both are ok."})
final class RpingCommand extends VerboseCommand {
    /** Simulated time a run may take before it is given up. */
    static final long LIMIT_NANOS = 3_600_000_000_000L;

    @Option(names = "-C", paramLabel = "COUNT", defaultValue = "10",
            description = "Pings the client makes (rping -C; default: ${DEFAULT-VALUE}).")
    int count;

    @Option(names = "-S", paramLabel = "SIZE", defaultValue = "64",
            description = "Ping data size, 26 to 65535 (rping -S; default: ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "-V", description = "Validate the ping data (rping -V): the client compares the echo with what "
            + "it sent, the server checks what it read is rping's ping data.")
    boolean validate;

    @Option(names = "--ipv6", description = "Over IPv6 (2001:db8::1 to 2001:db8::2) instead of IPv4.")
    boolean ipv6;

    @Option(names = "--pcap", paramLabel = "FILE", description = "Write every frame on the wire to FILE.")
    Path pcap;

    @Option(names = "--trace", paramLabel = "FILE", description = "Write both models' trace (registers, CQP ops, "
            + "frames, WQEs, completions) as JSON lines to FILE, each line tagged with its node (read it with "
            + "`irdma-emu trace FILE`).")
    Path trace;

    @Override
    public Integer call() throws CliFailure {
        if (count < 1) {
            throw new CliFailure(ExitCodes.USAGE, "rping: -C must be at least 1", null);
        }
        IpEndpoint server = (ipv6 ? CmPair.B_V6 : CmPair.B_V4).withPort(RpingOptions.DEFAULT_PORT);
        IpEndpoint client = (ipv6 ? CmPair.A_V6 : CmPair.A_V4).withPort(40000);
        RpingOptions serverOptions;
        RpingOptions clientOptions;
        try {
            serverOptions = new RpingOptions(true, server, null, 0, size, validate, false, false);
            clientOptions = new RpingOptions(false, server, client, count, size, validate, false, false);
        } catch (IllegalArgumentException e) {
            throw new CliFailure(ExitCodes.USAGE, "rping: " + e.getMessage(), e);
        }
        Writer traceOut = null;
        if (trace != null) {
            try {
                traceOut = new BufferedWriter(Files.newBufferedWriter(trace, StandardCharsets.UTF_8), 1 << 16);
            } catch (IOException e) {
                throw new CliFailure(ExitCodes.IO_ERROR, "rping: " + trace + ": cannot write: " + e.getMessage(), e);
            }
        }
        PcapWriter writer = null;
        try {
            if (pcap != null) {
                writer = PcapWriter.open(pcap, TimestampResolution.NANOSECONDS);
            }
            return run(serverOptions, clientOptions, writer == null ? FrameTap.NONE : writer, traceOut);
        } catch (IOException | UncheckedIOException e) {
            throw new CliFailure(ExitCodes.IO_ERROR, "rping: " + (pcap != null ? pcap : trace)
                    + ": cannot write: " + e.getMessage(), e);
        } finally {
            if (traceOut != null) {
                try {
                    traceOut.close();
                } catch (IOException e) {
                    err().println("rping: " + trace + ": " + e.getMessage());
                }
            }
            if (writer != null) {
                try {
                    writer.close();
                } catch (IOException e) {
                    err().println("rping: " + pcap + ": " + e.getMessage());
                }
            }
        }
    }

    private int run(RpingOptions serverOptions, RpingOptions clientOptions, FrameTap tap, Writer traceOut) {
        PrintWriter out = out();
        List<RpingResult> results = new ArrayList<>();
        long wall0 = System.nanoTime();
        RpingResult clientResult;
        RpingResult serverResult;
        long simulated;
        long frames;
        try (ModelPair pair = ModelPair.tracingTo(tap, traceOut)) {
            RpingServer s = new RpingServer(pair.b.cm, pair.b.verbs, serverOptions).onConnectionDone(results::add)
                    .start();
            RpingClient c = new RpingClient(pair.a.cm, pair.a.verbs, clientOptions).onDone(results::add);
            c.start();
            long end = pair.scheduler.now() + LIMIT_NANOS;
            // the simulation runs on this thread until both sides are done
            while ((!c.isDone() || s.liveConnections() > 0 || results.size() < 2)
                    && pair.scheduler.nextDeadline() <= end && pair.scheduler.runNext()) {
                // each test of the condition ran one event
            }
            clientResult = c.result();
            serverResult = results.stream().filter(RpingResult::server).findFirst().orElse(null);
            simulated = pair.scheduler.now();
            frames = pair.link.framesCarried();
        }
        double wall = (System.nanoTime() - wall0) / 1e9;
        out.printf("rping on two model nodes: server %s (rping -s%s -S %d), client %s (rping -c -C %d -S %d%s)%n",
                serverOptions.address(), validate ? " -V" : "", size, clientOptions.source(), count, size,
                validate ? " -V" : "");
        out.println("client: " + describe(clientResult));
        out.println("server: " + describe(serverResult));
        out.printf("%d frames, %.3f ms simulated, %.3f s wall%s%n", frames, simulated / 1e6, wall,
                pcap == null ? "" : "; the wire is in " + pcap + " (try: ./irdma-emu decode " + pcap + ")");
        if (trace != null) {
            out.printf("the models' trace is in %s (try: ./irdma-emu trace %s)%n", trace, trace);
        }
        out.flush();
        boolean ok = clientResult != null && clientResult.ok() && serverResult != null && serverResult.ok();
        return ok ? ExitCodes.OK : ExitCodes.FAILED;
    }

    private static String describe(RpingResult r) {
        if (r == null) {
            return "no result (the run did not end)";
        }
        return (r.ok() ? "ok" : "FAILED") + ", " + r.pings() + " pings, " + r.verified() + " verified, "
                + r.bytesRead() + " bytes read, " + r.bytesWritten() + " bytes written"
                + (r.failure().isEmpty() ? "" : ": " + r.failure());
    }
}
