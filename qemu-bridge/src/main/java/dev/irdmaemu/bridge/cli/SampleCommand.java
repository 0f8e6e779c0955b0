package dev.irdmaemu.bridge.cli;

import dev.irdmaemu.bridge.decode.SampleTrace;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code irdma-emu sample [FILE]}: (re)generates the project's sample trace. */
@Command(name = "sample", mixinStandardHelpOptions = true,
        description = {"Write the sample iWARP trace (TCP handshake, MPA v2 Request/Reply with RTR, Send, RDMA "
                + "Write, Read Request/Response, Send with Invalidate, a bad FPDU CRC, Terminate, FIN) as a "
                + "nanosecond pcap file.",
            "The committed samples/handshake.pcap is this command's output; a test keeps them equal."})
final class SampleCommand implements Callable<Integer> {
    @Mixin
    Verbosity verbosity;

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE", arity = "0..1", defaultValue = SampleTrace.DEFAULT_FILE,
            description = "Where to write it (default: ${DEFAULT-VALUE}).")
    Path file;

    @Override
    public Integer call() throws CliFailure {
        try {
            SampleTrace.writeFile(file);
        } catch (AccessDeniedException e) {
            throw new CliFailure(ExitCodes.IO_ERROR, "sample: " + file + ": permission denied", e);
        } catch (IOException e) {
            throw new CliFailure(ExitCodes.IO_ERROR, "sample: " + file + ": cannot write: " + e.getMessage(), e);
        }
        spec.commandLine().getOut().println("wrote " + file + " (" + SampleTrace.FRAMES + " frames)");
        spec.commandLine().getOut().flush();
        return ExitCodes.OK;
    }
}
