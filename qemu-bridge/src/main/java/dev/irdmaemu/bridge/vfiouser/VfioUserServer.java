package dev.irdmaemu.bridge.vfiouser;

import dev.irdmaemu.bridge.sock.SessionTally;
import dev.irdmaemu.bridge.sock.UnixAcceptLoop;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.concurrent.Executor;
import org.newsclub.net.unix.AFUNIXSocket;
import org.newsclub.net.unix.AFUNIXSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A vfio-user server for one PCI function on one UNIX socket path (QEMU's {@code vfio-user-pci} connects once, at
 * realize; several functions take one server and one socket each). One client at a time: a second one that
 * connects meanwhile is closed at once with a log line. A client that leaves, cleanly or for breaking the
 * protocol, takes its DMA windows and eventfds with it; the device keeps its state and the socket accepts the next
 * client (vfio-user.rst "Client Disconnection"). A {@link VfioUserSessionListener} hears each of these events.
 *
 * <p>The socket path is this server's alone: a path where another server is listening is refused
 * ({@link SocketInUseException}); a socket file nobody listens on (left by a process that died) is replaced.
 *
 * <p>Device accesses run on the device's owner thread through {@code owner} ({@code ModelLoop::execute} under a
 * live model, {@code Runnable::run} to call the device on the connection thread), each waited for.
 */
