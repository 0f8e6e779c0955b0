package dev.irdmaemu.bridge.vfiouser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.irdmaemu.bridge.boot.ModelLoop;
import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.MissingGuestKitException;
import dev.irdmaemu.fw.sim.SimScheduler;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.newsclub.net.unix.AFUNIXSocket;
import org.newsclub.net.unix.AFUNIXSocketAddress;
import org.slf4j.LoggerFactory;

/**
 * The kit's QEMU 11.1.3 realizes a {@code vfio-user-pci} device served by {@link VfioUserServer} (the test
 * function on a model loop), with no guest kernel: q35, a shared memfd backend, the device behind a
 * pcie-root-port, QMP on a UNIX socket (vfio-user-facts.md §3); SeaBIOS runs, enumerates the function and finds
 * nothing to boot. The server must see the realize sequence,
 * QEMU must list 8086:1592 behind the root port with our BAR sizes, {@code system_reset} must reach the device as
 * DEVICE_RESET, and after {@code quit} the socket must serve the next client. Without a kit this fails (never
 * skips) with the command that provisions one; {@code ./irdma-emu test} provisions it before the suite.
 */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class VfioUserQemuTest {
    private static final Duration GUARD = Duration.ofSeconds(60);

    private static GuestKit kit() {
        try {
            return GuestKit.locate();
        } catch (MissingGuestKitException e) {
            return fail(e.getMessage());
        }
    }

    @Test
    void qemuRealizesTheTestFunctionResetsItAndTheSocketServesTheNextClient() throws Exception {
        TestFunction device = new TestFunction();
        try (ModelLoop loop = new ModelLoop("vfio-user-qemu", new SimScheduler(1), System::nanoTime, () -> false)) {
            loop.start();
            realizeEnumerateResetAndReconnect(device, new DmaSpace(), loop, device.resets::get, "test-function");
        }
        assertTrue(device.windowEvents.stream().anyMatch(e -> e.contains("no-fd")),
                "pc.bios came without a descriptor: " + device.windowEvents);
    }

    /**
     * Runs the kit's QEMU against {@code device} served on {@code loop}: realize (the server's counters), SeaBIOS
     * enumeration (query-pci: 8086:1592 behind the root port with BAR0 128 MiB and BAR3 64 KiB), system_reset
     * (DEVICE_RESET, {@code resets} going up), quit, and a next client served. Checks the trace too.
     */
    static void realizeEnumerateResetAndReconnect(VfioUserFunction device, DmaSpace dma, ModelLoop loop,
            java.util.function.IntSupplier resets, String logName) throws Exception {
        GuestKit kit = kit();
        Path dir = Files.createTempDirectory("vfio-user-qemu");
        Logger trace = (Logger) LoggerFactory.getLogger("dev.irdmaemu.trace.vfio_user");
        ListAppender<ILoggingEvent> traced = new ListAppender<>();
        traced.start();
        Level was = trace.getLevel();
        trace.setLevel(Level.DEBUG);
        trace.addAppender(traced);
        Path socket = dir.resolve("e810.sock");
        Path qmpPath = dir.resolve("qmp.sock");
        Path log = Path.of("target", "vfio-user-qemu", logName + ".log");
        Files.createDirectories(log.getParent());
        try (VfioUserServer server = VfioUserServer.start(socket, device, loop::execute, dma)) {
            List<String> cmd = new ArrayList<>(kit.qemuCommand());
            cmd.addAll(List.of("-accel", "tcg", "-machine", "q35,memory-backend=mem", "-m", "256M",
                    "-object", "memory-backend-memfd,id=mem,size=256M,share=on",
                    "-device", "pcie-root-port,id=rp1,chassis=1,slot=1",
                    "-device", "{\"driver\":\"vfio-user-pci\",\"id\":\"e810\",\"bus\":\"rp1\",\"addr\":\"0.0\","
                            + "\"rombar\":0,\"socket\":{\"type\":\"unix\",\"path\":\"" + socket + "\"},"
                            + "\"x-msg-timeout\":10000}",
                    // no -no-reboot: with it, system_reset makes QEMU exit instead of resetting
                    "-display", "none", "-nodefaults",
                    "-qmp", "unix:" + qmpPath + ",server=on,wait=off"));
            Process qemu = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                try (Qmp qmp = Qmp.connect(qmpPath, qemu, log)) {
                    // realize is over before the monitor answers
                    VfioUserCounters n = server.counters();
                    assertEquals(1, server.clientsAccepted());
                    assertEquals(1, n.messages(VfioUserCommand.VERSION));
                    assertTrue(n.messages(VfioUserCommand.DMA_MAP) >= 2, "RAM and pc.bios: " + n.summary());
                    assertEquals(1, n.messages(VfioUserCommand.DEVICE_GET_INFO));
                    assertEquals(0b1011_1111, n.regionInfoQueried() & 0b1011_1111, "regions 0-5 and 7");
                    assertTrue(n.fullConfigReads() >= 1, "the 4096-byte config read");
                    assertTrue(n.messages(VfioUserCommand.DEVICE_GET_IRQ_INFO) >= 2, "ERR and MSI-X info");
                    assertTrue(dma.writable().contains(0x100000, 0x100000), "RAM above 1 MiB is mapped for DMA");

                    // SeaBIOS numbers the root port's secondary bus and assigns the BARs; until then query-pci
                    // does not descend into the root port
                    String[] seen = {""};
                    assertTrue(Fds.eventually(GUARD.toMillis(), () -> {
                        seen[0] = qmp.execute("{\"execute\":\"query-pci\"}");
                        return seen[0].contains("\"qdev_id\": \"e810\"");
                    }), () -> "the firmware did not enumerate the function: " + seen[0]);
                    String pci = seen[0];
                    int bridge = pci.indexOf("\"pci_bridge\"");
                    int ours = pci.indexOf("\"qdev_id\": \"e810\"");
                    assertTrue(bridge >= 0 && ours > bridge, "e810 behind the root port: " + pci);
                    String entry = deviceEntry(pci, ours);
                    assertTrue(entry.contains("\"vendor\": 32902") && entry.contains("\"device\": 5522"),
                            "8086:1592: " + entry);
                    assertTrue(entry.contains("\"size\": " + (128L << 20)), "BAR0 size: " + entry);
                    assertTrue(entry.contains("\"size\": " + (64L << 10)), "BAR3 size: " + entry);
                    String info = qmp.execute("{\"execute\":\"human-monitor-command\","
                            + "\"arguments\":{\"command-line\":\"info pci\"}}");
                    assertTrue(info.contains("8086:1592"), info);

                    long resetMessages = n.messages(VfioUserCommand.DEVICE_RESET);
                    int deviceResets = resets.getAsInt();
                    qmp.execute("{\"execute\":\"system_reset\"}");
                    assertTrue(Fds.eventually(GUARD.toMillis(),
                            () -> n.messages(VfioUserCommand.DEVICE_RESET) > resetMessages),
                            "DEVICE_RESET after system_reset");
                    assertTrue(Fds.eventually(5_000, () -> resets.getAsInt() > deviceResets), "the device reset");

                    qmp.execute("{\"execute\":\"quit\"}");
                }
                assertTrue(qemu.waitFor(GUARD.toSeconds(), TimeUnit.SECONDS), "QEMU ends on quit");
            } finally {
                qemu.destroyForcibly();
            }
            assertTrue(server.awaitClientsEnded(1, GUARD), "the server saw QEMU leave");
            assertEquals(0, server.counters().clientsDropped(), server.counters().summary());
            assertEquals(0, dma.readable().regions(), "QEMU's windows are dropped");
            try (VfioUserClient next = new VfioUserClient(server.socketPath())) {
                assertTrue(!next.negotiate().isError());
                assertEquals(0x1592, next.read(7, 2, 2), "the next client is served");
            }
        } finally {
            trace.detachAppender(traced);
            trace.setLevel(was);
            Files.deleteIfExists(socket);
            Files.deleteIfExists(qmpPath);
            Files.deleteIfExists(dir);
        }
        List<String> lines = new ArrayList<>();
        for (ILoggingEvent e : traced.list) {
            lines.add(e.getFormattedMessage());
        }
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("vfio_user ") && l.contains(" REGION_READ ")
                && l.contains("region=7 offset=0x0 count=4096")), "the trace names the whole-config read");
        assertTrue(lines.stream().anyMatch(l -> l.contains(" DEVICE_RESET ")), "the trace has the reset");
    }

    /** The query-pci object of the device whose qdev_id is at {@code at}: from the enclosing '{' to its end. */
    private static String deviceEntry(String json, int at) {
        int depth = 0;
        int start = at;
        while (start > 0) {
            char c = json.charAt(--start);
            if (c == '}') {
                depth++;
            } else if (c == '{') {
                if (depth == 0) {
                    break;
                }
                depth--;
            }
        }
        depth = 0;
        for (int i = start; i < json.length(); i++) {
            char c = json.charAt(i);
            if (c == '{') {
                depth++;
            } else if (c == '}' && --depth == 0) {
                return json.substring(start, i + 1);
            }
        }
        return json.substring(start);
    }

    /** A QMP client over the monitor's UNIX socket: one command at a time, events skipped. */
    static final class Qmp implements AutoCloseable {
        private final AFUNIXSocket socket;
        private final BufferedReader in;
        private final OutputStream out;

        private Qmp(AFUNIXSocket socket) throws IOException {
            this.socket = socket;
            socket.setSoTimeout((int) GUARD.toMillis());
            this.in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            this.out = socket.getOutputStream();
        }

        static Qmp connect(Path path, Process qemu, Path log) throws Exception {
            long deadline = System.nanoTime() + GUARD.toNanos();
            while (true) {
                if (!qemu.isAlive()) {
                    fail("QEMU exited with " + qemu.exitValue() + ": " + Files.readString(log));
                }
                if (Files.exists(path)) {
                    try {
                        Qmp q = new Qmp(AFUNIXSocket.connectTo(AFUNIXSocketAddress.of(path.toFile())));
                        String greeting = q.in.readLine();
                        assertTrue(greeting != null && greeting.contains("\"QMP\""), "QMP greeting: " + greeting);
                        q.execute("{\"execute\":\"qmp_capabilities\"}");
                        return q;
                    } catch (IOException e) {
                        // not listening yet
                    }
                }
                if (System.nanoTime() > deadline) {
                    fail("no QMP socket from QEMU within " + GUARD + ": " + Files.readString(log));
                }
                Thread.sleep(50);
            }
        }

        /** Sends a command and answers its "return" line; an "error" fails the test. */
        String execute(String command) throws IOException {
            out.write((command + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            while (true) {
                String line = in.readLine();
                if (line == null) {
                    if (command.contains("\"quit\"")) {
                        return "";
                    }
                    throw new IOException("QMP closed while waiting for the answer to " + command);
                }
                if (line.contains("\"event\"")) {
                    continue;
                }
                if (line.contains("\"error\"")) {
                    fail(command + " failed: " + line);
                }
                return line;
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
