package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.bridge.run.BootRun;
import dev.irdmaemu.bridge.run.BootReport;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The teardown on the paths without a result: a guest that does not answer in time, and Ctrl-C (the shutdown hook
 * calls {@link BootRun#abort()} then {@link BootRun#close()}). Either way QEMU is gone, the socket and the
 * temporary initramfs are removed, the model thread has stopped, and the run folder keeps its files.
 */
class BootTeardownTest {
    @Test
    void aGuestThatDoesNotAnswerInTimeIsATimeoutAndLeavesNothingBehind() throws Exception {
        // two seconds: QEMU starts, the guest cannot reach its result line before the run gives up
        BootOptions o = BootOptions.of(BootScenario.PING, Path.of("target", "boot-tests", "timeout"))
                .withTimeout(Duration.ofSeconds(2));
        BootRun run = new BootRun(BootTests.kit(), o, line -> { });
        BootReport r = run.run();
        assertEquals(BootReport.Status.TIMEOUT, r.status(), () -> String.join("\n", r.summary()));
        assertNull(r.guest());
        assertTrue(r.failure().contains("within 2 s"), r.failure());
        assertFalse(Files.exists(run.temporaryFolder()), "the socket and the temporary initramfs are removed");
        BootTests.assertNoQemuLeft(run.temporaryFolder());
        assertTrue(Files.exists(r.console()) && Files.exists(r.pcap()) && Files.exists(r.trace()),
                "the run folder keeps what was written");
        assertTrue(r.summary().stream().anyMatch(l -> l.startsWith("status    TIMEOUT")), r.summary()::toString);
    }

    @Test
    void ctrlCWhileTheGuestBootsKillsQemuAndTearsDown() throws Exception {
        BootOptions o = BootOptions.of(BootScenario.PING, Path.of("target", "boot-tests", "abort"))
                .withTimeout(BootTests.TIMEOUT);
        CompletableFuture<Void> qemuStarted = new CompletableFuture<>();
        BootRun run = new BootRun(BootTests.kit(), o, line -> {
            if (line.startsWith("QEMU")) {
                qemuStarted.complete(null);
            }
        });
        CompletableFuture<BootReport> report = CompletableFuture.supplyAsync(() -> {
            try {
                return run.run();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        qemuStarted.get(60, TimeUnit.SECONDS);
        // what the shutdown hook of `irdma-emu boot` does on Ctrl-C
        run.abort();
        run.close();
        BootReport r = report.get(60, TimeUnit.SECONDS);
        assertEquals(BootReport.Status.ABORTED, r.status(), () -> String.join("\n", r.summary()));
        assertFalse(Files.exists(run.temporaryFolder()));
        BootTests.assertNoQemuLeft(run.temporaryFolder());
        assertTrue(r.failure().contains("interrupted"), r.failure());
    }
}
