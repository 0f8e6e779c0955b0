package dev.irdmaemu.bridge.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Fleet} against a fake engine ({@link FakeEngine}): the verdicts a container's exit and report give, the
 * failure summaries, the run folders copied out, every container removed, and no more containers at once than
 * asked for.
 */
class FleetTest {
    @TempDir
    Path tmp;

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @Test
    void eachScenarioGetsItsVerdictItsFolderAndItsContainerRemoved() throws Exception {
        FakeEngine engine = new FakeEngine(tmp);
        List<String> progress = Collections.synchronizedList(new ArrayList<>());
        List<String> scenarios = List.of("ping", "rping-server", "ucmatose-client", "smoke");
        FleetReport r = Fleet.run(new Fleet.Settings(engine.docker(), "irdma-emu:test", 2, scenarios,
                tmp.resolve("out"), TIMEOUT), progress::add);

        assertEquals(scenarios, r.runs().stream().map(ScenarioRun::scenario).toList(), "in the order given");
        assertEquals(List.of(ScenarioRun.Verdict.PASSED, ScenarioRun.Verdict.FAILED, ScenarioRun.Verdict.ERROR,
                ScenarioRun.Verdict.PASSED), r.runs().stream().map(ScenarioRun::verdict).toList());
        ScenarioRun failed = r.runs().get(1);
        assertEquals("status    FAILED: the node saw 3 of 10 pings\n| rping: timeout\n| guest: step rping",
                failed.failure());
        assertTrue(failed.report().contains("guest     fail"), failed.report());
        ScenarioRun error = r.runs().get(2);
        assertTrue(error.failure().contains("exit code 125") && error.failure().contains("OCI runtime create failed"),
                error.failure());
        for (String s : scenarios) {
            assertTrue(Files.isRegularFile(tmp.resolve("out").resolve(s).resolve("run/console.log")), s + " copied out");
        }
        assertEquals("scenario  ping: x\nstatus    ok\nguest     ok\n",
                Files.readString(tmp.resolve("out/ping").resolve(ScenarioContainer.REPORT)));
        assertEquals(4, engine.removed().size(), "every container removed: " + engine.removed());
        for (String create : Files.readAllLines(engine.state.resolve("create-args"))) {
            assertTrue(create.contains("--network none") && create.contains(" irdma-emu:test boot --scenario ")
                    && create.contains("--out /work/run"), create);
            assertTrue(!create.contains(" -v ") && !create.contains("--volume") && !create.contains("--mount"),
                    "nothing bind-mounted: " + create);
        }
        assertEquals(2, engine.mostAtOnce(), "two containers at a time");
        assertEquals(2, r.passed());
        assertTrue(progress.stream().anyMatch(l -> l.matches("\\[\\d/4] rping-server: FAILED after .*")), progress.toString());
        String summary = String.join("\n", r.summary());
        assertTrue(summary.contains("result    2 of 4 passed; wall"), summary);
    }

    @Test
    void aContainerTheEngineRefusesIsAnErrorAndTheOthersStillRun() throws Exception {
        FakeEngine engine = new FakeEngine(tmp);
        Files.createFile(engine.state.resolve("refuse-smoke"));
        FleetReport r = Fleet.run(new Fleet.Settings(engine.docker(), "irdma-emu:test", 1,
                List.of("smoke", "ping"), tmp.resolve("out"), TIMEOUT), l -> { });
        assertEquals(ScenarioRun.Verdict.ERROR, r.runs().get(0).verdict());
        assertTrue(r.runs().get(0).failure().startsWith("the engine did not create the container (exit code 1): ")
                && r.runs().get(0).failure().contains("no space left"), r.runs().get(0).failure());
        assertTrue(r.runs().get(1).passed());
        assertEquals(1, engine.mostAtOnce());
    }

    @Test
    void badSettingsAreRefusedBeforeAnyContainer() throws Exception {
        DockerCli docker = new FakeEngine(tmp).docker();
        Path out = tmp.resolve("out");
        assertThrows(IllegalArgumentException.class, () -> new Fleet.Settings(docker, "i", 0, List.of("ping"), out, TIMEOUT));
        assertThrows(IllegalArgumentException.class, () -> new Fleet.Settings(docker, "i", 65, List.of("ping"), out, TIMEOUT));
        assertThrows(IllegalArgumentException.class, () -> new Fleet.Settings(docker, "i", 1, List.of(), out, TIMEOUT));
        assertThrows(IllegalArgumentException.class, () -> new Fleet.Settings(docker, "i", 1, List.of("ping", "ping"),
                out, TIMEOUT));
        assertThrows(IllegalArgumentException.class, () -> new Fleet.Settings(docker, "i", 1, List.of("../x"), out, TIMEOUT));
        assertThrows(IllegalArgumentException.class, () -> new Fleet.Settings(docker, "--rm", 1, List.of("ping"), out,
                TIMEOUT));
        assertThrows(IllegalArgumentException.class, () -> new DockerCli(Path.of("docker"), "http://x"));
        assertThrows(IllegalArgumentException.class, () -> new DockerCli(Path.of("docker"), "tcp://a b"));
        assertEquals("irdma-emu-fleet-r1-rping-server", ScenarioContainer.containerName("R1", "rping-server"));
    }

    @Test
    void theFailureSummaryIsTheStatusLineAndItsDetails() {
        assertEquals("status    FAILED: x\n| a", ScenarioContainer.failureOf(
                "scenario  s\nstatus    FAILED: x\n          | a\nguest     fail\n"));
        assertEquals("no status line in the report", ScenarioContainer.failureOf("garbage\n"));
        assertEquals(ScenarioRun.Verdict.FAILED, ScenarioContainer.verdictOf("status    FAILED: x\n"));
        assertEquals(ScenarioRun.Verdict.FAILED, ScenarioContainer.verdictOf("status    TIMEOUT: x\n"));
        assertEquals(ScenarioRun.Verdict.ERROR, ScenarioContainer.verdictOf("s\nstatus    ERROR: QEMU's console closed\n"));
        assertEquals(ScenarioRun.Verdict.ERROR, ScenarioContainer.verdictOf("status    ABORTED\n"));
    }
}
