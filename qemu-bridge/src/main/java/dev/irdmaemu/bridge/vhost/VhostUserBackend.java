package dev.irdmaemu.bridge.vhost;

import dev.irdmaemu.bridge.sock.SessionTally;
import dev.irdmaemu.bridge.sock.UnixAcceptLoop;
import java.io.IOException;
import java.nio.file.Path;
import org.newsclub.net.unix.AFUNIXSocket;
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
    private final UnixAcceptLoop listener;
    private final SessionTally connections = new SessionTally();
    private volatile VhostUserConnection current;

    private VhostUserBackend(Path path, VhostNetPort port) throws IOException {
        this.path = path;
        this.port = port;
        this.listener = UnixAcceptLoop.bind(path, "vhost-user");
    }

    /** Binds {@code path} (replacing a stale socket there) and starts serving {@code port} on it. */
    public static VhostUserBackend start(Path path, VhostNetPort port) throws IOException {
        VhostUserBackend backend = new VhostUserBackend(path, port);
        backend.listener.start(backend::serve);
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
        return connections.begun();
    }

    /**
     * Waits until {@code count} connections have ended and released everything they held (rings stopped,
     * descriptors closed, memory unmapped); false on timeout.
     */
    public boolean awaitConnectionsEnded(int count, long timeoutMillis) throws InterruptedException {
        return connections.awaitEnded(count, timeoutMillis * 1_000_000L);
    }

    /** Serves one front-end on the accept thread; the next waits in the listen backlog meanwhile. */
    private void serve(AFUNIXSocket socket) {
        int n = connections.begin();
        VhostUserConnection connection = new VhostUserConnection(socket, port, path.getFileName() + "#" + n);
        current = connection;
        port.attach(connection);
        try {
            if (listener.closing()) {
                connection.stop();
            }
            connection.run();
        } finally {
            port.detach(connection);
            current = null;
            connections.end();
        }
    }

    /** Stops accepting, closes the current connection (releasing all it holds) and removes the socket file. */
    @Override
    public void close() {
        // No new front-end from now on; the one being served is stopped, so the accept thread can end.
        listener.beginClose();
        VhostUserConnection c = current;
        if (c != null) {
            c.stop();
        }
        listener.close();
    }
}
