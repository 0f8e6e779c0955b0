package dev.irdmaemu.bridge.container;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host's end of a guest console socket, against a stand-in for QEMU's listening socket chardev: the first line
 * waits for the socket to appear, lines arrive whole and in order, the console's output is drained however much
 * of it comes, and a socket that never appears, a closed client or a gone QEMU is an IOException, not a hang.
 */
class ConsoleSocketClientTest {
    private static final int OUTPUT_BYTES = 4 << 20;

    @TempDir
    Path dir;

    @Test
    void theFirstLineWaitsForTheSocketLinesArriveInOrderAndTheOutputIsDrained() throws Exception {
        Path socket = dir.resolve("console.sock");
        CompletableFuture<String> typed = new CompletableFuture<>();
        CompletableFuture<Integer> written = new CompletableFuture<>();
        Thread qemu = new Thread(() -> {
            try {
                Thread.sleep(300);
                try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
                    server.bind(UnixDomainSocketAddress.of(socket));
                    try (SocketChannel c = server.accept()) {
                        // more console output than any socket buffer holds: only a reading client lets this finish
                        ByteBuffer out = ByteBuffer.allocate(OUTPUT_BYTES);
                        while (out.hasRemaining()) {
                            c.write(out);
                        }
                        written.complete(OUTPUT_BYTES);
                        BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(c),
                                StandardCharsets.UTF_8));
                        typed.complete(in.readLine() + "|" + in.readLine());
                    }
                }
            } catch (Exception e) {
                typed.completeExceptionally(e);
                written.completeExceptionally(e);
            }
        }, "qemu stand-in");
        qemu.start();
        try (ConsoleSocketClient client = new ConsoleSocketClient(socket, Duration.ofSeconds(10))) {
            client.typeLine("IRDMA-EMU-ACK boot 1");
            assertEquals(OUTPUT_BYTES, written.get(20, TimeUnit.SECONDS), "the client drains the console's output");
            client.typeLine("IRDMA-EMU-ACK probed rdma=28 lan=14");
            assertEquals("IRDMA-EMU-ACK boot 1|IRDMA-EMU-ACK probed rdma=28 lan=14", typed.get(20, TimeUnit.SECONDS));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (client.drained() < OUTPUT_BYTES && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(OUTPUT_BYTES, client.drained());
        }
        qemu.join(10_000);
    }

    @Test
    void aSocketThatNeverAppearsFailsTheLineAfterTheWait() {
        Path socket = dir.resolve("never.sock");
        ConsoleSocketClient client = new ConsoleSocketClient(socket, Duration.ofMillis(300));
        long started = System.nanoTime();
        IOException e = assertThrows(IOException.class, () -> client.typeLine("IRDMA-EMU-ACK boot 1"));
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertTrue(e.getMessage().contains(socket.toString()) && e.getMessage().contains("never appeared"),
                e::getMessage);
        assertTrue(tookMs >= 300 && tookMs < 5_000, () -> "gave up after " + tookMs + " ms");
        client.close();
    }

    @Test
    void aFileThatIsNoSocketFailsTheLine() throws IOException {
        Path notSocket = Files.writeString(dir.resolve("plain"), "x");
        ConsoleSocketClient client = new ConsoleSocketClient(notSocket, Duration.ofMillis(200));
        IOException e = assertThrows(IOException.class, () -> client.typeLine("x"));
        assertTrue(e.getMessage().contains("took no connection"), e::getMessage);
    }

    @Test
    void aClosedClientAndAGoneQemuAreIoExceptions() throws Exception {
        Path socket = dir.resolve("gone.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            ConsoleSocketClient client = new ConsoleSocketClient(socket, Duration.ofSeconds(5));
            client.typeLine("first");
            // QEMU goes away: the connection ends from its side
            server.accept().close();
            IOException gone = assertThrows(IOException.class, () -> {
                for (int i = 0; i < 1000; i++) {
                    client.typeLine("IRDMA-EMU-ACK after QEMU is gone " + i);
                    Thread.sleep(1);
                }
            });
            assertTrue(gone.getMessage() != null, gone::toString);
            client.close();
            client.close();
            IOException closed = assertThrows(IOException.class, () -> client.typeLine("late"));
            assertTrue(closed.getMessage().contains("closed"), closed::getMessage);
        }
    }
}
