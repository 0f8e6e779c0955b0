package dev.irdmaemu.bridge.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Boots the provisioned guest kit under QEMU (TCG) with the {@code smoke} scenario: Debian 12's kernel loads its
 * virtio and RDMA modules and the separately built siw.ko, a siw device comes up on a dummy netdev, the rdma tool
 * and libibverbs list it, and rping completes a verified loopback exchange over it. Without a kit this fails
 * (never skips) with the command that provisions one; {@code ./irdma-emu test} provisions it before the suite.
 */
class GuestBootTest {
    private static final Logger LOG = LoggerFactory.getLogger(GuestBootTest.class);
    /** A guard against a hung guest, not a timing assertion: the boot takes about 10 s under TCG. */
    private static final Duration RESULT_TIMEOUT = Duration.ofSeconds(120);

    private static GuestKit kit() {
        try {
            return GuestKit.locate();
        } catch (MissingGuestKitException e) {
            return fail(e.getMessage());
        }
    }

    @Test
    void theSmokeScenarioBringsUpSiwAndRpingWorksOverIt() throws Exception {
        GuestKit kit = kit();
        Path console = Path.of("target", "guest-boot", "smoke-console.log");
        GuestLaunch launch = kit.launch().scenario("smoke").memoryMiB(512);
        GuestResult result;
        OptionalInt exit;
        try (QemuProcess qemu = QemuProcess.start(launch, console)) {
            result = qemu.awaitResult(RESULT_TIMEOUT);
            // the guest powers off after its result line: QEMU ends by itself
            exit = qemu.awaitExit(Duration.ofSeconds(30));
        }
        LOG.info("smoke: result after {} ms: {}", result.afterStart().toMillis(), result);
        String log = Files.readString(console, StandardCharsets.UTF_8);
        assertEquals("smoke", result.scenario());
        assertTrue(result.ok(), () -> "the guest reported " + result + "; console in " + console.toAbsolutePath());
        assertEquals(kit.kernelRelease(), result.field("kernel"), "the kit's kernel booted");
        assertEquals(kit.recipe(), result.field("recipe"), "the kit's own initramfs booted");
        assertEquals("siw0", result.field("siw"), "rdma link add made siw0");
        assertEquals("siw0", result.field("ibv_devices"), "libibverbs (the siw provider) lists siw0");
        assertEquals("iWARP", result.field("transport"));
        assertEquals("ACTIVE", result.field("link_state"));
        assertEquals("PORT_ACTIVE", result.field("port_state"));
        assertEquals("siw.ko", result.field("siw_module"), "the stock siw build");
        assertEquals("ok", result.field("rping"));
        assertEquals("3", result.field("rping_pings"), "rping verified 3 pings");
        assertEquals(kit.property("modules").split(" ").length, Integer.parseInt(result.field("modules")),
                "init loaded every module of the kit");
        assertTrue(log.contains("link siw0/1 state ACTIVE physical_state LINK_UP netdev dummy0"),
                "rdma link show, as the guest printed it");
        assertTrue(exit.isPresent() && exit.getAsInt() == 0, () -> "QEMU ended by the guest's poweroff: " + exit);
    }

    /**
     * One boot for two things: the peer-to-peer siw build loads (the modules step passes with it), and a scenario
     * the initramfs lacks is a failed result naming its step, not a hang.
     */
    @Test
    void thePeerToPeerSiwLoadsAndAnUnknownScenarioIsAFailedResult() throws GuestBootException, InterruptedException, IOException {
        GuestKit kit = kit();
        Path console = Path.of("target", "guest-boot", "unknown-console.log");
        GuestResult result;
        try (QemuProcess qemu = QemuProcess.start(kit.launch().scenario("no-such-scenario").siw(GuestLaunch.Siw.PEER_TO_PEER),
                console)) {
            result = qemu.awaitResult(RESULT_TIMEOUT);
        }
        assertEquals("siw-p2p.ko", result.field("siw_module"));
        assertEquals("no-such-scenario", result.scenario());
        assertEquals("fail", result.status());
        assertEquals("scenario", result.field("step"));
        assertEquals("unknown_scenario_no-such-scenario", result.field("reason"));
        assertTrue(Files.readString(console, StandardCharsets.UTF_8).contains("FAILED at step scenario"));
    }
}
