package dev.irdmaemu.bridge.e810;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.irdmaemu.bridge.boot.HostedNode;
import dev.irdmaemu.bridge.boot.ScenarioOverlay;
import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.GuestResult;
import dev.irdmaemu.bridge.kit.MissingGuestKitException;
import dev.irdmaemu.bridge.kit.QemuProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code irdma-emu serve} with the kit's own QEMU 11.1.3 and Linux 7.3 (e810 flavour) started from a command line
 * written by hand around the arguments serve printed ({@value E810Serve#QEMU_ARGUMENTS}), as docs/e810.md shows:
 * two QEMU processes one after the other on one serve, each seeing ice probe a fresh function (the second then pings
 * the hosted node on the function's cable), nothing left on the model between them; and QEMU with guest RAM that cannot be shared, refused at start with the reason logged.
 */
class ServeQemuBootTest {
    private static final Logger LOG = LoggerFactory.getLogger(ServeQemuBootTest.class);
    private static final Duration RESULT_TIMEOUT = Duration.ofSeconds(300);

    private GuestKit kit;
    private Path sockets;
    private Path runDir;
    private E810Serve serve;

    @BeforeEach
    void start() throws Exception {
        try {
            kit = GuestKit.locate().e810();
        } catch (MissingGuestKitException e) {
            fail(e.getMessage());
        }
        sockets = Files.createTempDirectory("irdma-emu-serve");
        runDir = Path.of("target", "guest-boot", "serve").toAbsolutePath();
        serve = E810Serve.start(new E810Serve.Settings(1, sockets, runDir, 512, Duration.ofSeconds(20), true, true, null, false),
                line -> LOG.info("serve: {}", line));
    }

    @AfterEach
    void stop() throws Exception {
        if (serve != null) {
            serve.close();
            assertFalse(Files.exists(serve.devices().get(0).socketPath()), "the socket file is removed");
        }
        Files.deleteIfExists(sockets);
    }

    /** The kit's QEMU, TCG, serve's arguments, the kit's kernel and initramfs: what a user writes. */
    private List<String> commandLine(List<String> serveArguments, String... kernelArguments) {
        return commandLine(kit.initramfs(), serveArguments, kernelArguments);
    }

    private List<String> commandLine(Path initramfs, List<String> serveArguments, String... kernelArguments) {
        List<String> c = new ArrayList<>(kit.qemuCommand());
        c.addAll(List.of("-accel", "tcg", "-smp", "1"));
        c.addAll(serveArguments);
        c.addAll(List.of("-kernel", kit.kernel().toString(), "-initrd", initramfs.toString(),
                "-append", "console=ttyS0 loglevel=4 panic=-1 " + String.join(" ", kernelArguments),
                "-nographic", "-nodefaults", "-serial", "stdio", "-monitor", "none", "-no-reboot"));
        return c;
    }

    /**
     * docs/e810.md's plain QEMU command line (the block after "A plain QEMU command line"), with this run's
     * arguments file and the kit's folder in place of its placeholders.
     */
    private String readmeExample(Path arguments) throws Exception {
        String readme = Files.readString(Path.of("..", "docs", "e810.md"), StandardCharsets.UTF_8);
        int at = readme.indexOf("**A plain QEMU command line**");
        assertTrue(at > 0, "docs/e810.md has the example");
        int open = readme.indexOf("```\n", at) + 4;
        String block = readme.substring(open, readme.indexOf("```", open));
        assertTrue(block.contains("K=.cache/kit/current") && block.contains("target/serve/<date-time>/qemu-args.txt"),
                block);
        Path kitRoot = kit.kernel().getParent().getParent();
        return "set -e\n" + block.replace("K=.cache/kit/current", "K=" + kitRoot)
                .replace("target/serve/<date-time>/qemu-args.txt", arguments.toString());
    }

    @Test
    void twoQemuProcessesOneAfterTheOtherEachProbeAFreshFunction() throws Exception {
        List<String> printed = Files.readAllLines(serve.settings().runDir().resolve(E810Serve.QEMU_ARGUMENTS));
        assertEquals(serve.qemuArguments(), printed);
        // the second guest pings the hosted node on the E810's cable: the project's current scenarios laid over
        // the kit's initramfs, as boot does
        Path overlay = runDir.resolve("initrd-scenarios.img");
        ScenarioOverlay.write(kit.initramfs(), overlay);
        for (int boot = 1; boot <= 2; boot++) {
            Path console = runDir.resolve("console-" + boot + ".log");
            GuestResult r;
            // the first QEMU is docs/e810.md's example, run by bash as it stands
            List<String> command = boot == 1
                    ? List.of("bash", "-c", readmeExample(serve.settings().runDir().resolve(E810Serve.QEMU_ARGUMENTS)))
                    : commandLine(overlay, printed, "irdma_emu.scenario=ping", "irdma_emu.nic=e810");
            try (QemuProcess qemu = QemuProcess.start(command, console)) {
                r = qemu.awaitResult(RESULT_TIMEOUT);
                LOG.info("boot {}: {} after {} ms", boot, r, r.afterStart().toMillis());
            } // QEMU killed (SIGTERM) if it has not powered off yet
            String log = Files.readString(console, StandardCharsets.UTF_8);
            GuestResult result = r;
            assertTrue(result.ok(), () -> result + "; console in " + console);
            if (boot == 1) {
                assertEquals("loaded", result.field("ice"), result::toString);
                assertEquals("0000:01:00.0", result.field("e810"), "ice bound the function");
                assertTrue(log.contains("link/ether 02:00:5e:10:00:01"), "the netdev carries function 0's MAC");
            } else {
                assertEquals("02:00:5e:10:00:01", result.field("eth0_mac"), "the netdev carries function 0's MAC");
                assertEquals("0000:01:00.0", result.field("e810_bdf"), "ice bound the function again");
                assertEquals("3", result.field("ping4_replies"), "the hosted node answers 192.0.2.1");
                assertEquals("3", result.field("ping6_replies"), "and 2001:db8::1");
            }
            assertFalse(log.contains("BUG:") || log.contains("Oops"), "no kernel oops");
            assertTrue(serve.adapter().server(0).awaitClientsEnded(boot, Duration.ofSeconds(30)));
            E810Serve.ModelCounts left = serve.counts(0);
            assertTrue(left.empty(), "nothing left on the model after QEMU " + boot + ": " + left);
        }
        assertEquals(2, serve.adapter().server(0).clientsAccepted());
        List<String> sessions = Files.readAllLines(serve.sessionsLog());
        assertEquals(2, sessions.stream().filter(l -> l.contains(" pf0 connect ")).count(), sessions::toString);
        assertEquals(2, sessions.stream().filter(l -> l.contains(" pf0 disconnect ")).count(), sessions::toString);
        assertTrue(sessions.stream().filter(l -> l.contains(" pf0 device_reset ")).count() >= 2,
                "QEMU's machine reset at each start: " + sessions);
        assertTrue(sessions.stream().filter(l -> l.contains(" pf0 power_on ")).allMatch(
                l -> l.contains("qps=0 cqs=0 vsis=0 tx_queues=0")), sessions::toString);
        assertTrue(sessions.stream().anyMatch(l -> l.contains(" node up on pf0's cable: mac=02:00:00:00:00:01"
                + " 192.0.2.1/24 2001:db8::1/64")), sessions::toString);
        serve.close(); // flushes and closes the pcap and the traces
        assertTrue(Files.size(serve.settings().runDir().resolve(E810Serve.PCAP)) > 24 + 12 * 60,
                "the echoes are in the pcap");
        String trace = Files.readString(serve.traceFile(), StandardCharsets.UTF_8);
        assertTrue(trace.contains("{\"pf\":0,\"t\":") && trace.contains("\"op\":\"download_pkg\""),
                "the trace holds ice's admin queue commands of both boots");
    }

    /**
     * A machine reset while ice is probing (QMP system_reset: QEMU sends DEVICE_RESET, unmaps and maps the guest's
     * RAM again, SeaBIOS and Linux boot again) is served on the same connection: the rebooted guest's ice probes
     * the function again.
     */
    @Test
    void aGuestRebootIsServedWithoutRestartingServe() throws Exception {
        Path qmp = sockets.resolve("qmp.sock");
        List<String> c = new ArrayList<>(commandLine(serve.qemuArguments(), "irdma_emu.scenario=e810-probe",
                "irdma_emu.rdma=none", "irdma_emu.e810=required"));
        c.remove("-no-reboot");
        c.addAll(List.of("-qmp", "unix:" + qmp + ",server=on,wait=off"));
        Path console = runDir.resolve("console-reboot.log");
        GuestResult r;
        try (QemuProcess qemu = QemuProcess.start(c, console)) {
            long end = System.nanoTime() + RESULT_TIMEOUT.toNanos();
            while (!Files.readString(console, StandardCharsets.UTF_8).contains("IRDMA-EMU-E810 present")) {
                assertTrue(System.nanoTime() < end && qemu.isAlive(), "the guest reaches ice's probe");
                Thread.sleep(100);
            }
            qmp(qmp, "{\"execute\":\"system_reset\"}");
            LOG.info("system_reset sent while ice probes");
            r = qemu.awaitResult(RESULT_TIMEOUT); // the first result line comes from the rebooted guest
        }
        String log = Files.readString(console, StandardCharsets.UTF_8);
        GuestResult result = r;
        assertTrue(result.ok(), () -> result + "; console in " + console);
        assertEquals("loaded", result.field("ice"), result::toString);
        assertEquals(2, log.split("irdma-emu guest up", -1).length - 1, "Linux booted twice in one QEMU");
        assertTrue(serve.adapter().server(0).awaitClientsEnded(1, Duration.ofSeconds(30)));
        assertEquals(1, serve.adapter().server(0).clientsAccepted(), "one QEMU, one connection");
        List<String> sessions = Files.readAllLines(serve.sessionsLog());
        assertTrue(sessions.stream().filter(l -> l.contains(" pf0 device_reset client=1 ")).count() >= 2,
                "QEMU's start and the reboot: " + sessions);
        assertTrue(serve.counts(0).empty(), "nothing left after QEMU ended");
    }

    /** One QMP command on QEMU's monitor socket (after the capabilities handshake); answers the reply line. */
    private static String qmp(Path socket, String command) throws Exception {
        try (java.nio.channels.SocketChannel ch = java.nio.channels.SocketChannel.open(
                java.net.UnixDomainSocketAddress.of(socket))) {
            java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(
                    java.nio.channels.Channels.newInputStream(ch), StandardCharsets.UTF_8));
            java.io.OutputStream out = java.nio.channels.Channels.newOutputStream(ch);
            in.readLine(); // the greeting
            out.write("{\"execute\":\"qmp_capabilities\"}\n".getBytes(StandardCharsets.UTF_8));
            String reply = in.readLine();
            assertTrue(reply.contains("\"return\""), reply);
            out.write((command + "\n").getBytes(StandardCharsets.UTF_8));
            String line;
            do {
                line = in.readLine(); // events may come first
            } while (line != null && !line.contains("\"return\"") && !line.contains("\"error\""));
            assertTrue(line != null && line.contains("\"return\""), String.valueOf(line));
            return line;
        }
    }

    /** The guest's stock irdma.ko (iWARP) runs rping -c against the node's rping server, which listens again. */
    @Test
    void theGuestsIrdmaRunsRpingAgainstTheNodesServer() throws Exception {
        serve.close();
        serve = E810Serve.start(new E810Serve.Settings(1, sockets, runDir.resolve("rping"), 512,
                Duration.ofSeconds(20), true, true, null, true), line -> LOG.info("serve: {}", line));
        Path overlay = runDir.resolve("initrd-rping-scenarios.img");
        ScenarioOverlay.write(kit.initramfs(), overlay);
        Path console = runDir.resolve("console-rping.log");
        GuestResult r;
        try (QemuProcess qemu = QemuProcess.start(commandLine(overlay, serve.qemuArguments(),
                "irdma_emu.scenario=rping-client", "irdma_emu.nic=e810"), console)) {
            r = qemu.awaitResult(RESULT_TIMEOUT);
        }
        GuestResult result = r;
        assertTrue(result.ok(), () -> result + "; console in " + console);
        assertEquals("iWARP", result.field("transport"), result::toString);
        assertEquals("10", result.field("rping_pings"), result::toString);
        assertTrue(serve.adapter().server(0).awaitClientsEnded(1, Duration.ofSeconds(30)));
        HostedNode node = serve.node();
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        List<String> sessions = Files.readAllLines(serve.sessionsLog());
        while (sessions.stream().noneMatch(l -> l.contains(" node rping client 1: rping-server ok"))
                && System.nanoTime() < end) {
            Thread.sleep(200);
            sessions = Files.readAllLines(serve.sessionsLog());
        }
        List<String> lines = sessions;
        assertTrue(lines.stream().anyMatch(l -> l.contains(" node rping client 1: rping-server ok")
                && l.contains("pings=10")), lines::toString);
        assertEquals(1, (int) node.loop().call(() -> node.cm.listenerCount(), Duration.ofSeconds(10)),
                "the node listens again for the next client");
        assertTrue(serve.counts(0).empty(), () -> "nothing left on the model: " + lines);
    }

    @Test
    void aVirtioNetGuestOnTheVhostUserSocketPingsItsOwnNode() throws Exception {
        serve.close();
        Path vhost = sockets.resolve("vhost.sock");
        serve = E810Serve.start(new E810Serve.Settings(1, sockets, runDir.resolve("vhost"), 512, Duration.ofSeconds(20),
                false, false, vhost, false), line -> LOG.info("serve: {}", line));
        List<String> printed = serve.qemuArguments();
        assertTrue(printed.contains("vhost-user,id=net0,chardev=chr0"), printed::toString);
        assertTrue(printed.contains("socket,id=chr0,path=" + vhost.toAbsolutePath()), printed::toString);
        // the kit's default flavour (Linux 6.1, siw): the guest's virtio-net NIC pings the node behind vhost-user
        GuestKit plain = GuestKit.locate();
        Path overlay = runDir.resolve("initrd-plain-scenarios.img");
        ScenarioOverlay.write(plain.initramfs(), overlay);
        List<String> c = new ArrayList<>(plain.qemuCommand());
        c.addAll(List.of("-accel", "tcg", "-smp", "1"));
        c.addAll(printed);
        c.addAll(List.of("-kernel", plain.kernel().toString(), "-initrd", overlay.toString(), "-append",
                "console=ttyS0 loglevel=4 panic=-1 irdma_emu.scenario=ping", "-nographic", "-nodefaults", "-serial",
                "stdio", "-monitor", "none", "-no-reboot"));
        Path console = runDir.resolve("console-vhost.log");
        GuestResult r;
        try (QemuProcess qemu = QemuProcess.start(c, console)) {
            r = qemu.awaitResult(RESULT_TIMEOUT);
        }
        GuestResult result = r;
        assertTrue(result.ok(), () -> result + "; console in " + console);
        assertEquals("3", result.field("ping4_replies"), result::toString);
        assertEquals("02:00:00:00:00:01", result.field("arp_mac"), "the vhost-user NIC's own node answered");
        serve.close();
        assertFalse(Files.exists(vhost), "the vhost-user socket is removed");
    }

    /** QEMU that exits at realize: its output, and the session log's lines. */
    private String refusedAtStart(List<String> memoryArguments, String name) throws Exception {
        List<String> args = new ArrayList<>(memoryArguments);
        List<String> printed = serve.qemuArguments();
        args.addAll(printed.subList(printed.indexOf("-device"), printed.size())); // the root port and the device
        Path console = runDir.resolve(name + ".log");
        try (QemuProcess qemu = QemuProcess.start(commandLine(args, "irdma_emu.scenario=e810-probe"), console)) {
            OptionalInt exit = qemu.awaitExit(Duration.ofSeconds(60));
            assertTrue(exit.isPresent() && exit.getAsInt() != 0, "QEMU ends at start: " + exit);
        }
        assertTrue(serve.adapter().server(0).awaitClientsEnded(1, Duration.ofSeconds(20)));
        return Files.readString(console, StandardCharsets.UTF_8);
    }

    @Test
    void qemuWithoutSharedGuestRamIsRefusedAtStartWithTheReason() throws Exception {
        // no memory backend: QEMU's RAM is anonymous memory and DMA_MAP brings no descriptor
        String out = refusedAtStart(List.of("-machine", "q35", "-m", "512M"), "anonymous-ram");
        assertTrue(out.contains("vfio-user-pci") || out.contains("vfio"), out);
        List<String> sessions = Files.readAllLines(serve.sessionsLog());
        assertTrue(sessions.stream().anyMatch(l -> l.contains(" pf0 not_shared client=1 guest RAM")
                && l.contains("came without a file descriptor")), sessions::toString);
        assertEquals(0, serve.adapter().server(0).dma().readable().regions());
    }

    @Test
    void qemuWithAPrivateMemoryBackendIsRefusedAtStartWithTheReason() throws Exception {
        // a memfd with share=off: QEMU sends the descriptor but maps it privately
        String out = refusedAtStart(List.of("-m", "512M", "-object", "memory-backend-memfd,id=mem,size=512M,share=off",
                "-machine", "q35,memory-backend=mem"), "private-ram");
        assertTrue(out.contains("vfio"), out);
        List<String> sessions = Files.readAllLines(serve.sessionsLog());
        assertTrue(sessions.stream().anyMatch(l -> l.contains(" pf0 not_shared client=1 guest RAM")
                && l.contains("is mapped privately by QEMU") && l.contains("share=on")), sessions::toString);
    }
}
