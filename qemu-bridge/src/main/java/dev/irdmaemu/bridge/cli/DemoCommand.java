package dev.irdmaemu.bridge.cli;

import dev.irdmaemu.cm.demo.TwoNodeDemo;
import dev.irdmaemu.fw.pcap.PcapWriter;
import dev.irdmaemu.fw.pcap.TimestampResolution;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code irdma-emu demo}: two in-process nodes, each running the Java connection manager, connect over the
 * simulated wire with MPA v2, exchange private data and disconnect; prints the event sequence and the negotiated
 * IRD/ORD and writes the wire to a pcap.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Two in-process nodes (192.0.2.1 client, 192.0.2.2 server) connect with MPA v2 through the "
                + "Java connection manager, exchange private data, and disconnect.",
            "Prints the CM events with simulated time and the negotiated IRD/ORD, and writes every frame on the "
                + "wire to a pcap (read it with `irdma-emu decode FILE`)."})
final class DemoCommand implements Callable<Integer> {
    @Mixin
    Verbosity verbosity;

    @Spec
    CommandSpec spec;

    @Option(names = "--pcap", paramLabel = "FILE", defaultValue = "demo.pcap",
            description = "Where to write the capture (default: ${DEFAULT-VALUE}).")
    Path pcap;

    @Option(names = "--ird", paramLabel = "N", defaultValue = "16",
            description = "IRD the client asks for (default: ${DEFAULT-VALUE}; the devices allow 128).")
    int ird;

    @Option(names = "--ord", paramLabel = "N", defaultValue = "16",
            description = "ORD the client asks for (default: ${DEFAULT-VALUE}).")
    int ord;

    @Override
    public Integer call() throws CliFailure {
        if (ird < 0 || ird > 0x3fff || ord < 0 || ord > 0x3fff) {
            throw new CliFailure(ExitCodes.USAGE, "demo: IRD and ORD are 14-bit values (0..16383)", null);
        }
        PrintWriter out = spec.commandLine().getOut();
        TwoNodeDemo.Result r;
        try (PcapWriter writer = PcapWriter.open(pcap, TimestampResolution.NANOSECONDS)) {
            r = TwoNodeDemo.run(writer, ird, ord);
        } catch (AccessDeniedException e) {
            throw new CliFailure(ExitCodes.IO_ERROR, "demo: " + pcap + ": permission denied", e);
        } catch (IOException | UncheckedIOException e) {
            throw new CliFailure(ExitCodes.IO_ERROR, "demo: " + pcap + ": cannot write: " + e.getMessage(), e);
        }
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
        out.flush();
        return r.clean() && !r.clientReceived().isEmpty() ? ExitCodes.OK : ExitCodes.SOFTWARE;
    }
}
