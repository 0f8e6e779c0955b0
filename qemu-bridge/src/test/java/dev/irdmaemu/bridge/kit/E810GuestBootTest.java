package dev.irdmaemu.bridge.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kit's e810 flavour under QEMU (TCG): Linux 7.3 from Debian trixie-backports boots its own initramfs on q35,
 * the {@code e810-probe} scenario loads the stock ice.ko and irdma.ko with modprobe (their module init runs; with
 * no E810 on the bus they bind nothing), finds the DDP package where ice asks for it, runs devlink, rdma and
 * ibv_devinfo, says there is no E810 and powers off. And the kit's QEMU accepts the vfio-user-pci line
 * {@link GuestLaunch} writes and connects to the socket it names. Without the flavour this fails (never skips) with
 * the command that provisions it.
 */
class E810GuestBootTest {
    private static final Logger LOG = LoggerFactory.getLogger(E810GuestBootTest.class);
    /** A guard against a hung guest, not a timing assertion: the boot to the result takes about 20 s under TCG. */
    private static final Duration RESULT_TIMEOUT = Duration.ofSeconds(180);

    @TempDir
    Path tmp;

    private static GuestKit e810Kit() {
        try {
            return GuestKit.locate().e810();
        } catch (MissingGuestKitException e) {
            return fail(e.getMessage());
        }
    }

    @Test
    void linux73LoadsIceAndIrdmaFindsTheDdpPackageAndReportsNoE810() throws Exception {
        GuestKit kit = e810Kit();
        Path console = Path.of("target", "guest-boot", "e810-probe-console.log");
        GuestLaunch launch = kit.launch().machine(GuestLaunch.Machine.Q35).scenario("e810-probe").memoryMiB(512);
        GuestResult result;
        OptionalInt exit;
        try (QemuProcess qemu = QemuProcess.start(launch, console)) {
            result = qemu.awaitResult(RESULT_TIMEOUT);
            exit = qemu.awaitExit(Duration.ofSeconds(30));
        }
        String log = Files.readString(console, StandardCharsets.UTF_8);
        LOG.info("e810-probe: result after {} ms (guest uptime {} ms, modules loaded at {} ms; modprobe ice {} ms, irdma {} ms): {}",
                result.afterStart().toMillis(), result.field("uptime_ms"), result.field("modules_loaded_ms"),
                result.field("ice_ms"), result.field("irdma_ms"), result);
        assertEquals("e810-probe", result.scenario());
        assertTrue(result.ok(), () -> "the guest reported " + result + "; console in " + console.toAbsolutePath());
        assertEquals(kit.kernelRelease(), result.field("kernel"), "the flavour's Linux 7.3 booted");
        assertTrue(result.field("kernel").startsWith("7.3."), result.field("kernel"));
        assertEquals(kit.recipe(), result.field("recipe"), "the kit's own e810 initramfs booted");
        assertEquals("e810", result.field("flavour"));
        assertEquals(kit.property("e810.modules.boot").split(" ").length, Integer.parseInt(result.field("modules")),
                "init loaded the flavour's boot modules");
        assertEquals("loaded", result.field("ice"), "modprobe ice");
        assertEquals("loaded", result.field("irdma"), "modprobe irdma");
        assertEquals("iwarp", result.field("rdma_mode"));
        // ice_main.c ICE_DDP_PKG_FILE: the link ice requests, naming the package the kit took from firmware-intel-misc
        assertEquals("intel/ice/ddp/ice.pkg", result.field("ddp"));
        assertEquals(kit.property("e810.firmware.ddp.link"), result.field("ddp"));
        String ddp = kit.property("e810.firmware.ddp");
        assertEquals(ddp.substring(ddp.lastIndexOf('/') + 1), result.field("ddp_target"));
        assertTrue(result.field("ddp_target").matches("ice-1\\.3\\.[0-9.]+\\.pkg(\\.xz)?"), result.field("ddp_target"));
        assertEquals(kit.property("e810.firmware.ddp.size"), result.field("ddp_size"), "the whole package is there");
        assertEquals("ok", result.field("devlink"), "devlink dev show ran");
        assertEquals("ok", result.field("rdma"), "rdma link show ran");
        assertEquals("0", result.field("rdma_links"), "no E810, no irdma device");
        assertEquals("none", result.field("e810"));
        assertTrue(log.contains("IRDMA-EMU-E810 none"), "the no-E810 marker");
        assertTrue(log.contains("ice: Intel(R) Ethernet Connection E800 Series Linux Driver"),
                "ice's module init ran (ice_module_init prints its summary)");
        for (String block : List.of("pci", "dmesg-ice", "ip-link", "devlink", "dmesg-irdma", "rdma-link", "ibv_devinfo")) {
            assertTrue(log.contains("IRDMA-EMU-BEGIN " + block) && log.contains("IRDMA-EMU-END " + block), "block " + block);
        }
        String pci = between(log, "IRDMA-EMU-BEGIN pci", "IRDMA-EMU-END pci");
        assertTrue(pci.contains("[0600]: [8086:29c0]"), () -> "q35's host bridge (8086:29c0) listed:\n" + pci);
        assertFalse(pci.contains("[8086:159"), "no E810 function");
        assertTrue(exit.isPresent() && exit.getAsInt() == 0, () -> "QEMU ended by the guest's poweroff: " + exit);
    }

