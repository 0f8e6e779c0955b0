package dev.irdmaemu.bridge.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code irdma-emu version}: the project version and the Java it runs on. */
@Command(name = "version", description = "Print the irdma-emu version and the Java runtime.",
        mixinStandardHelpOptions = true)
final class VersionCommand implements Callable<Integer> {
    @Mixin
    Verbosity verbosity;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        for (String line : new BuildInfo().getVersion()) {
            spec.commandLine().getOut().println(line);
        }
        return ExitCodes.OK;
    }
}
