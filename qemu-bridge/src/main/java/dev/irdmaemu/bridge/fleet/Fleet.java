package dev.irdmaemu.bridge.fleet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A fleet run: scenarios across N containers of the self-contained image on one engine, N at a time, each in a
 * {@link ScenarioContainer} of its own (the model inside it), each run's folder kept under the fleet's folder
 * ({@code OUT/SCENARIO/}), the results gathered in a {@link FleetReport} in the order the scenarios were given.
 * The containers are named after the run, so that two fleets on one engine never meet.
 */
public final class Fleet {
    /** The most containers at once: a guard against a typo, far above what one engine runs well. */
    public static final int MAX_PARALLEL = 64;
    /** The most scenarios in one run. */
    public static final int MAX_SCENARIOS = 256;

    /**
     * What a fleet run needs.
     *
     * @param docker    the engine
     * @param image     the self-contained image, present on the engine
     * @param parallel  containers at once (1..{@value #MAX_PARALLEL})
     * @param scenarios the scenarios' words, each once
     * @param out       the fleet's folder (one folder per scenario under it)
     * @param timeout   the guest's timeout in each container ({@code boot --timeout})
     */
    public record Settings(DockerCli docker, String image, int parallel, List<String> scenarios, Path out,
                           Duration timeout) {
        public Settings {
            scenarios = List.copyOf(scenarios);
            if (parallel < 1 || parallel > MAX_PARALLEL) {
                throw new IllegalArgumentException("parallel is 1.." + MAX_PARALLEL + ", not " + parallel);
            }
            if (scenarios.isEmpty() || scenarios.size() > MAX_SCENARIOS) {
                throw new IllegalArgumentException("1.." + MAX_SCENARIOS + " scenarios, not " + scenarios.size());
            }
            if (new HashSet<>(scenarios).size() != scenarios.size()) {
                throw new IllegalArgumentException("a scenario is named twice: " + scenarios);
            }
            for (String s : scenarios) {
                if (!s.matches("[a-z0-9][a-z0-9-]{0,63}")) {
                    throw new IllegalArgumentException("a scenario is a word of a-z, 0-9 and '-', not '" + s + "'");
                }
            }
            if (image == null || image.isBlank() || image.startsWith("-")) {
                throw new IllegalArgumentException("no image");
            }
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("the timeout is positive");
            }
        }
    }

    private Fleet() {
    }

    /** Runs every scenario, {@code parallel} at a time; progress lines to {@code progress} as containers start and end. */
    public static FleetReport run(Settings s, Consumer<String> progress) throws IOException, InterruptedException {
        Files.createDirectories(s.out());
        String runId = Long.toString(System.currentTimeMillis(), 36) + Long.toString(ProcessHandle.current().pid(), 36);
        AtomicInteger done = new AtomicInteger();
        long started = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(s.parallel(), r -> {
            Thread t = new Thread(r, "fleet " + runId);
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<ScenarioRun>> futures = new ArrayList<>();
            for (String scenario : s.scenarios()) {
                ScenarioContainer c = new ScenarioContainer(s.docker(), s.image(),
                        ScenarioContainer.containerName(runId, scenario), s.timeout());
                futures.add(pool.submit(() -> {
                    progress.accept(scenario + ": started (container " + c.name() + ")");
                    ScenarioRun r = c.run(scenario, s.out().resolve(scenario));
                    progress.accept(String.format(Locale.ROOT, "[%d/%d] %s: %s after %.1f s%s", done.incrementAndGet(),
                            s.scenarios().size(), scenario, FleetReport.word(r.verdict()), r.time().toMillis() / 1e3,
                            r.passed() ? "" : ": " + r.headline()));
                    return r;
                }));
            }
            List<ScenarioRun> runs = new ArrayList<>();
            for (Future<ScenarioRun> f : futures) {
                runs.add(f.get());
            }
            return new FleetReport(s.docker().engine(), s.image(), s.parallel(), runs,
                    Duration.ofNanos(System.nanoTime() - started), s.out());
        } catch (ExecutionException e) {
            throw new IOException("a fleet worker failed: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }
}