    /**
     * A guest told that it needs an E810 ({@code irdma_emu.e810=required}) and has none fails at the e810 step, says
     * why, and powers off: no hang. With {@code irdma_emu.rdma=none} irdma is not loaded.
     */
    @Test
    void aGuestThatRequiresAnE810AndHasNoneFailsAtThatStepAndPowersOff() throws Exception {
        GuestKit kit = e810Kit();
        Path console = Path.of("target", "guest-boot", "e810-required-console.log");
        GuestLaunch launch = kit.launch().scenario("e810-probe").memoryMiB(512)
                .kernelArgument("irdma_emu.e810=required").kernelArgument("irdma_emu.rdma=none");
        GuestResult result;
        OptionalInt exit;
        try (QemuProcess qemu = QemuProcess.start(launch, console)) {
            result = qemu.awaitResult(RESULT_TIMEOUT);
            exit = qemu.awaitExit(Duration.ofSeconds(30));
        }
        assertEquals("e810-probe", result.scenario());
        assertFalse(result.ok(), result::toString);
        assertEquals("e810", result.field("step"));
        assertTrue(result.field("reason").startsWith("no_E810_function"), result::toString);
        assertEquals("none", result.field("e810"));
        assertEquals("loaded", result.field("ice"), "ice loaded before the verdict");
        assertEquals("", result.field("irdma"), "the run ended before irdma");
        assertTrue(Files.readString(console, StandardCharsets.UTF_8).contains("IRDMA-EMU-E810 none"));
        assertTrue(exit.isPresent() && exit.getAsInt() == 0, () -> "QEMU ended by the guest's poweroff: " + exit);
    }

    /**
     * QEMU 11.1.3 takes the vfio-user-pci device line GuestLaunch writes (q35, memfd backend, root port, the JSON
     * device with its socket object) and connects to the socket: its first message is VERSION (command 1), a
     * request, with the capabilities JSON. The test's server then hangs up, so QEMU fails to realize the device
     * and exits: it must not keep running.
     */
    @Test
    void theKitsQemuTakesTheVfioUserLineAndSendsVersionToTheSocket() throws Exception {
        GuestKit kit = e810Kit();
        Path socket = tmp.resolve("e810.sock");
        Path console = Path.of("target", "guest-boot", "e810-vfio-user-connect-console.log");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            GuestLaunch launch = kit.launch().scenario("e810-probe").memoryMiB(256)
                    .vfioUser(VfioUserDevice.socket(socket).id("e810").messageTimeout(Duration.ofSeconds(5)).build());
            try (QemuProcess qemu = QemuProcess.start(launch, console)) {
                CompletableFuture<SocketChannel> accepted = CompletableFuture.supplyAsync(() -> {
                    try {
                        return server.accept();
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                });
                ByteBuffer header = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
                byte[] body;
                try (SocketChannel client = accepted.get(60, TimeUnit.SECONDS)) {
                    readFully(client, header);
                    int size = header.getInt(4);
                    assertTrue(size > 16 && size < 4096, "VERSION's size: " + size);
                    ByteBuffer rest = ByteBuffer.allocate(size - 16);
                    readFully(client, rest);
                    body = rest.array();
                }
                assertEquals(1, header.getShort(2), "the first message is VERSION");
                assertEquals(0, header.getInt(8) & 0xf, "a request");
                String json = new String(body, 4, body.length - 4, StandardCharsets.US_ASCII);
                assertTrue(json.contains("\"capabilities\""), json);
                OptionalInt exit = qemu.awaitExit(Duration.ofSeconds(60));
                assertTrue(exit.isPresent(), "QEMU ends when its vfio-user server hangs up during realize");
                assertTrue(exit.getAsInt() != 0, "a failed realize is an error exit");
            }
        }
        String log = Files.readString(console, StandardCharsets.UTF_8);
        assertFalse(log.contains("Property") && log.contains("not found"), () -> "QEMU refused an option:\n" + log);
        assertTrue(log.contains("vfio-user:" + socket), () -> "QEMU's error is the vfio-user connection's:\n" + log);
    }

    private static void readFully(SocketChannel c, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (c.read(b) < 0) {
                throw new IOException("QEMU closed the socket after " + b.position() + " bytes");
            }
        }
    }

    private static String between(String log, String from, String to) {
        int a = log.indexOf(from);
        int b = log.indexOf(to, Math.max(a, 0));
        return a < 0 || b < 0 ? "" : log.substring(a, b);
    }
}
