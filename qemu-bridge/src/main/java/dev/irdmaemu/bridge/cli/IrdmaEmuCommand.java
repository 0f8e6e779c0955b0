package dev.irdmaemu.bridge.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.ParameterException;

/** The top command: {@code irdma-emu [-v] COMMAND}. */
@Command(name = "irdma-emu",
        mixinStandardHelpOptions = true,
        versionProvider = BuildInfo.class,
        description = "A hardware-model emulator of the RDMA block of Intel's E810 NIC (the device of the Linux "
                + "irdma driver).",
        subcommands = {BootCommand.class, E810Command.class, ServeCommand.class, FleetCommand.class, CompareCommand.class, DemoCommand.class, RpingCommand.class, DecodeCommand.class, TraceCommand.class, SampleCommand.class, VersionCommand.class, HelpCommand.class},
        synopsisSubcommandLabel = "COMMAND",
        commandListHeading = "%nCommands:%n")
final class IrdmaEmuCommand extends VerboseCommand {
    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "a command is required");
    }
}
