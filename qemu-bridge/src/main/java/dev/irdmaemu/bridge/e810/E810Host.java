package dev.irdmaemu.bridge.e810;

import dev.irdmaemu.bridge.boot.ModelLoop;
import dev.irdmaemu.bridge.vfiouser.DmaSpace;
import dev.irdmaemu.bridge.vfiouser.E810VfioUserFunction;
import dev.irdmaemu.bridge.vfiouser.VfioUserServer;
import dev.irdmaemu.bridge.vfiouser.VfioUserSessionListener;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.E810PhysicalFunction;
import dev.irdmaemu.model.LatencyTable;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceSink;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One emulated E810 physical function served to a QEMU guest over vfio-user: the model ({@link
 * E810PhysicalFunction}: PCI function, ice firmware, RDMA block) on its own {@link ModelLoop} thread, paced against
 * the wall clock, doing DMA into the guest memory QEMU maps ({@link DmaSpace}, read-only windows out of reach), its
 * MSI-X messages written to the client's eventfds, and the {@link VfioUserServer} on {@code socket} (started before
 * QEMU, which connects at realize). Every guest access runs on the loop thread, so the model stays single-threaded.
 */
public final class E810Host implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(E810Host.class);

    private final SimScheduler scheduler;
    private final Trace trace;
    private final DmaSpace dma = new DmaSpace();
    private final E810PhysicalFunction pf;
    private final E810VfioUserFunction function;
    private final ModelLoop loop;
    private final VfioUserServer server;

    private E810Host(Path socket, int pfId, long mac, long seed, TraceSink traceSink,
                     VfioUserSessionListener sessions) throws IOException {
        this.scheduler = new SimScheduler(seed);
        this.trace = traceSink == null ? new Trace(scheduler) : new Trace(scheduler).enableAll(traceSink);
        AtomicReference<E810PhysicalFunction> built = new AtomicReference<>();
        this.function = new E810VfioUserFunction(msix -> {
            E810PhysicalFunction f = new E810PhysicalFunction(scheduler, dma.writable(), trace, new LatencyTable(),
                    pfId, mac, msix);
            built.set(f);
            return f.pci();
        });
        this.pf = built.get();
        this.loop = new ModelLoop(String.format("e810 %012x", mac), scheduler, System::nanoTime, () -> false);
        loop.start();
        try {
            this.server = VfioUserServer.start(socket, function, loop::execute, dma, sessions);
        } catch (IOException | RuntimeException e) {
            loop.close();
            throw e;
        }
        LOG.info("E810 PF {} (MAC {}) served over vfio-user at {}", pfId, String.format("%012x", mac), socket);
    }

    /**
     * Starts PF {@code pfId} with permanent MAC {@code mac} on a new vfio-user socket at {@code socket}; the trace
     * of every register access, AQ command and CQP op goes to {@code traceSink} (none if null).
     */
    public static E810Host start(Path socket, int pfId, long mac, long seed, TraceSink traceSink)
            throws IOException {
        return new E810Host(socket, pfId, mac, seed, traceSink, VfioUserSessionListener.NONE);
    }

    /** As above, {@code sessions} hearing each QEMU connect, reset the function, leave or be refused. */
    public static E810Host start(Path socket, int pfId, long mac, long seed, TraceSink traceSink,
                                 VfioUserSessionListener sessions) throws IOException {
        return new E810Host(socket, pfId, mac, seed, traceSink, sessions);
    }

    public VfioUserServer server() {
        return server;
    }

    public ModelLoop loop() {
        return loop;
    }

    /** The model; touch it only on the loop thread ({@link ModelLoop#call}). */
    public E810PhysicalFunction pf() {
        return pf;
    }

    public Trace trace() {
        return trace;
    }

    @Override
    public void close() {
        server.close();
        loop.close();
        LOG.info("E810 host closed: {}", server.counters().summary());
    }
}
