package dev.irdmaemu.bridge.e810;

import dev.irdmaemu.bridge.boot.GuestWire;
import dev.irdmaemu.bridge.boot.ModelLoop;
import dev.irdmaemu.bridge.vhost.FrameReceiver;
import dev.irdmaemu.bridge.vfiouser.DmaSpace;
import dev.irdmaemu.bridge.vfiouser.E810VfioUserFunction;
import dev.irdmaemu.bridge.vfiouser.VfioUserServer;
import dev.irdmaemu.bridge.vfiouser.VfioUserSessionListener;
import dev.irdmaemu.fw.pcap.FrameTap;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.E810PhysicalFunction;
import dev.irdmaemu.model.LatencyTable;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceSink;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One emulated E810 physical function served to a QEMU guest over vfio-user: the model ({@link
 * E810PhysicalFunction}: PCI function, ice firmware, RDMA block) on its own {@link ModelLoop} thread, paced against
 * the wall clock, doing DMA into the guest memory QEMU maps ({@link DmaSpace}, read-only windows out of reach), its
 * MSI-X messages written to the client's eventfds, and the {@link VfioUserServer} on {@code socket} (started before
 * QEMU, which connects at realize). Every guest access runs on the loop thread, so the model stays single-threaded.
 *
 * <p>The function's Ethernet port is a cable with two {@link FrameMailbox}es: what the E810 transmits (ice's LAN
 * rings, the RDMA block's ILQ and offloaded QPs) waits in one for the far end, and what the far end sends waits in
 * the other until this loop hands it to the port's receive side (the RDMA classifier, then ice's Rx rings). The far
 * end is a {@code HostedNode} given {@link #wire()}: it runs on its own loop, and each side only kicks the other.
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
    /** The cable: frames the E810 sent, for the far end; frames the far end sent, for the E810. */
    private final FrameMailbox fromE810 = new FrameMailbox(CABLE_SLOTS);
    private final FrameMailbox toE810 = new FrameMailbox(CABLE_SLOTS);
    private volatile Runnable farEndWakeup = () -> { };
    /** When cabled to another E810 ({@link #cable}): where this one's frames go instead of {@link #fromE810}. */
    private volatile E810Host peer;
    private volatile FrameTap cableTap = FrameTap.NONE;
    private final FrameReceiver intoPort;
    /** Frames per direction the cable holds: more than a full TCP window of MTU-sized segments. */
    static final int CABLE_SLOTS = 512;
    /** Frames handed to the port per loop round before timers and tasks run again. */
    static final int POLL_BUDGET = 64;

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
        this.intoPort = (store, offset, length) -> pf.rdma().port().receive(store, offset, length);
        pf.rdma().port().setTransmitter((store, offset, length) -> {
            E810Host p = peer;
            if (p != null) {
                cableTap.frame(scheduler.now(), store, offset, length);
                if (p.toE810.offer(store, offset, length)) {
                    p.loop.kick();
                }
            } else if (fromE810.offer(store, offset, length)) {
                farEndWakeup.run();
            }
        });
        this.loop = new ModelLoop(String.format("e810 %012x", mac), scheduler, System::nanoTime,
                () -> toE810.drain(intoPort, POLL_BUDGET) == POLL_BUDGET);
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

    /**
     * The far end of the function's Ethernet cable, as a {@code HostedNode} takes its guest's NIC: {@code toGuest}
     * sends a frame to the E810 (its port's receive side), {@code fromGuest} takes what the E810 transmitted. Both
     * are for the far end's own loop thread; the E810's loop is only kicked.
     */
    public GuestWire wire() {
        return new GuestWire() {
            @Override
            public boolean toGuest(BytesStore<?, ?> store, long offset, int length) {
                boolean sent = toE810.offer(store, offset, length);
                loop.kick();
                return sent;
            }

            @Override
            public int fromGuest(FrameReceiver receiver, int budget) {
                return fromE810.drain(receiver, budget);
            }

            @Override
            public void onKick(Runnable wakeup) {
                farEndWakeup = wakeup;
            }

            @Override
            public boolean linkUp() {
                return true;
            }
        };
    }

    /**
     * Joins {@code a}'s and {@code b}'s Ethernet ports with one cable (two guests, each with its own E810, on one
     * wire): what one transmits waits in the other's inbound mailbox for its loop. {@code tap} sees every frame once,
     * stamped with the sender's simulated time; it is called from both loops, so it is serialised here. Call before
     * the guests start.
     */
    public static void cable(E810Host a, E810Host b, FrameTap tap) {
        FrameTap serial = tap == null ? FrameTap.NONE : new FrameTap() {
            @Override
            public synchronized void frame(long timeNanos, BytesStore<?, ?> store, long offset, int length) {
                tap.frame(timeNanos, store, offset, length);
            }
        };
        a.cableTap = serial;
        b.cableTap = serial;
        a.peer = b;
        b.peer = a;
    }

    /** The cable's counts: frames each way and drops (full, oversize). */
    public String cableSummary() {
        E810Host p = peer;
        if (p != null) {
            return String.format("to the other E810 %d (dropped %d full, %d oversize), from it %d", p.toE810.frames(),
                    p.toE810.dropsFull(), p.toE810.dropsOversize(), toE810.frames());
        }
        return String.format("e810->peer %d (dropped %d full, %d oversize), peer->e810 %d (dropped %d full, %d "
                        + "oversize)", fromE810.frames(), fromE810.dropsFull(), fromE810.dropsOversize(),
                toE810.frames(), toE810.dropsFull(), toE810.dropsOversize());
    }

    /**
     * Stops the server and the loop; the cable's slots are freed last, once the far end is stopped too (close the
     * far end first: its loop may still be sending).
     */
    @Override
    public void close() {
        server.close();
        loop.close();
        farEndWakeup = () -> { };
        LOG.info("E810 host closed: {}; cable: {}", server.counters().summary(), cableSummary());
        fromE810.close();
        toE810.close();
    }
}
