package dev.irdmaemu.bridge.vfiouser;

import dev.irdmaemu.bridge.sock.UnixAcceptLoop;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.newsclub.net.unix.AFUNIXSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A vfio-user server for one PCI function on one UNIX socket path (QEMU's {@code vfio-user-pci} connects once, at
 * realize; several functions take one server and one socket each). One client at a time: a second one that
 * connects meanwhile is closed at once with a log line. A client that leaves, cleanly or for breaking the
 * protocol, takes its DMA windows and eventfds with it; the device keeps its state and the socket accepts the next
 * client (vfio-user.rst "Client Disconnection").
 *
 * <p>Device accesses run on the device's owner thread through {@code owner} ({@code ModelLoop::execute} under a
 * live model, {@code Runnable::run} to call the device on the connection thread), each waited for.
 */
public final class VfioUserServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(VfioUserServer.class);
    /** How long one device access may wait for the owner thread before the client is closed. */
    public static final Duration OWNER_TIMEOUT = Duration.ofSeconds(10);

    private final Path path;
    private final VfioUserFunction device;
    private final Executor owner;
    private final UnixAcceptLoop listener;
    private final IrqTable irqs;
    private final DmaSpace dma;
    private final VfioUserCounters counters = new VfioUserCounters();
    private final long[] regionSizes = new long[VfioUserConnection.NUM_REGIONS];
    /** The receive buffer, reused by each client in turn (one at a time). */
    private final byte[] message = new byte[VfioUserConnection.MAX_MESSAGE];
    private final AtomicInteger accepted = new AtomicInteger();
    private int finished;
    private volatile VfioUserConnection current;
    private volatile Thread currentThread;

    private VfioUserServer(Path path, VfioUserFunction device, Executor owner, DmaSpace dma) throws IOException {
        this.path = path;
        this.dma = dma;
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
        this.listener = UnixAcceptLoop.bind(path, "vfio-user");
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
        VfioUserServer s = new VfioUserServer(path, device, owner, dma);
        device.attach(s.irqs, s.dma);
        s.listener.start(s::accepted);
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
        return accepted.get();
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
    public synchronized boolean awaitClientsEnded(int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (finished < count) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000L));
        }
        return true;
    }

    /** A client the accept loop took: refused while another is connected, else served on a thread of its own. */
    private void accepted(AFUNIXSocket socket) {
        if (current != null) {
            counters.clientRefused();
            LOG.warn("vfio-user {}: refusing a second client while one is connected", path.getFileName());
            UnixAcceptLoop.closeQuietly(socket);
            return;
        }
        int n = accepted.incrementAndGet();
        String name = path.getFileName() + "#" + n;
        DeviceCalls calls = new DeviceCalls(device, owner, OWNER_TIMEOUT.toNanos());
        VfioUserConnection c = new VfioUserConnection(socket, name, device, calls, irqs, dma, counters,
                regionSizes, message);
        LOG.info("vfio-user {}: client connected", name);
        current = c;
        Thread t = new Thread(() -> serve(c), "vfio-user " + name);
        t.setDaemon(true);
        currentThread = t;
        t.start();
    }

    private void serve(VfioUserConnection c) {
        try {
            c.run();
        } finally {
            current = null;
            currentThread = null;
            synchronized (this) {
                finished++;
                notifyAll();
            }
        }
    }

    /** Stops accepting, closes the current client (releasing all it holds) and removes the socket file. */
    @Override
    public void close() {
        // The accept loop wakes its blocked accept() with a connection of its own and ends before the listening
        // socket closes (see UnixAcceptLoop); the socket file goes with it.
        listener.close();
        VfioUserConnection c = current;
        Thread t = currentThread;
        if (c != null) {
            c.stop();
        }
        if (t != null) {
            join(t);
        }
        irqs.closeAll();
        LOG.info("vfio-user {}: closed; {}", path.getFileName(), counters.summary());
    }

    private static void join(Thread t) {
        try {
            t.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