public final class VfioUserServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(VfioUserServer.class);
    /** How long one device access may wait for the owner thread before the client is closed. */
    public static final Duration OWNER_TIMEOUT = Duration.ofSeconds(10);
    /** How long a new client waits for the one served to finish leaving before it is refused as a second one. */
    public static final Duration BUSY_GRACE = Duration.ofSeconds(2);

    private final Path path;
    private final VfioUserFunction device;
    private final Executor owner;
    /** The listening socket and its accept thread (shared with the vhost-user back-end). */
    private final UnixAcceptLoop sockets;
    private final IrqTable irqs;
    private final DmaSpace dma;
    private final VfioUserSessionListener listener;
    private final VfioUserCounters counters = new VfioUserCounters();
    private final long[] regionSizes = new long[VfioUserConnection.NUM_REGIONS];
    /** The receive buffer, reused by each client in turn (one at a time). */
    private final byte[] message = new byte[VfioUserConnection.MAX_MESSAGE];
    private final SessionTally clients = new SessionTally();
    private volatile VfioUserConnection current;
    private volatile Thread currentThread;
    private volatile boolean closed;

    private VfioUserServer(Path path, VfioUserFunction device, Executor owner, DmaSpace dma,
                           VfioUserSessionListener listener) throws IOException {
        this.path = path;
        this.dma = dma;
        this.listener = listener;
        this.device = device;
        this.owner = owner;
        for (int bar = 0; bar < 6; bar++) {
            long size = device.barSize(bar);
            if (size < 0 || size != 0 && Long.bitCount(size) != 1) {
                // QEMU asserts is_power_of_2 on every BAR region it registers (hw/pci/pci.c pci_register_bar)
                throw new IllegalArgumentException(device.name() + ": BAR" + bar + " size " + size
                        + " is not a power of two");
            }
            regionSizes[bar] = size;
        }
        regionSizes[DeviceCalls.CONFIG] = VfioUserFunction.CONFIG_SIZE;
        int vectors = device.msixVectors();
        if (vectors < 0 || vectors > 2048) {
            throw new IllegalArgumentException(device.name() + ": " + vectors + " MSI-X vectors (msix_init: 1..2048)");
        }
        this.irqs = new IrqTable(path.getFileName().toString(), vectors, device.errorInterrupt());
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            if (!Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isOther()) {
                throw new IOException(path + " exists and is not a socket");
            }
            requireNobodyListening(path);
            LOG.info("vfio-user {}: replacing a stale socket (nobody listens on it)", path);
        }
        this.sockets = UnixAcceptLoop.bind(path, "vfio-user");
    }

    /** Another server listens on the socket path this one was to bind. */
    public static final class SocketInUseException extends IOException {
        private static final long serialVersionUID = 1L;

        public SocketInUseException(String message) {
            super(message);
        }
    }

    /**
     * Refuses {@code path} when a server answers on it ({@link SocketInUseException}); returns when nothing is
     * there or nobody listens. Connecting is the only test that tells a live socket from
     * the file a dead process left: the other server sees a client that leaves without a word (no VERSION, so it
     * changes nothing there).
     */
    public static void requireNobodyListening(Path path) throws IOException {
        try (AFUNIXSocket probe = AFUNIXSocket.connectTo(AFUNIXSocketAddress.of(new File(path.toString())))) {
            LOG.debug("vfio-user {}: a server answered the probe", path);
        } catch (IOException e) {
            return; // ECONNREFUSED: a stale socket file
        }
        throw new SocketInUseException("the socket " + path + " is in use: another server (another"
                + " irdma-emu serve?) listens on it; stop it or choose another socket");
    }

    /**
     * Binds {@code path} (replacing a stale socket there), attaches the device ({@link VfioUserFunction#attach}) and
     * starts accepting. {@code owner} runs the device's accesses.
     */
    public static VfioUserServer start(Path path, VfioUserFunction device, Executor owner) throws IOException {
        return start(path, device, owner, new DmaSpace());
    }

    /** {@link #start(Path, VfioUserFunction, Executor)} publishing the client's DMA windows in {@code dma}. */
    public static VfioUserServer start(Path path, VfioUserFunction device, Executor owner, DmaSpace dma)
            throws IOException {
        return start(path, device, owner, dma, VfioUserSessionListener.NONE);
    }

    /** As above, {@code listener} hearing each client connect, reset the device, leave or be refused. */
    public static VfioUserServer start(Path path, VfioUserFunction device, Executor owner, DmaSpace dma,
                                       VfioUserSessionListener listener) throws IOException {
        VfioUserServer s = new VfioUserServer(path, device, owner, dma, listener);
        device.attach(s.irqs, s.dma);
        s.sockets.start(s::accepted);
        LOG.info("vfio-user: serving {} on {}", device.name(), path);
        return s;
    }

    public Path socketPath() {
        return path;
    }

    public VfioUserCounters counters() {
        return counters;
    }

    /** The interrupts the device raises (the same object {@link VfioUserFunction#attach} received). */
    public VfioUserInterrupts interrupts() {
        return irqs;
    }

    public DmaSpace dma() {
        return dma;
    }

    /** Clients accepted so far (refused ones not counted). */
    public int clientsAccepted() {
        return clients.begun();
    }

    /** MSI-X vectors holding an eventfd now. */
    public int msixAssigned() {
        return irqs.assigned(IrqTable.MSIX);
    }

    /** Interrupts delivered to an eventfd, and those dropped (no eventfd, or a failed write). */
    public long interruptsRaised() {
        return irqs.raised();
    }

    public long interruptsDropped() {
        return irqs.dropped();
    }

    /**
     * Waits until {@code count} clients have left and everything they held was released (windows unmapped,
     * eventfds closed); false on timeout.
     */
    public boolean awaitClientsEnded(int count, Duration timeout) throws InterruptedException {
        return clients.awaitEnded(count, timeout.toNanos());
    }

    /** A client the accept loop took: refused while another is served (after a short grace), else served. */
    private void accepted(AFUNIXSocket socket) {
        if (closed) {
            UnixAcceptLoop.closeQuietly(socket);
            return;
        }
        if (current != null && !awaitIdle()) {
            counters.clientRefused();
            String reason = "a second client connected while client #" + clients.begun() + " is served: closed"
                    + " at once (one client per socket; the first is unharmed)";
            LOG.warn("vfio-user {}: {}", path.getFileName(), reason);
            tell(() -> listener.clientRefused(reason));
            UnixAcceptLoop.closeQuietly(socket);
            return;
        }
        int n = clients.begin();
        String name = path.getFileName() + "#" + n;
        DeviceCalls calls = new DeviceCalls(device, owner, OWNER_TIMEOUT.toNanos());
        VfioUserConnection c = new VfioUserConnection(socket, name, device, calls, irqs, dma, counters,
                regionSizes, message, n, listener);
        LOG.info("vfio-user {}: client connected", name);
        current = c;
        Thread t = new Thread(() -> serve(c, n), "vfio-user " + name);
        t.setDaemon(true);
        currentThread = t;
        t.start();
    }

    /**
     * Waits up to {@link #BUSY_GRACE} for the client being served to finish leaving: a QEMU killed and started
     * again at once connects while the server is still releasing the old one (and resetting the device for the
     * new), and must not be refused for that. True when the server is idle.
     */
    private boolean awaitIdle() {
        try {
            // the client served is the last one begun: idle once it has ended
            return clients.awaitEnded(clients.begun(), BUSY_GRACE.toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void serve(VfioUserConnection c, int n) {
        try {
            tell(() -> listener.clientConnected(n));
            c.run();
        } finally {
            // before the next client can be accepted: a listener may reset the device for it
            tell(() -> listener.clientLeft(n, c.closeReason(), c.negotiated()));
            current = null;
            currentThread = null;
            clients.end();
        }
    }

    /** Stops accepting, closes the current client (releasing all it holds) and removes the socket file. */
    @Override
    public void close() {
        closed = true;
        // the accept loop is woken with a connection of its own and ends before the listening socket closes
        // (see UnixAcceptLoop); the socket file goes with it
        sockets.close();
        VfioUserConnection c = current;
        Thread t = currentThread;
        if (c != null) {
            c.stop();
        }
        if (t != null) {
            join(t);
        }
        irqs.closeAll();
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            LOG.debug("vfio-user {}: remove socket: {}", path, e.toString());
        }
        LOG.info("vfio-user {}: closed; {}", path.getFileName(), counters.summary());
    }

    private void tell(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.warn("vfio-user {}: the session listener failed: {}", path.getFileName(), e.toString());
        }
    }

    private static void join(Thread t) {
        try {
            t.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
