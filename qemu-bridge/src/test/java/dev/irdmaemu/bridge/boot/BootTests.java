package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.bridge.run.BootRun;
import dev.irdmaemu.bridge.run.BootReport;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.irdmaemu.bridge.cli.Main;
import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.MissingGuestKitException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the end-to-end boot tests share: the kit, a run of a scenario, the decoded capture, the leftovers check. */
final class BootTests {
    private static final Logger LOG = LoggerFactory.getLogger(BootTests.class);
    /** A guard against a hung guest, not a timing assertion: a boot takes 10 to 20 s under TCG. */
    static final Duration TIMEOUT = Duration.ofSeconds(180);

    private BootTests() {
    }

    /** The provisioned kit; without one the test fails (never skips) with the command that provisions it. */
    static GuestKit kit() {
        try {
            return GuestKit.locate();
        } catch (MissingGuestKitException e) {
            return fail(e.getMessage());
        }
    }

    static Path runDir(String name) {
        return BootOptions.newRunDir(Path.of("target", "boot-tests", name));
    }

    /** Boots {@code scenario} as {@code irdma-emu boot --scenario S} does; logs the summary. */
    static BootReport boot(BootScenario scenario, String name) throws InterruptedException {
        return boot(scenario, name, BootOptions.Nic.VIRTIO);
    }

    /** As {@link #boot(BootScenario, String)}, the guest on {@code nic}. */
    static BootReport boot(BootScenario scenario, String name, BootOptions.Nic nic) throws InterruptedException {
        BootOptions o = BootOptions.of(scenario, Path.of("target", "boot-tests", name)).withTimeout(TIMEOUT)
                .withNic(nic);
        BootRun run = new BootRun(kit(), o, line -> LOG.info("boot: {}", line));
        BootReport r = run.run();
        r.summary().forEach(l -> LOG.info("{}", l));
        assertFalse(run.temporaryFolder() != null && run.temporaryFolder().toFile().exists(),
                "the socket and the temporary initramfs are removed");
        assertNoQemuLeft(run.temporaryFolder());
        return r;
    }

    /** No process is left whose command line names the run's temporary folder (QEMU's socket and initramfs). */
    static void assertNoQemuLeft(Path temporaryFolder) {
        if (temporaryFolder == null) {
            return;
        }
        String mark = temporaryFolder.toString();
        List<String> left = ProcessHandle.allProcesses().filter(ProcessHandle::isAlive)
                .map(p -> p.info().commandLine().orElse(""))
                .filter(c -> c.contains(mark)).toList();
        assertTrue(left.isEmpty(), "processes left behind: " + left);
    }

    /** {@code irdma-emu decode FILE}'s lines (the same code as the command), which must succeed. */
    static List<String> decode(Path pcap) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute("decode", pcap.toString());
        assertEquals(0, code, () -> "irdma-emu decode " + pcap + " failed: " + err);
        return out.toString().lines().toList();
    }
}
