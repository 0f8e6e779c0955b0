package dev.irdmaemu.bridge.cli;

import dev.irdmaemu.bridge.boot.BootOptions;
import dev.irdmaemu.bridge.run.BootReport;
import dev.irdmaemu.bridge.run.BootRun;
import dev.irdmaemu.bridge.boot.BootScenario;
import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.GuestLaunch.Siw;
import dev.irdmaemu.bridge.kit.MissingGuestKitException;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code irdma-emu boot}: the model's port served to a real Linux guest. Starts the hosted node (the E810 model
 * brought up by the driver layer, the CM, the LAN responder, the scenario's services) at the far end of the guest's
 * NIC (the emulated E810 over vfio-user by default, or virtio-net over vhost-user), boots the guest kit under QEMU
 * (TCG) with the scenario on its command line, streams the console to
 * a log, writes the wire to a pcap and the model's trace to JSON lines, prints progress and a summary, and tears
 * everything down on every path (the result, an error, a timeout, Ctrl-C). Exit code 0 when the scenario passed,
 * 1 otherwise. The first run provisions the guest kit ({@code ./irdma-emu kit}).
 */
@Command(name = "boot", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Boot a Linux guest (QEMU, TCG) and run a scenario against a hosted model node (an E810 RDMA "
                + "model brought up by the irdma driver layer, the Java CM) at the far end of the guest's NIC: by "
                + "default the emulated E810 over vfio-user, driven by Linux 7.3's stock ice.ko and irdma.ko in "
                + "iWARP mode (--nic e810); or a virtio-net NIC served over vhost-user with Debian 12's siw "
                + "(--nic virtio).",
            "Writes console.log, wire.pcap and trace.jsonl (and, on the E810, e810-trace.jsonl) to the run folder, "
                + "prints progress on stderr and a summary on stdout. Exit code 0 when the scenario passed, 1 "
                + "otherwise.",
            "Scenarios: smoke, ping, rping-server (default), rping-client-refused, rping-client, rping-throughput, "
                + "ucmatose-server, ucmatose-client (docs/boot.md)."})
final class BootCommand extends VerboseCommand {
    @Option(names = "--scenario", paramLabel = "S", defaultValue = "rping-server",
            description = "The scenario (default: ${DEFAULT-VALUE}).")
    String scenario;

    @Option(names = "--siw", paramLabel = "stock|p2p",
            description = "The guest's siw build: stock (peer_to_peer false, as Linux ships it) or p2p (built with "
                    + "peer_to_peer true). Default: the scenario's.")
    String siw;

    @Option(names = "--nic", paramLabel = "e810|virtio", defaultValue = "e810",
            description = "The guest's NIC: e810 (the emulated E810 over vfio-user: Linux 7.3's stock ice.ko and "
                    + "irdma.ko in iWARP mode, the kit's e810 flavour) or virtio (virtio-net over vhost-user, Debian "
                    + "12's kernel with siw). Default: ${DEFAULT-VALUE}.")
    String nic;

    @Option(names = "--kernel", paramLabel = "K", description = "Boot this kernel image instead of the kit's.")
    Path kernel;

    @Option(names = "--modules", paramLabel = "DIR",
            description = "With --kernel and --nic e810: the kernel's modules tree (INSTALL_MOD_PATH/lib/modules/"
                    + "RELEASE, as make modules_install writes it); its ice, irdma and RDMA modules replace the kit's.")
    Path modules;

    @Option(names = "--initrd", paramLabel = "I",
            description = "Use this initramfs instead of the kit's (the scenarios are laid over it).")
    Path initrd;

