package dev.irdmaemu.bridge.sock;

import java.io.File;
import java.io.IOException;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import org.newsclub.net.unix.AFUNIXServerSocket;
import org.newsclub.net.unix.AFUNIXSocket;
import org.newsclub.net.unix.AFUNIXSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One listening UNIX socket (junixsocket) and the daemon thread that accepts on it, for a protocol server that
 * serves a client per connection (the vhost-user back-end, the vfio-user server). Binding replaces a stale socket
 * at the path but refuses to replace anything else. Each accepted socket goes to the {@link Handler} on the accept
 * thread, which either serves it there (the next client waits in the listen backlog) or hands it to a thread of its
 * own; once {@link #beginClose()} was called, a socket accepted meanwhile is closed instead.
 *
 * <p>{@link #close()} wakes the blocked {@code accept()} with a connection of its own and waits for the thread to end
 * before it closes the listening socket: closing it under a blocked accept makes junixsocket open a wake-up socket of
 * its own, which it sometimes leaves open (seen in VfioUserServerTest's descriptor count). A handler that serves on
 * the accept thread must be stopped before {@code close()}, which waits for the thread (at most {@link #JOIN_MILLIS}).
 */
public final class UnixAcceptLoop implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(UnixAcceptLoop.class);
    /** How long {@link #close()} waits for the accept thread. */
    public static final long JOIN_MILLIS = 5_000;

    /** Takes an accepted client; owns the socket from then on. */
    @FunctionalInterface
    public interface Handler {
        void accepted(AFUNIXSocket socket);
    }

    private final Path path;
    private final String protocol;
    private final AFUNIXServerSocket server;
    private Thread thread;
    private volatile boolean closing;
    private boolean closed;

    private UnixAcceptLoop(Path path, String protocol, AFUNIXServerSocket server) {
        this.path = path;
        this.protocol = protocol;
        this.server = server;
    }

    /**
     * Binds {@code path}, replacing a stale socket there; a path that holds anything else (a file, a directory, a
     * link) is refused. {@code protocol} names the thread and the log lines ("vhost-user", "vfio-user").
     */
    public static UnixAcceptLoop bind(Path path, String protocol) throws IOException {
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)
                && !Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isOther()) {
            throw new IOException(path + " exists and is not a socket");
        }
        Files.deleteIfExists(path);
        AFUNIXServerSocket server = AFUNIXServerSocket.newInstance();
        try {
            server.bind(AFUNIXSocketAddress.of(new File(path.toString())));
        } catch (IOException e) {
            server.close();
            throw e;
        }
        return new UnixAcceptLoop(path, protocol, server);
    }

    /** Starts accepting on a daemon thread named after the protocol and the socket's file name. */
    public synchronized void start(Handler handler) {
        if (thread != null) {
            throw new IllegalStateException(protocol + " " + path + ": already accepting");
        }
        thread = new Thread(() -> run(handler), protocol + " " + path.getFileName());
        thread.setDaemon(true);
        thread.start();
    }

    public Path path() {
        return path;
    }

    /** True once {@link #beginClose()} or {@link #close()} was called. */
    public boolean closing() {
        return closing;
    }

    /** Accepts no further client: one accepted from now on is closed at once; the loop ends at its next turn. */
    public void beginClose() {
        closing = true;
    }

    private void run(Handler handler) {
        while (!closing) {
            AFUNIXSocket socket;
            try {
                socket = server.accept();
            } catch (SocketException e) {
                break;
            } catch (IOException e) {
                if (!closing) {
                    LOG.error("{} {}: accept failed: {}", protocol, path, e.toString());
                }
                break;
            }
            if (closing) {
                closeQuietly(socket);
                break;
            }
            try {
                handler.accepted(socket);
            } catch (RuntimeException e) {
                LOG.error("{} {}: client handler failed, closing that client: {}", protocol, path.getFileName(),
                        e.toString(), e);
                closeQuietly(socket);
            }
        }
    }

    /**
     * Stops accepting: wakes the accept thread with a connection of its own, waits for it to end, closes the
     * listening socket and removes the socket file. Idempotent.
     */
    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            closing = true;
            t = thread;
        }
        if (t != null) {
            try (AFUNIXSocket wake = AFUNIXSocket.connectTo(AFUNIXSocketAddress.of(new File(path.toString())))) {
                LOG.debug("{} {}: woke the accept loop", protocol, path.getFileName());
            } catch (IOException e) {
                LOG.debug("{} {}: wake the accept loop: {}", protocol, path, e.toString());
            }
            try {
                t.join(JOIN_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (t.isAlive()) {
                LOG.warn("{} {}: the accept thread did not end within {} ms", protocol, path.getFileName(),
                        JOIN_MILLIS);
            }
        }
        try {
            server.close();
        } catch (IOException e) {
            LOG.debug("{} {}: close: {}", protocol, path, e.toString());
        }
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            LOG.debug("{} {}: remove socket: {}", protocol, path, e.toString());
        }
    }

    /** Closes {@code socket}, logging a failure at debug level. */
    public static void closeQuietly(AFUNIXSocket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            LOG.debug("close: {}", e.toString());
        }
    }
}
