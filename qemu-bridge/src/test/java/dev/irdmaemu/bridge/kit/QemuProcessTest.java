package dev.irdmaemu.bridge.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** QemuProcess on stand-in processes (a shell printing what a guest console would), no QEMU needed. */
class QemuProcessTest {
    @TempDir
    Path dir;

    private static final Duration GUARD = Duration.ofSeconds(60);

    private static List<String> sh(String script) {
        return List.of("/bin/sh", "-c", script);
    }

    @Test
    void theResultLineIsFoundBehindTerminalControlAndTheConsoleIsLogged() throws Exception {
        Path log = dir.resolve("sub/console.log");
        GuestResult r;
        try (QemuProcess q = QemuProcess.start(sh("printf '\\033c\\033[?7l\\033[2JSeaBIOS\\r\\n'; echo 'guest up';"
                + " echo 'IRDMA-EMU-RESULT scenario=smoke status=ok siw=siw0'; echo after"), log)) {
            r = q.awaitResult(GUARD);
            assertEquals(0, q.awaitExit(GUARD).orElseThrow());
        }
        assertEquals("smoke", r.scenario());
        assertEquals("siw0", r.field("siw"));
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        assertTrue(lines.get(0).startsWith("# /bin/sh -c"), lines.get(0));
        assertEquals("SeaBIOS", lines.get(1), "terminal control removed");
        assertTrue(lines.contains("guest up"));
        assertTrue(lines.contains("after"), "the console is read to its end");
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("# result after ")));
    }

    @Test
    void qemuEndingWithoutAResultIsAFailureWithTheConsoleTail() throws Exception {
        try (QemuProcess q = QemuProcess.start(sh("echo 'qemu-system-x86_64: cannot open kernel'; exit 1"), dir.resolve("c.log"))) {
            GuestBootException e = assertThrows(GuestBootException.class, () -> q.awaitResult(GUARD));
            assertTrue(e.getMessage().contains("exit code 1"), e.getMessage());
            assertTrue(e.getMessage().contains("cannot open kernel"), e.getMessage());
        }
    }

    /** The checkpoint dialogue of the e810-lifecycle scenario: the guest prints a marker and reads the answer. */
    @Test
    void anInteractiveConsoleHearsEveryLineAndTypesTheAnswerOnTheGuestsInput() throws Exception {
        List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
        QemuProcess[] self = new QemuProcess[1];
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        GuestResult r;
        try (QemuProcess q = QemuProcess.startInteractive(sh("echo 'IRDMA-EMU-CHECKPOINT probed'; read w name rest;"
                + " echo \"IRDMA-EMU-RESULT scenario=s status=ok answer=$w/$name/$rest\""), dir.resolve("i.log"), line -> {
                    heard.add(line);
                    if (line.equals("IRDMA-EMU-CHECKPOINT probed")) {
                        try {
                            started.await();
                            self[0].typeLine("IRDMA-EMU-ACK probed rdma=0");
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }
                })) {
            self[0] = q;
            started.countDown();
            r = q.awaitResult(GUARD);
        }
        assertEquals("IRDMA-EMU-ACK/probed/rdma=0", r.field("answer"));
        assertEquals("IRDMA-EMU-CHECKPOINT probed", heard.get(0));
        assertTrue(heard.get(1).startsWith("IRDMA-EMU-RESULT"), heard.toString());
    }

    @Test
    void aProcessStartedWithoutConsoleInputTakesNoTyping() throws Exception {
        try (QemuProcess q = QemuProcess.start(sh("echo 'IRDMA-EMU-RESULT scenario=s status=ok'"), dir.resolve("n.log"))) {
            assertThrows(IllegalStateException.class, () -> q.typeLine("anything"));
            q.awaitResult(GUARD);
        }
    }

    @Test
    void aProgramThatCannotStartIsAFailure() {
        GuestBootException e = assertThrows(GuestBootException.class,
                () -> QemuProcess.start(List.of(dir.resolve("no-such-qemu").toString()), dir.resolve("c.log")));
        assertTrue(e.getMessage().startsWith("cannot start QEMU"), e.getMessage());
    }

    @Test
    void aSilentGuestTimesOut() throws Exception {
        try (QemuProcess q = QemuProcess.start(sh("echo booting; exec sleep 600"), dir.resolve("c.log"))) {
            GuestBootException e = assertThrows(GuestBootException.class, () -> q.awaitResult(Duration.ofMillis(300)));
            assertTrue(e.getMessage().startsWith("no result line from the guest within"), e.getMessage());
        }
    }

    @Test
    void closeEndsTheWholeProcessTree() throws Exception {
        QemuProcess q = QemuProcess.start(sh("sleep 600 & echo \"IRDMA-EMU-RESULT scenario=x status=ok child=$!\"; sleep 600"),
                dir.resolve("c.log"));
        ProcessHandle child;
        try {
            long pid = Long.parseLong(q.awaitResult(GUARD).field("child"));
            child = ProcessHandle.of(pid).orElseThrow();
            assertTrue(child.parent().map(ProcessHandle::pid).orElse(-1L) == q.pid(), "the shell's own child");
        } finally {
            q.close();
        }
        assertFalse(q.isAlive());
        child.onExit().get();
        assertFalse(child.isAlive());
    }
}
