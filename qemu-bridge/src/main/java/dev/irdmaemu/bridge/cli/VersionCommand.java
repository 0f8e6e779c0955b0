package dev.irdmaemu.bridge.cli;

import picocli.CommandLine.Command;

/** {@code irdma-emu version}: the project version and the Java it runs on. */
@Command(name = "version", description = "Print the irdma-emu version and the Java runtime.",
        mixinStandardHelpOptions = true)
final class VersionCommand extends VerboseCommand {
    @Override
    public Integer call() {
        for (String line : new BuildInfo().getVersion()) {
            out().println(line);
        }
        return ExitCodes.OK;
    }
}
