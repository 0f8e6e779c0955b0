package dev.irdmaemu.bridge.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.boot.BootScenario;
import dev.irdmaemu.bridge.run.BootReport.Status;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code boot} prints when QEMU dies before the guest's result line (issue 29: the console's last lines). */
class BootReportTest {

    private static BootReport failed(String failure) {
        Path dir = Path.of("run");
        return new BootReport(BootScenario.PING, null, Status.ERROR, null, failure, null, null, null, List.of(), dir,
                dir.resolve("console.log"), dir.resolve("capture.pcap"), dir.resolve("trace.jsonl"), null, null,
                Duration.ofSeconds(3), null);
    }

    @Test
    void theConsolesLastLinesFollowTheStatusLine() {
        BootReport r = failed("QEMU's console closed (exit code 137) before a result line; the console's last lines:\n"
                + "  [    1.234] ice 0000:00:02.0: probe\n  [    2.345] Kernel panic - not syncing\n");
        List<String> summary = r.summary();
        int status = summary.indexOf("status    ERROR: QEMU's console closed (exit code 137) before a result line; "
                + "the console's last lines:");
        assertTrue(status >= 0, summary.toString());
        assertEquals("          | [    1.234] ice 0000:00:02.0: probe", summary.get(status + 1));
        assertEquals("          | [    2.345] Kernel panic - not syncing", summary.get(status + 2));
        assertEquals("guest     no result line", summary.get(status + 3));
    }

    @Test
    void aOneLineFailureStaysOneLine() {
        BootReport r = failed("the model failed: boom");
        assertEquals("the model failed: boom", r.failureHeadline());
        assertEquals(1, r.summary().stream().filter(l -> l.startsWith("status") || l.startsWith("          |")).count());
    }

    @Test
    void theDefaultScenarioOnTheE810SaysIrdmaNotSiw() {
        String line = failed("x").summary().get(0);
        assertEquals("scenario  ping (E810: ice.ko, irdma.ko): " + BootScenario.PING.description(), line);
        BootReport e810 = new BootReport(BootScenario.RPING_SERVER, null, Status.OK, null, "", null, null, null,
                List.of(), Path.of("r"), Path.of("r/c"), Path.of("r/p"), Path.of("r/t"), null, null, Duration.ZERO, null);
        String s = e810.summary().get(0);
        assertTrue(s.startsWith("scenario  rping-server (E810: ice.ko, irdma.ko): the guest runs `rping -s -C 10 -V` "
                + "on the E810's irdma (iWARP)"), s);
        assertTrue(!s.contains("siw"), s);
        assertTrue(BootScenario.RPING_SERVER.description().contains("stock siw"), "the siw run keeps its words");
    }
}