    @Option(names = "--out", paramLabel = "DIR",
            description = "The run folder (default: target/boot/<date-time>).")
    Path out;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "180",
            description = "How long to wait for the guest's result (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    @Option(names = "--memory", paramLabel = "MIB", defaultValue = "512",
            description = "Guest memory in MiB (default: ${DEFAULT-VALUE}).")
    int memoryMiB;

    @Override
    public Integer call() throws CliFailure, InterruptedException {
        BootOptions options = options();
        PrintWriter out = out();
        PrintWriter err = err();
        GuestKit kit = kit(err);
        BootRun run = new BootRun(kit, options, progress(err));
        Thread hook = new Thread(() -> {
            if (!run.aborted()) {
                err.println("boot: interrupted: tearing down");
                err.flush();
            }
            run.abort();
            run.close();
        }, "irdma-emu boot teardown");
        Runtime.getRuntime().addShutdownHook(hook);
        BootReport report;
        try {
            report = run.run();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // Ctrl-C: the hook is running the teardown
            }
        }
        report.summary().forEach(out::println);
        out.flush();
        return report.ok() ? ExitCodes.OK : ExitCodes.FAILED;
    }

    private BootOptions options() throws CliFailure {
        BootScenario s;
        try {
            s = BootScenario.named(scenario);
        } catch (IllegalArgumentException e) {
            throw new CliFailure(ExitCodes.USAGE, "boot: " + e.getMessage(), e);
        }
        Siw build = null;
        if (siw != null) {
            build = switch (siw) {
                case "stock" -> Siw.STOCK;
                case "p2p" -> Siw.PEER_TO_PEER;
                default -> throw new CliFailure(ExitCodes.USAGE, "boot: --siw is stock or p2p, not '" + siw + "'", null);
            };
        }
        if (timeoutSeconds <= 0 || timeoutSeconds > 86_400) {
            throw new CliFailure(ExitCodes.USAGE, "boot: --timeout is 1..86400 seconds", null);
        }
        for (Path p : new Path[] {kernel, initrd}) {
            if (p != null && !Files.isRegularFile(p)) {
                throw new CliFailure(ExitCodes.NO_INPUT, "boot: " + p + ": no such file", null);
            }
        }
        if (modules != null && !Files.isRegularFile(modules.resolve("modules.dep"))) {
            throw new CliFailure(ExitCodes.NO_INPUT, "boot: " + modules + ": no modules.dep there (give "
                    + "INSTALL_MOD_PATH/lib/modules/RELEASE)", null);
        }
        Path dir = this.out != null ? this.out : BootOptions.newRunDir(Path.of("target", "boot"));
        try {
            return new BootOptions(s, build, kernel, initrd, dir, Duration.ofSeconds(timeoutSeconds), memoryMiB,
                    BootOptions.Nic.of(nic), modules);
        } catch (IllegalArgumentException e) {
            throw new CliFailure(ExitCodes.USAGE, "boot: " + e.getMessage(), e);
        }
    }

    /** The guest kit; on the first run, provisioned as {@code ./irdma-emu kit} does, its progress on stderr. */
    static GuestKit kit(PrintWriter err) throws CliFailure, InterruptedException {
        try {
            return GuestKit.locate();
        } catch (MissingGuestKitException missing) {
            Path launcher = launcher();
            boolean named = System.getProperty(GuestKit.KIT_PROPERTY) != null || System.getenv(GuestKit.KIT_ENV) != null;
            if (launcher == null || named) {
                throw new CliFailure(ExitCodes.FAILED, "boot: " + missing.getMessage(), missing);
            }
            err.println("boot: no guest kit yet: provisioning it (" + launcher + " kit; the first time downloads "
                    + "about 260 MB and takes about a minute)");
            err.flush();
            try {
                Process p = new ProcessBuilder(launcher.toString(), "kit")
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                        .redirectOutput(ProcessBuilder.Redirect.INHERIT)
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
                int code = p.waitFor();
                if (code != 0) {
                    throw new CliFailure(ExitCodes.FAILED, "boot: provisioning the guest kit failed (exit " + code + ")", null);
                }
                return GuestKit.locate();
            } catch (IOException e) {
                throw new CliFailure(ExitCodes.FAILED, "boot: cannot run " + launcher + " kit: " + e.getMessage(), e);
            } catch (MissingGuestKitException e) {
                throw new CliFailure(ExitCodes.FAILED, "boot: " + e.getMessage(), e);
            }
        }
    }

    /** The repository's ./irdma-emu launcher above the working directory, or null. */
    private static Path launcher() {
        for (Path d = Path.of(System.getProperty("user.dir")).toAbsolutePath(); d != null; d = d.getParent()) {
            Path l = d.resolve("irdma-emu");
            if (Files.isRegularFile(l) && Files.isExecutable(l) && Files.isRegularFile(d.resolve("pom.xml"))) {
                return l;
            }
        }
        return null;
    }
}
