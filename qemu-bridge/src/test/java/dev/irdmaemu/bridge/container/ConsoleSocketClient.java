package dev.irdmaemu.bridge.container;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This side of a guest console's UNIX socket ({@link dev.irdmaemu.bridge.kit.GuestLaunch#consoleSocket}): what
 * is {@linkplain #typeLine typed} is the guest's serial input. QEMU, in the container, listens on the socket in a
 * folder both sides share; the first line typed connects (waiting for QEMU to have made the socket), and from then
 * on a reader drains what QEMU sends back (the console's output, which the container's log already carries): a
 * client that does not read would stall the console once the socket's buffer is full.
 */
final class ConsoleSocketClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConsoleSocketClient.class);
    /** How long the first line waits for QEMU's socket to be there and take the connection. */
    static final Duration CONNECT_WITHIN = Duration.ofSeconds(30);
    private static final Duration CONNECT_STEP = Duration.ofMillis(100);
    private static final int DRAIN_BUFFER = 8192;

    private final Path socket;
    private final Duration connectWithin;
    private final AtomicLong drained = new AtomicLong();
    private SocketChannel channel;
    private Thread reader;
    private boolean closed;

    ConsoleSocketClient(Path socket) {
        this(socket, CONNECT_WITHIN);
    }

    /** A client whose first line waits {@code connectWithin} for the socket. */
    ConsoleSocketClient(Path socket, Duration connectWithin) {
        this.socket = Objects.requireNonNull(socket, "socket").toAbsolutePath();
        this.connectWithin = Objects.requireNonNull(connectWithin, "connectWithin");
    }

    Path socket() {
        return socket;
    }

    /** Types {@code line} and a newline; the first one connects. A closed client or a gone QEMU is an IOException. */
    synchronized void typeLine(String line) throws IOException {
        SocketChannel c = connected();
        ByteBuffer b = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
        while (b.hasRemaining()) {
            c.write(b);
        }
    }

    /** The bytes of console output read from the socket and dropped so far. */
    long drained() {
        return drained.get();
    }

    private SocketChannel connected() throws IOException {
        if (closed) {
            throw new IOException("the console socket " + socket + " was closed");
        }
        if (channel != null) {
            return channel;
        }
        long deadline = System.nanoTime() + connectWithin.toNanos();
        IOException last = null;
        while (true) {
            if (Files.exists(socket)) {
                SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
                try {
                    c.connect(UnixDomainSocketAddress.of(socket));
                    channel = c;
                    startReader(c);
                    LOG.debug("connected to the guest console's socket {}", socket);
                    return c;
                } catch (IOException e) {
                    c.close();
                    last = e;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("QEMU's console socket " + socket + " took no connection within "
                        + connectWithin.toMillis() + " ms" + (last == null ? " (it never appeared)"
                        : ": " + last.getMessage()), last);
            }
            try {
                Thread.sleep(CONNECT_STEP.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while connecting to " + socket, e);
            }
        }
    }

    private void startReader(SocketChannel c) {
        reader = new Thread(() -> {
            ByteBuffer b = ByteBuffer.allocate(DRAIN_BUFFER);
            try {
                int n;
                while ((n = c.read(b)) >= 0) {
                    drained.addAndGet(n);
                    b.clear();
                }
            } catch (IOException e) {
                // closed by close(), or QEMU went away: either way nothing more to drain
                LOG.debug("console socket {}: {}", socket, e.getMessage());
            }
        }, "guest console socket");
        reader.setDaemon(true);
        reader.start();
    }

    /** Disconnects (QEMU keeps listening); idempotent. */
    @Override
    public synchronized void close() {
        closed = true;
        if (channel == null) {
            return;
        }
        try {
            channel.close();
        } catch (IOException e) {
            LOG.warn("closing the console socket {}: {}", socket, e.getMessage());
        }
        channel = null;
        try {
            reader.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
