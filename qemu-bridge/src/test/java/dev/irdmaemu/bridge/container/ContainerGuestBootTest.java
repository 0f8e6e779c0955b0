package dev.irdmaemu.bridge.container;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.GuestLaunch;
import dev.irdmaemu.bridge.kit.QemuProcess;
import dev.irdmaemu.bridge.kit.GuestResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.slf4j.LoggerFactory;

/**
 * The smoke scenario GuestBootTest boots directly (siw on a dummy netdev, rping's verified loopback exchange),
 * booted through a guest container instead: the same result, with the kit inside the local image.
 */
class ContainerGuestBootTest {
    /** Testcontainers' per-image loggers ("tc.IMAGE") and the guest console, as logback receives them. */
    private static final ListAppender<ILoggingEvent> LOGS = new ListAppender<>();
    private static final String[] WATCHED = {"tc", QemuProcess.CONSOLE_LOGGER};

    @BeforeAll
    static void watchTheLogs() {
        // before the extension starts the first container (it runs before each method)
        LOGS.start();
        for (String name : WATCHED) {
            Logger logger = (Logger) LoggerFactory.getLogger(name);
            logger.setLevel(Level.DEBUG);
            logger.addAppender(LOGS);
            // the console's hundreds of DEBUG lines stay out of the build output (they are in the console log)
            logger.setAdditive(!name.equals(QemuProcess.CONSOLE_LOGGER));
        }
    }

    @AfterAll
    static void stopWatching() {
        for (String name : WATCHED) {
            Logger logger = (Logger) LoggerFactory.getLogger(name);
            logger.detachAppender(LOGS);
            logger.setLevel(null);
            logger.setAdditive(true);
        }
    }

    private static boolean logged(String loggerPrefix, String text) {
        synchronized (LOGS) {
            return LOGS.list.stream().anyMatch(e -> e.getLoggerName().startsWith(loggerPrefix) && e.getFormattedMessage().contains(text));
        }
    }
    @GuestTest(scenario = "smoke")
    void theSmokeScenarioPassesInAContainer(GuestResult result, QemuGuestContainer guest) throws Exception {
        GuestKit kit = GuestKit.locate();
        assertEquals("smoke", result.scenario());
        assertTrue(result.ok(), () -> "the guest reported " + result + "; console in " + guest.consoleLog().toAbsolutePath());
        assertEquals(kit.kernelRelease(), result.field("kernel"), "the kit's kernel booted");
        assertEquals(kit.recipe(), result.field("recipe"), "the image's initramfs is the kit's");
        assertEquals("siw0", result.field("siw"));
        assertEquals("siw0", result.field("ibv_devices"));
        assertEquals("iWARP", result.field("transport"));
        assertEquals("PORT_ACTIVE", result.field("port_state"));
        assertEquals("siw.ko", result.field("siw_module"));
        assertEquals("ok", result.field("rping"));
        assertEquals("3", result.field("rping_pings"), "rping verified 3 pings");
        String console = Files.readString(guest.consoleLog(), StandardCharsets.UTF_8);
        Path initramfs = guest.launch().initramfs();
        assertTrue(guest.sharedFolders().contains(initramfs.getParent()) && initramfs.endsWith(GuestExtension.INITRAMFS),
                "the guest boots this build's scenarios laid over the kit's initramfs, from a shared folder: " + initramfs);
        assertTrue(console.lines().findFirst().orElse("").contains(" -initrd " + initramfs + " "),
                "QEMU in the container was given that initramfs");
        assertTrue(console.contains("link siw0/1 state ACTIVE physical_state LINK_UP netdev dummy0"),
                "rdma link show, as the guest printed it");
        assertTrue(console.contains(GuestResult.MARKER + " scenario=smoke status=ok"), "the console log holds the result line");
        // slf4j-api 2 with logback 1.5: Testcontainers' own lines and the console both reach the binding
        assertTrue(logged("tc.", "Creating container for image: " + guest.getDockerImageName()), "Testcontainers' log reached logback");
        assertTrue(logged(QemuProcess.CONSOLE_LOGGER, "link siw0/1 state ACTIVE"), "the console streamed to SLF4J");
        // the guest powers off after its result line: QEMU, and with it the container, ends by itself
        OptionalInt exit = guest.awaitExit(Duration.ofSeconds(30));
        assertEquals(OptionalInt.of(0), exit, "QEMU ended by the guest's poweroff");
    }

    /**
     * The same scenario with a virtio-net NIC whose vhost-user backend runs here, in the test's JVM: QEMU in the
     * container reaches it through the bind-mounted socket folder and shares the guest's memory with it.
     */
    @GuestTest(scenario = "smoke", nic = true, mac = "02:00:00:00:00:02")
    void aGuestWithANicConnectsToTheBackendThroughTheBoundSocket(GuestResult result, VhostPortModel model) {
        assertTrue(result.ok(), result::toString);
        assertEquals(1, model.backend().connectionsAccepted(), "QEMU connected to the backend's socket once");
        assertTrue(model.port().linkUp(), "the guest's virtio-net driver started both rings");
    }

    /**
     * The extension is generic over the scenario and the siw build: a scenario the initramfs lacks comes back as a
     * failed result naming its step (the test decides what a result means), here with the peer-to-peer siw.
     */
    @GuestTest(scenario = "no-such-scenario", siw = GuestLaunch.Siw.PEER_TO_PEER)
    void anUnknownScenarioIsAFailedResultNotAHang(GuestResult result) {
        assertEquals("no-such-scenario", result.scenario());
        assertEquals("fail", result.status());
        assertEquals("scenario", result.field("step"));
        assertEquals("unknown_scenario_no-such-scenario", result.field("reason"));
        assertEquals("siw-p2p.ko", result.field("siw_module"));
    }
}
