package dev.irdmaemu.bridge.sock;

import static org.junit.jupiter.api.Assertions.*;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.newsclub.net.unix.AFUNIXSocket;
import org.newsclub.net.unix.AFUNIXSocketAddress;

/** The shared accept loop: binding rules, clients to the handler, a failing handler, and close. */
@Timeout(30)
class UnixAcceptLoopTest {
    @TempDir
    Path dir;

    private static AFUNIXSocket connect(Path p) throws IOException {
        return AFUNIXSocket.connectTo(AFUNIXSocketAddress.of(new File(p.toString())));
    }

    @Test
    void clientsReachTheHandlerInTurnAndCloseRemovesTheSocket() throws Exception {
        Path p = dir.resolve("s.sock");
        BlockingQueue<AFUNIXSocket> got = new LinkedBlockingQueue<>();
        UnixAcceptLoop loop = UnixAcceptLoop.bind(p, "test");
        loop.start(got::add);
        try (AFUNIXSocket a = connect(p); AFUNIXSocket b = connect(p)) {
            AFUNIXSocket sa = got.poll(5, TimeUnit.SECONDS);
            AFUNIXSocket sb = got.poll(5, TimeUnit.SECONDS);
            assertNotNull(sa);
            assertNotNull(sb);
            a.getOutputStream().write(7);
            assertEquals(7, sa.getInputStream().read());
            sa.close();
            sb.close();
        }
        assertThrows(IllegalStateException.class, () -> loop.start(s -> { }));
        loop.close();
        assertTrue(loop.closing());
        assertFalse(Files.exists(p), "the socket file is removed");
        assertTrue(got.isEmpty(), "the wake-up connection never reaches the handler");
        loop.close(); // idempotent
    }

    @Test
    void aStaleSocketIsReplacedAndAnythingElseRefused() throws Exception {
        Path p = dir.resolve("stale.sock");
        UnixAcceptLoop first = UnixAcceptLoop.bind(p, "test");
        // not closed: its file stays, as after a crash
        UnixAcceptLoop second = UnixAcceptLoop.bind(p, "test");
        second.start(UnixAcceptLoop::closeQuietly);
        second.close();
        first.close();
        Path file = Files.writeString(dir.resolve("plain"), "x");
        IOException e = assertThrows(IOException.class, () -> UnixAcceptLoop.bind(file, "test"));
        assertTrue(e.getMessage().contains("not a socket"));
        assertEquals("x", Files.readString(file), "the file is left alone");
    }

    @Test
    void aHandlerThatThrowsLosesOnlyThatClient() throws Exception {
        Path p = dir.resolve("h.sock");
        BlockingQueue<AFUNIXSocket> got = new LinkedBlockingQueue<>();
        int[] calls = {0};
        UnixAcceptLoop loop = UnixAcceptLoop.bind(p, "test");
        loop.start(s -> {
            if (calls[0]++ == 0) {
                throw new IllegalStateException("boom");
            }
            got.add(s);
        });
        try (AFUNIXSocket a = connect(p)) {
            assertEquals(-1, a.getInputStream().read(), "the first client is closed");
        }
        try (AFUNIXSocket b = connect(p)) {
            AFUNIXSocket sb = got.poll(5, TimeUnit.SECONDS);
            assertNotNull(sb, "the loop goes on accepting");
            sb.close();
        }
        loop.close();
    }

    @Test
    void afterBeginCloseNoClientIsServedAndCloseEndsTheLoop() throws Exception {
        Path p = dir.resolve("b.sock");
        BlockingQueue<AFUNIXSocket> got = new LinkedBlockingQueue<>();
        UnixAcceptLoop loop = UnixAcceptLoop.bind(p, "test");
        loop.start(got::add);
        loop.beginClose();
        // the loop either ends before its next accept (the client waits in the backlog until close resets it) or
        // accepts and closes it at once: never served either way
        try (AFUNIXSocket a = connect(p)) {
            a.setSoTimeout(5_000);
            loop.close();
            try {
                assertEquals(-1, a.getInputStream().read(), "closed, not served");
            } catch (IOException reset) {
                // the listening socket closed with the client still in its backlog
            }
        }
        assertNull(got.poll(100, TimeUnit.MILLISECONDS));
        assertFalse(Files.exists(p));
    }
}
