package dev.irdmaemu.bridge.fleet;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * One scenario in one container of the self-contained image: {@code irdma-emu boot --scenario S} as the image's
 * entry point runs it (the model, QEMU and the guest all inside; no network, nothing bind-mounted), its report (the
 * summary {@code boot} prints) and progress kept here, its run folder (console, capture, traces) copied out with
 * {@code docker cp}, then the container removed whatever happened. Follows the engine API's container life cycle
 * (create, start attached, copy, remove) as the docker CLI exposes it.
 */
final class ScenarioContainer {
    /** Where the run folder is inside the container (the image's working directory is /work). */
    static final String RUN_FOLDER = "/work/run";
    /** The report (the container's standard output) in the scenario's folder here. */
    static final String REPORT = "report.txt";
    /** The container's standard error (the run's progress) in the scenario's folder here. */
    static final String LOG = "boot.log";
    /** What the engine said to create, copy and remove calls, in the scenario's folder here. */
    static final String ENGINE_LOG = "engine.log";
    /** The run folder copied out of the container, in the scenario's folder here. */
    static final String COPIED_RUN = "run";
    /** How long a create, copy or remove may take. */
    private static final Duration ENGINE_CALL = Duration.ofMinutes(2);
    /** Beyond the guest's own timeout: the JVM and the model starting, QEMU's end, the teardown. */
    private static final Duration MARGIN = Duration.ofMinutes(2);
    /** The most of a report read back: a report is a screenful, anything longer is not one. */
    private static final int REPORT_MAX = 1 << 20;

    private final DockerCli docker;
    private final String image;
    private final String name;
    private final Duration timeout;

    ScenarioContainer(DockerCli docker, String image, String name, Duration timeout) {
        this.docker = docker;
        this.image = image;
        this.name = name;
        this.timeout = timeout;
    }

    String name() {
        return name;
    }

    /** Runs {@code scenario}, keeping what it leaves in {@code folder}; never throws for what the engine or run did. */
    ScenarioRun run(String scenario, Path folder) throws InterruptedException {
        long started = System.nanoTime();
        Path engineLog = folder.resolve(ENGINE_LOG);
        try {
            Files.createDirectories(folder);
            Files.deleteIfExists(engineLog);
            Files.createFile(engineLog);
        } catch (IOException e) {
            return new ScenarioRun(scenario, ScenarioRun.Verdict.ERROR, since(started), "cannot write "
                    + folder + ": " + e.getMessage(), folder, "");
        }
        try {
            return attempt(scenario, folder, engineLog, started);
        } catch (IOException e) {
            return new ScenarioRun(scenario, ScenarioRun.Verdict.ERROR, since(started), "the docker CLI: "
                    + e.getMessage(), folder, "");
        } finally {
            remove(folder, engineLog);
        }
    }

    private ScenarioRun attempt(String scenario, Path folder, Path engineLog, long started)
            throws IOException, InterruptedException {
        DockerCli.Exit created = docker.call(ENGINE_CALL, engineLog, engineLog, "create",
                "--name", name, "--network", "none", "--label", "dev.irdmaemu.fleet=" + name, image, "boot",
                "--scenario", scenario, "--out", RUN_FOLDER, "--timeout", Long.toString(timeout.toSeconds()));
        if (!created.ok()) {
            return error(scenario, folder, started, "the engine did not create the container (" + describe(created)
                    + "): " + DockerCli.tail(engineLog), "");
        }
        Path reportFile = folder.resolve(REPORT);
        Path log = folder.resolve(LOG);
        Files.deleteIfExists(log);
        Files.createFile(log);
        Files.deleteIfExists(reportFile);
        DockerCli.Exit ran = docker.call(timeout.plus(MARGIN), reportFile, log, "start", "--attach", name);
        String report = read(reportFile);
        if (ran.ending() == DockerCli.Ending.TIMED_OUT) {
            docker.call(ENGINE_CALL, engineLog, engineLog, "kill", name);
        }
        DockerCli.Exit copied = docker.call(ENGINE_CALL, engineLog, engineLog, "cp",
                name + ":" + RUN_FOLDER, folder.resolve(COPIED_RUN).toString());
        if (ran.ending() == DockerCli.Ending.TIMED_OUT) {
            return error(scenario, folder, started, "the container did not end in " + timeout.plus(MARGIN).toSeconds()
                    + " s (killed); its log: " + DockerCli.tail(log), report);
        }
        if (ran.code() == 0 && report.lines().anyMatch(l -> l.equals("status    ok"))) {
            if (!copied.ok()) {
                return error(scenario, folder, started, "passed, but its run folder was not copied out ("
                        + describe(copied) + "): " + DockerCli.tail(engineLog), report);
            }
            return new ScenarioRun(scenario, ScenarioRun.Verdict.PASSED, since(started), "", folder, report);
        }
        if (ran.code() == 1 && !report.isEmpty()) {
            return new ScenarioRun(scenario, verdictOf(report), since(started), failureOf(report), folder, report);
        }
        return error(scenario, folder, started, "the container ended with exit code " + ran.code() + ": "
                + DockerCli.tail(log), report);
    }

    /**
     * A report that did not pass: failed when the scenario ran and did not pass or ran out of time (boot's FAILED
     * and TIMEOUT), an error when it could not run (ERROR: QEMU ended early, the model did not come up; ABORTED).
     */
    static ScenarioRun.Verdict verdictOf(String report) {
        return report.lines().anyMatch(l -> l.startsWith("status    ERROR") || l.startsWith("status    ABORTED"))
                ? ScenarioRun.Verdict.ERROR : ScenarioRun.Verdict.FAILED;
    }

    /** The report's status line and the failure's further lines (each "| ..." under it). */
    static String failureOf(String report) {
        String lines = report.lines().dropWhile(l -> !l.startsWith("status ")).takeWhile(l -> l.startsWith("status ")
                || l.startsWith("          | ")).map(String::strip).collect(Collectors.joining("\n"));
        return lines.isEmpty() ? "no status line in the report" : lines;
    }

    private void remove(Path folder, Path engineLog) throws InterruptedException {
        try {
            docker.call(ENGINE_CALL, engineLog, engineLog, "rm", "--force", name);
        } catch (IOException e) {
            // the container stays; its label names the fleet run (docker ps -a --filter label=dev.irdmaemu.fleet)
        }
    }

    private static ScenarioRun error(String scenario, Path folder, long started, String why, String report) {
        return new ScenarioRun(scenario, ScenarioRun.Verdict.ERROR, since(started), why, folder, report);
    }

    private static String describe(DockerCli.Exit e) {
        return e.ending() == DockerCli.Ending.TIMED_OUT ? "no answer in time" : "exit code " + e.code();
    }

    /** The report as text, at most {@link #REPORT_MAX} bytes of it (bytes that are not UTF-8 replaced). */
    private static String read(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return new String(in.readNBytes(REPORT_MAX), StandardCharsets.UTF_8);
        }
    }

    private static Duration since(long started) {
        return Duration.ofNanos(System.nanoTime() - started);
    }

    /** A container name for the fleet run {@code run}'s scenario: the engine's name rules ([a-zA-Z0-9][a-zA-Z0-9_.-]). */
    static String containerName(String run, String scenario) {
        return ("irdma-emu-fleet-" + run + "-" + scenario).toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_.-]", "_");
    }
}
