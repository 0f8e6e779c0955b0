package dev.irdmaemu.bridge.fleet;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a {@link Fleet} run came to: each scenario's {@link ScenarioRun} in the order given, the wall time of the
 * whole run (to set against the runs' own times added up: what running them one after another would roughly take),
 * and the summary {@code irdma-emu fleet} prints.
 */
public record FleetReport(String engine, String image, int parallel, List<ScenarioRun> runs, Duration wall, Path out) {
    public FleetReport {
        runs = List.copyOf(runs);
    }

    public long passed() {
        return runs.stream().filter(ScenarioRun::passed).count();
    }

    public boolean ok() {
        return passed() == runs.size();
    }

    /** The runs' own times added up. */
    public Duration runsAddedUp() {
        return runs.stream().map(ScenarioRun::time).reduce(Duration.ZERO, Duration::plus);
    }

    /** The summary, one item a line. */
    public List<String> summary() {
        List<String> l = new ArrayList<>();
        l.add(String.format(Locale.ROOT, "fleet     %d scenario%s on %s, %d at a time, image %s", runs.size(),
                runs.size() == 1 ? "" : "s", engine, parallel, image));
        int width = runs.stream().mapToInt(r -> r.scenario().length()).max().orElse(0);
        for (ScenarioRun r : runs) {
            l.add(String.format(Locale.ROOT, "  %-6s  %-" + width + "s  %6.1f s  %s%s", word(r.verdict()), r.scenario(),
                    r.time().toMillis() / 1e3, r.folder(), r.passed() ? "" : "  " + r.headline()));
        }
        l.add(String.format(Locale.ROOT, "result    %d of %d passed; wall %.1f s (the runs' own times add up to %.1f s)",
                passed(), runs.size(), wall.toMillis() / 1e3, runsAddedUp().toMillis() / 1e3));
        return l;
    }

    static String word(ScenarioRun.Verdict v) {
        return switch (v) {
            case PASSED -> "ok";
            case FAILED -> "FAILED";
            case ERROR -> "ERROR";
        };
    }
}
