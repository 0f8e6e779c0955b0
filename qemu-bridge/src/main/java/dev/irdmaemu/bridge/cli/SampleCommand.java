package dev.irdmaemu.bridge.cli;

import dev.irdmaemu.bridge.decode.SampleTrace;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code irdma-emu sample [FILE]}: (re)generates the project's sample trace. */
@Command(name = "sample", mixinStandardHelpOptions = true,
        description = {"Write the sample iWARP trace (TCP handshake, MPA v2 Request/Reply with RTR, Send, RDMA "
                + "Write, Read Request/Response, Send with Invalidate, a bad FPDU CRC, Terminate, FIN) as a "
                + "nanosecond pcap file.",
            "The committed samples/handshake.pcap is this command's output; a test keeps them equal."})
final class SampleCommand extends VerboseCommand {
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
        out().println("wrote " + file + " (" + SampleTrace.FRAMES + " frames)");
        out().flush();
        return ExitCodes.OK;
    }
}
