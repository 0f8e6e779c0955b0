package dev.irdmaemu.bridge.cli;

import dev.irdmaemu.bridge.model.ModelPair;
import dev.irdmaemu.cm.demo.TwoNodeDemo;
import java.io.BufferedWriter;
import java.nio.file.Files;
import dev.irdmaemu.fw.pcap.PcapWriter;
import dev.irdmaemu.fw.pcap.TimestampResolution;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code irdma-emu demo}: two in-process nodes, each running the Java connection manager, connect over the
 * simulated wire with MPA v2, exchange private data and disconnect; prints the event sequence and the negotiated
 * IRD/ORD and writes the wire to a pcap. By default ({@code --model}) each node is the E810 device model brought
 * up by the cm driver layer (ILQ, quad hash, QP offload through CQP ops); {@code --stand-in} runs the CM on the
 * in-memory hardware stand-in instead. {@code --trace FILE} writes the models' register / CQP trace as JSON
 * lines, and the model run ends with a per-op CQP latency summary of each node.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Two in-process nodes (192.0.2.1 client, 192.0.2.2 server) connect with MPA v2 through the "
                + "Java connection manager, exchange private data, and disconnect.",
            "Prints the CM events with simulated time and the negotiated IRD/ORD, and writes every frame on the "
                + "wire to a pcap (read it with `irdma-emu decode FILE`).",
            "By default each node is the E810 device model brought up by the driver layer (--model); --stand-in "
                + "uses the in-memory hardware stand-in. --trace FILE writes the models' register / CQP trace."})
final class DemoCommand extends VerboseCommand {
    @Option(names = "--pcap", paramLabel = "FILE", defaultValue = "demo.pcap",
            description = "Where to write the capture (default: ${DEFAULT-VALUE}).")
    Path pcap;

    @Option(names = "--ird", paramLabel = "N", defaultValue = "16",
            description = "IRD the client asks for (default: ${DEFAULT-VALUE}; the devices allow 128).")
    int ird;

    @Option(names = "--ord", paramLabel = "N", defaultValue = "16",
            description = "ORD the client asks for (default: ${DEFAULT-VALUE}).")
    int ord;

    @Option(names = "--model", description = "Run both nodes on the E810 device model (the default).")
    boolean model;

    @Option(names = "--stand-in", description = "Run both nodes on the in-memory hardware stand-in instead.")
    boolean standIn;

    @Option(names = "--trace", paramLabel = "FILE",
            description = "With the model: write the register / CQP trace of both nodes as JSON lines to FILE.")
    Path trace;

    @Override
    public Integer call() throws CliFailure {
        if (model && standIn) {
            throw new CliFailure(ExitCodes.USAGE, "demo: --model and --stand-in exclude each other", null);
        }
        if (standIn && trace != null) {
            throw new CliFailure(ExitCodes.USAGE, "demo: --trace needs the device model (drop --stand-in)", null);
        }
        if (ird < 0 || ird > 0x3fff || ord < 0 || ord > 0x3fff) {
            throw new CliFailure(ExitCodes.USAGE, "demo: IRD and ORD are 14-bit values (0..16383)", null);
        }
        PrintWriter out = out();
        TwoNodeDemo.Result r;
        String latency = null;
        try (PcapWriter writer = PcapWriter.open(pcap, TimestampResolution.NANOSECONDS)) {
            if (standIn) {
                r = TwoNodeDemo.run(writer, ird, ord);
            } else {
                String[] summary = new String[1];
                r = runOnModel(writer, summary);
                latency = summary[0];
            }
        } catch (AccessDeniedException e) {
            throw new CliFailure(ExitCodes.IO_ERROR, "demo: " + pcap + ": permission denied", e);
        } catch (IOException | UncheckedIOException e) {
            throw new CliFailure(ExitCodes.IO_ERROR, "demo: " + pcap + ": cannot write: " + e.getMessage(), e);
        }
        out.println(standIn ? "hardware: in-memory stand-in" : "hardware: E810 device model (irdma driver layer)");
        out.println("CM events (simulated time, node, upcall, detail):");
        r.steps().forEach(s -> out.println("  " + s));
        out.printf("negotiated: MPA revision %d; client IRD %d ORD %d; server IRD %d ORD %d%n", r.mpaRevision(),
                r.clientIrd(), r.clientOrd(), r.serverIrd(), r.serverOrd());
        out.printf("private data: client received \"%s\", server received \"%s\"%n", r.clientReceived(),
                r.serverReceived());
        out.printf("%d frames on the wire written to %s (try: ./irdma-emu decode %s)%n", r.framesOnWire(), pcap,
                pcap);
        out.println(r.clean() ? "both nodes clean afterwards: no connection nodes, no timers"
                : "NOT clean afterwards: connection nodes or timers left");
        if (latency != null) {
            out.print(latency);
        }
        if (trace != null) {
            out.printf("register / CQP trace written to %s%n", trace);
        }
        out.flush();
        return r.clean() && !r.clientReceived().isEmpty() ? ExitCodes.OK : ExitCodes.SOFTWARE;
    }

    /** The scenario on two model nodes; {@code summary[0]} gets the per-op CQP latency tables. */
    private TwoNodeDemo.Result runOnModel(PcapWriter writer, String[] summary) throws CliFailure, IOException {
        BufferedWriter traceOut = null;
        if (trace != null) {
            try {
                traceOut = Files.newBufferedWriter(trace);
            } catch (IOException e) {
                throw new CliFailure(ExitCodes.IO_ERROR, "demo: " + trace + ": cannot write: " + e.getMessage(), e);
            }
        }
        try (ModelPair pair = ModelPair.tracingTo(writer, traceOut)) {
            TwoNodeDemo.Result r = TwoNodeDemo.run(pair.a.cm, pair.b.cm, pair.scheduler, pair.link::framesCarried,
                    ird, ord);
            summary[0] = "CQP op latency, node A (simulated ns):\n" + pair.a.device.cqp().stats().summary()
                    + "CQP op latency, node B (simulated ns):\n" + pair.b.device.cqp().stats().summary();
            return r;
        } finally {
            if (traceOut != null) {
                traceOut.close();
            }
        }
    }
}
