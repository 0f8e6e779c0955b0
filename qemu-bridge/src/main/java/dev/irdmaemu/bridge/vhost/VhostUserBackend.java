package dev.irdmaemu.bridge.vhost;

import java.io.File;
import java.io.IOException;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.atomic.AtomicInteger;
import org.newsclub.net.unix.AFUNIXServerSocket;
import org.newsclub.net.unix.AFUNIXSocket;
import org.newsclub.net.unix.AFUNIXSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A vhost-user back-end listening on one UNIX socket path for one {@link VhostNetPort}: serves one front-end at
 * a time (a second one waits in the listen backlog until the first leaves), each on this socket's own thread.
 * A process may run several, one per port; a connection that breaks a rule is closed and the socket goes on
 * accepting.
 */
public final class VhostUserBackend implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(VhostUserBackend.class);

    private final Path path;
    private final VhostNetPort port;
    private final AFUNIXServerSocket server;
    private final Thread thread;
    private final AtomicInteger accepted = new AtomicInteger();
    private int finished;
    private volatile VhostUserConnection current;
    private volatile boolean closed;

    private VhostUserBackend(Path path, VhostNetPort port) throws IOException {
        this.path = path;
        this.port = port;
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)
                && !Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isOther()) {
            throw new IOException(path + " exists and is not a socket");
        }
        Files.deleteIfExists(path);
        this.server = AFUNIXServerSocket.newInstance();
        try {
            server.bind(AFUNIXSocketAddress.of(new File(path.toString())));
        } catch (IOException e) {
            server.close();
            throw e;
        }
        this.thread = new Thread(this::acceptLoop, "vhost-user " + path.getFileName());
        thread.setDaemon(true);
    }

    /** Binds {@code path} (replacing a stale socket there) and starts serving {@code port} on it. */
    public static VhostUserBackend start(Path path, VhostNetPort port) throws IOException {
        VhostUserBackend backend = new VhostUserBackend(path, port);
        backend.thread.start();
        LOG.info("vhost-user: serving {} on {}", port.name(), path);
        return backend;
    }

    public Path socketPath() {
        return path;
    }

    public VhostNetPort port() {
        return port;
    }

    /** Front-end connections accepted so far. */
    public int connectionsAccepted() {
        return accepted.get();
    }

    /**
     * Waits until {@code count} connections have ended and released everything they held (rings stopped,
     * descriptors closed, memory unmapped); false on timeout.
     */
    public synchronized boolean awaitConnectionsEnded(int count, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (finished < count) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000L));
        }
        return true;
    }

    private void acceptLoop() {
        while (!closed) {
            AFUNIXSocket socket;
            try {
                socket = server.accept();
            } catch (SocketException e) {
                break;
            } catch (IOException e) {
                if (!closed) {
                    LOG.error("vhost-user {}: accept failed: {}", path, e.toString());
                }
                break;
            }
            int n = accepted.incrementAndGet();
            VhostUserConnection connection = new VhostUserConnection(socket, port, path.getFileName() + "#" + n);
            current = connection;
            port.attach(connection);
            try {
                if (closed) {
                    connection.stop();
                }
                connection.run();
            } finally {
                port.detach(connection);
                current = null;
                synchronized (this) {
                    finished++;
                    notifyAll();
                }
            }
        }
    }

    /** Stops accepting, closes the current connection (releasing all it holds) and removes the socket file. */
    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            LOG.debug("vhost-user {}: close: {}", path, e.toString());
        }
        VhostUserConnection c = current;
        if (c != null) {
            c.stop();
        }
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            LOG.debug("vhost-user {}: remove socket: {}", path, e.toString());
        }
    }
}
