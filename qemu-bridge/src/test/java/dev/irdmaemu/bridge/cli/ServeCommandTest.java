package dev.irdmaemu.bridge.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.e810.E810Serve;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code irdma-emu serve}: it prints QEMU's arguments and serves until stopped, then removes its sockets; a QEMU
 * without vfio-user-pci, a socket another serve holds and bad options are refused with the reason, before
 * anything is served.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ServeCommandTest {
    private record Run(int code, String out, String err) {
    }

    @TempDir
    Path tmp;

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    /** Serve in a thread until interrupted (as Ctrl-C's teardown), its output collected. */
    private static final class Background implements AutoCloseable {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final AtomicInteger code = new AtomicInteger(-1);
        final Thread thread;

        Background(String... args) {
            thread = new Thread(() -> code.set(Main.commandLine().setOut(new PrintWriter(out, true))
                    .setErr(new PrintWriter(err, true)).execute(args)), "serve-under-test");
            thread.start();
        }

        boolean awaitOutput(String text, Duration timeout) throws InterruptedException {
            long end = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < end) {
                synchronized (out.getBuffer()) {
                    if (out.toString().contains(text) || err.toString().contains(text)) {
                        return true;
                    }
                }
                if (!thread.isAlive()) {
                    return false;
                }
                Thread.sleep(20);
            }
            return false;
        }

        @Override
        public void close() throws InterruptedException {
            thread.interrupt();
            thread.join(20_000);
        }
    }

    @Test
    void itPrintsTheQemuArgumentsServesUntilStoppedAndRemovesItsSockets() throws Exception {
        Path sockets = tmp.resolve("s");
        Path run = tmp.resolve("run");
        Background serve = new Background("serve", "--functions", "2", "--memory", "2048", "--socket-dir",
                sockets.toString(), "--out", run.toString());
        try (serve) {
            assertTrue(serve.awaitOutput("serving until Ctrl-C", Duration.ofSeconds(60)),
                    () -> serve.out + "" + serve.err);
            assertTrue(Files.exists(sockets.resolve("e810-0.sock")) && Files.exists(sockets.resolve("e810-1.sock")));
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(sockets)));
        }
        assertEquals(ExitCodes.OK, serve.code.get(), () -> serve.out + "" + serve.err);
        String out = serve.out.toString();
        assertTrue(out.contains("-m 2048M \\\n  -object memory-backend-memfd,id=mem,size=2048M,share=on \\\n"
                + "  -machine q35,memory-backend=mem \\\n  -device pcie-root-port,id=rp1,chassis=1,slot=1 \\\n"
                + "  -device '{\"driver\":\"vfio-user-pci\",\"id\":\"e810-0\",\"bus\":\"rp1\",\"addr\":\"0.0\","
                + "\"multifunction\":true,\"rombar\":0,\"socket\":{\"type\":\"unix\",\"path\":\""
                + sockets.toAbsolutePath().resolve("e810-0.sock") + "\"},\"x-msg-timeout\":20000}' \\\n"), out);
        assertTrue(out.contains("id\":\"e810-1\",\"bus\":\"rp1\",\"addr\":\"0.1\""),
                "function 1 in the same slot: " + out);
        String err = serve.err.toString();
        assertTrue(err.contains("E810 PF 1 (MAC 02:00:5e:10:00:02, DSN 02005effff100001) serving vfio-user at "), err);
        assertTrue(err.contains("the 2 functions share one switch and one cable"), err);
        assertFalse(Files.exists(sockets.resolve("e810-0.sock")), "the sockets are removed at the end");
        assertFalse(Files.exists(sockets.resolve("e810-1.sock")));
        List<String> sessions = Files.readAllLines(run.resolve(E810Serve.SESSIONS_LOG));
        assertTrue(sessions.get(sessions.size() - 1).contains("serve stopped sockets removed"), sessions::toString);
        assertEquals(List.of("-m", "2048M"), Files.readAllLines(run.resolve(E810Serve.QEMU_ARGUMENTS)).subList(0, 2));
    }

    @Test
    void aSocketAnotherServeHoldsIsRefused() throws Exception {
        Path sockets = tmp.resolve("s");
        Background first = new Background("serve", "--socket-dir", sockets.toString(), "--out",
                tmp.resolve("one").toString());
        try (first) {
            assertTrue(first.awaitOutput("serving until Ctrl-C", Duration.ofSeconds(60)));
            Run second = run("serve", "--socket-dir", sockets.toString(), "--out", tmp.resolve("two").toString());
            assertEquals(ExitCodes.FAILED, second.code(), second::toString);
            assertTrue(second.err().contains("irdma-emu: serve: the socket " + sockets.toAbsolutePath()
                    .resolve("e810-0.sock") + " is in use: another server (another irdma-emu serve?) listens on it"),
                    second.err());
            assertTrue(Files.exists(sockets.resolve("e810-0.sock")), "the first serve keeps its socket");
        }
        assertEquals(ExitCodes.OK, first.code.get());
    }

    @Test
    void aQemuWithoutVfioUserPciIsRefusedAndTheKitsIsAccepted() throws Exception {
        // an old QEMU: it runs and answers, but has no vfio-user-pci (QEMU 10.0 and older)
        Path old = tmp.resolve("qemu-system-x86_64");
        Files.writeString(old, "#!/bin/sh\ncase \"$1\" in\n--version) echo 'QEMU emulator version 9.2.0';;\n"
                + "-device) printf 'Network devices:\\nname \"e1000e\", bus PCI\\nname \"vfio-pci\", bus PCI, desc"
                + " \"VFIO-based PCI device assignment\"\\n';;\nesac\n");
        Files.setPosixFilePermissions(old, PosixFilePermissions.fromString("rwx------"));
        Run r = run("serve", "--check-qemu", old.toString(), "--socket-dir", tmp.resolve("s").toString());
        assertEquals(ExitCodes.FAILED, r.code(), r::toString);
        assertTrue(r.err().contains("irdma-emu: serve: QEMU 9.2.0 (" + old + ") has no vfio-user-pci device ('-device"
                + " help' does not list it): vfio-user-pci arrived in QEMU 10.1"), r.err());
        assertFalse(Files.exists(tmp.resolve("s")), "nothing was served");

        Run missing = run("serve", "--check-qemu", tmp.resolve("nope").toString());
        assertEquals(ExitCodes.NO_INPUT, missing.code(), missing::toString);

        Background kit = new Background("serve", "--check-qemu", "kit", "--socket-dir", tmp.resolve("k").toString(),
                "--out", tmp.resolve("kit").toString(), "--no-trace");
        try (kit) {
            assertTrue(kit.awaitOutput("serving until Ctrl-C", Duration.ofSeconds(60)), () -> kit.out + "" + kit.err);
            assertTrue(kit.err.toString().contains("serve: QEMU 11.1.3 (kit) has vfio-user-pci"), kit.err::toString);
        }
        assertFalse(Files.exists(tmp.resolve("kit").resolve(E810Serve.TRACE)), "--no-trace");
    }

    @Test
    void badOptionsAreUsageErrors() {
        assertEquals(ExitCodes.USAGE, run("serve", "--functions", "9").code());
        assertEquals(ExitCodes.USAGE, run("serve", "--functions", "0").code());
        assertEquals(ExitCodes.USAGE, run("serve", "--memory", "64").code());
        assertEquals(ExitCodes.USAGE, run("serve", "--message-timeout", "0").code());
        Run help = run("serve", "--help");
        assertEquals(ExitCodes.OK, help.code());
        assertTrue(help.out().contains("--socket-dir") && help.out().contains("vfio-user"), help.out());
    }

    @Test
    void theCableCanRideAVxlanSegmentAndStrangersAreCounted() throws Exception {
        try (java.nio.channels.DatagramChannel peer = java.nio.channels.DatagramChannel.open();
             java.nio.channels.DatagramChannel stranger = java.nio.channels.DatagramChannel.open();
             java.nio.channels.DatagramChannel probe = java.nio.channels.DatagramChannel.open()) {
            java.net.InetAddress lo = java.net.InetAddress.getLoopbackAddress();
            peer.bind(new java.net.InetSocketAddress(lo, 0));
            // a stranger is another address: any source port of a peer's address is the peer's (RFC 7348 section 5)
            stranger.bind(new java.net.InetSocketAddress(java.net.InetAddress.getByName("127.0.0.2"), 0));
            probe.bind(new java.net.InetSocketAddress(lo, 0));
            int port = ((java.net.InetSocketAddress) probe.getLocalAddress()).getPort();
            probe.close(); // a free port for serve to bind
            int peerPort = ((java.net.InetSocketAddress) peer.getLocalAddress()).getPort();
            Background serve = new Background("serve", "--socket-dir", tmp.resolve("s").toString(), "--out",
                    tmp.resolve("vx").toString(), "--vxlan", "127.0.0.1:" + port, "--vxlan-peer",
                    "127.0.0.1:" + peerPort, "--vni", "4242");
            try (serve) {
                assertTrue(serve.awaitOutput("serving until Ctrl-C", Duration.ofSeconds(60)),
                        () -> serve.out + "" + serve.err);
                assertTrue(serve.err.toString().contains("the adapter's cable is on VXLAN segment 4242 at /127.0.0.1:"
                        + port), serve.err::toString);
                assertFalse(serve.err.toString().contains("hosted node on PF 0's cable"), "the node gives the cable up");
                byte[] d = new byte[8 + 60];
                dev.irdmaemu.fw.frame.VxlanHeader.write(net.openhft.chronicle.bytes.BytesStore.wrap(d), 0, 4242);
                java.util.Arrays.fill(d, 8, 14, (byte) 0xff); // broadcast
                d[14] = 0x02;
                java.net.InetSocketAddress to = new java.net.InetSocketAddress(lo, port);
                peer.send(java.nio.ByteBuffer.wrap(d), to);
                stranger.send(java.nio.ByteBuffer.wrap(d), to);
                // no wait: both datagrams are in the socket's queue now, and the cable takes what is queued before
                // it closes
            }
            assertEquals(ExitCodes.OK, serve.code.get(), () -> serve.out + "" + serve.err);
            String err = serve.err.toString();
            assertTrue(err.contains("VXLAN segment 4242: received 1,") && err.contains("spoofed 1,"), err);
        }
        Run noPeer = run("serve", "--socket-dir", tmp.resolve("t").toString(), "--vxlan", "127.0.0.1:0");
        assertEquals(ExitCodes.USAGE, noPeer.code(), noPeer::toString);
        Run peerOnly = run("serve", "--socket-dir", tmp.resolve("t").toString(), "--vxlan-peer", "127.0.0.1:4789");
        assertEquals(ExitCodes.USAGE, peerOnly.code(), peerOnly::toString);
        Run badVni = run("serve", "--socket-dir", tmp.resolve("t").toString(), "--out", tmp.resolve("b").toString(),
                "--vxlan", "127.0.0.1:0", "--vxlan-peer", "127.0.0.1:4789", "--vni", "16777216");
        assertEquals(ExitCodes.USAGE, badVni.code(), badVni::toString);
        assertTrue(badVni.err().contains("VNI 16777216 is not 24 bits"), badVni.err());
        Run badPeer = run("serve", "--socket-dir", tmp.resolve("t").toString(), "--out", tmp.resolve("c").toString(),
                "--vxlan", "127.0.0.1:0", "--vxlan-peer", "127.0.0.1:port");
        assertEquals(ExitCodes.USAGE, badPeer.code(), badPeer::toString);
        assertFalse(Files.exists(tmp.resolve("t").resolve("e810-0.sock")), "a refused serve leaves no socket");
    }
}
