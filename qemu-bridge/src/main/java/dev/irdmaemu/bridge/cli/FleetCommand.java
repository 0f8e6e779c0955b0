package dev.irdmaemu.bridge.cli;

import dev.irdmaemu.bridge.boot.BootOptions;
import dev.irdmaemu.bridge.boot.BootScenario;
import dev.irdmaemu.bridge.fleet.DockerCli;
import dev.irdmaemu.bridge.fleet.Fleet;
import dev.irdmaemu.bridge.fleet.FleetReport;
import dev.irdmaemu.bridge.fleet.JUnitXml;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code irdma-emu fleet}: runs scenarios across N containers of the self-contained image on one container engine,
 * local or remote ({@link Fleet}), keeps each run's folder and writes the results as JUnit XML ({@link JUnitXml}).
 * Progress on stderr, the summary on stdout.
 */
@Command(name = "fleet", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run scenarios across several containers of the self-contained image (made by the image command of "
                + "the irdma-emu script) on "
                + "one container engine, local or remote: each scenario in a container of its own, the model, QEMU "
                + "and the guest inside it (irdma-emu boot --scenario S), nothing bind-mounted, N containers at a "
                + "time. Each run's folder (report.txt: the boot's summary; boot.log; run/: console, wire.pcap, "
                + "traces) is copied out into OUT/SCENARIO/, and OUT/junit.xml holds one test case per scenario "
                + "(failures with the run's failure summary) for CI services.",
            "Prints progress on stderr as containers start and end, and a summary with the wall time on stdout. "
                + "Exit code 0 when every scenario passed, 1 otherwise."})
final class FleetCommand extends VerboseCommand {
    @Option(names = "--engine", paramLabel = "URL",
            description = "The container engine: tcp://HOST:PORT, unix:///PATH or ssh://USER@HOST (default: "
                    + "$DOCKER_HOST).")
    String engine;

    @Option(names = "--parallel", paramLabel = "N", defaultValue = "2",
            description = "Containers at a time (1.." + Fleet.MAX_PARALLEL + ", default: ${DEFAULT-VALUE}).")
    int parallel;

    @Option(names = "--scenarios", paramLabel = "SCENARIO", split = ",", splitSynopsisLabel = ",", required = true,
            description = "The scenarios, comma-separated, each once (boot's: smoke, ping, rping-server, ...).")
    List<String> scenarios = new ArrayList<>();

    @Option(names = "--image", paramLabel = "IMAGE",
            description = "The self-contained image on the engine (default: the newest irdma-emu image of this "
                    + "version there; make one with the irdma-emu script's image --save FILE, then docker load -i "
                    + "FILE on the engine).")
    String image;

    @Option(names = "--out", paramLabel = "DIR", description = "The fleet's folder (default: target/fleet/<date-time>).")
    Path out;

    @Option(names = "--junit", paramLabel = "FILE", description = "The JUnit XML (default: OUT/junit.xml).")
    Path junit;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "300",
            description = "Each guest's timeout, as boot --timeout (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    @Option(names = "--docker", paramLabel = "PATH", defaultValue = "docker",
            description = "The docker command line to reach the engine with (default: ${DEFAULT-VALUE}).")
    Path dockerCli;

    @Override
    public Integer call() throws CliFailure, InterruptedException {
        PrintWriter pw = out();
        Fleet.Settings settings = settings(err());
        err().println("fleet: " + settings.scenarios().size() + " scenarios on " + settings.docker().engine() + ", "
                + parallel + " at a time, image " + settings.image() + "; run folders in " + settings.out());
        err().flush();
        FleetReport report;
        Path xml = junit != null ? junit : settings.out().resolve("junit.xml");
        try {
            report = Fleet.run(settings, progress(err()));
            JUnitXml.write(report, xml, Instant.now());
        } catch (IOException e) {
            throw new CliFailure(ExitCodes.IO_ERROR, "fleet: " + e.getMessage(), e);
        }
        report.summary().forEach(pw::println);
        pw.println("junit     " + xml);
        pw.flush();
        return report.ok() ? ExitCodes.OK : ExitCodes.FAILED;
    }

    private Fleet.Settings settings(PrintWriter err) throws CliFailure, InterruptedException {
        String url = engine != null ? engine : System.getenv("DOCKER_HOST");
        if (url == null || url.isBlank()) {
            throw new CliFailure(ExitCodes.USAGE, "fleet: no engine: give --engine URL (or set DOCKER_HOST)", null);
        }
        for (String s : scenarios) {
            try {
                BootScenario.named(s);
            } catch (IllegalArgumentException e) {
                throw new CliFailure(ExitCodes.USAGE, "fleet: " + e.getMessage(), e);
            }
        }
        if (timeoutSeconds < 10 || timeoutSeconds > 86_400) {
            throw new CliFailure(ExitCodes.USAGE, "fleet: --timeout is 10..86400 seconds", null);
        }
        Path dir = out != null ? out : BootOptions.newRunDir(Path.of("target", "fleet"));
        try {
            DockerCli docker = new DockerCli(dockerCli, url);
            String img = image != null ? image : newestImage(docker, dir);
            return new Fleet.Settings(docker, img, parallel, scenarios, dir, Duration.ofSeconds(timeoutSeconds));
        } catch (IllegalArgumentException e) {
            throw new CliFailure(ExitCodes.USAGE, "fleet: " + e.getMessage(), e);
        }
    }

    /** The newest image on the engine labelled with this build's version (build-app-image.sh labels it). */
    private static String newestImage(DockerCli docker, Path dir) throws CliFailure, InterruptedException {
        String version = BuildInfo.version();
        try {
            Files.createDirectories(dir);
            Path listed = dir.resolve("images.txt");
            Path errors = dir.resolve("images.err");
            Files.deleteIfExists(errors);
            Files.createFile(errors);
            DockerCli.Exit e = docker.call(Duration.ofMinutes(1), listed, errors, "images", "--filter",
                    "label=dev.irdmaemu.version=" + version, "--format", "{{.Repository}}:{{.Tag}}");
            if (!e.ok()) {
                throw new CliFailure(ExitCodes.FAILED, "fleet: the engine " + docker.engine() + " did not list its "
                        + "images: " + Files.readString(errors).strip(), null);
            }
            String first = Files.readAllLines(listed).stream().map(String::strip).filter(l -> !l.isEmpty()
                    && !l.endsWith(":<none>")).findFirst().orElse("");
            Files.deleteIfExists(listed);
            Files.deleteIfExists(errors);
            if (first.isEmpty()) {
                throw new CliFailure(ExitCodes.USAGE, "fleet: no irdma-emu image of version " + version + " on "
                        + docker.engine() + ": build one (./irdma-emu image --save FILE; docker load -i FILE there) "
                        + "or give --image", null);
            }
            return first;
        } catch (IOException e) {
            throw new CliFailure(ExitCodes.IO_ERROR, "fleet: the docker CLI: " + e.getMessage(), e);
        }
    }
}
