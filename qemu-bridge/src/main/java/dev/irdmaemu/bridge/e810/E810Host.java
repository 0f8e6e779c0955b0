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
import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.model.pci.E810PciFunction;
import dev.irdmaemu.model.sw.AdapterSwitch;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceSink;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One emulated E810 adapter served to a QEMU guest over vfio-user: {@code N} physical functions (the model's {@link
 * E810PhysicalFunction}: PCI function, ice firmware, RDMA block; PF numbers 0..N-1, one Device Serial Number, as a
 * multi-port card presents them) on one {@link ModelLoop} thread, paced against the wall clock, each doing DMA into
 * the guest memory QEMU maps ({@link DmaSpace}, read-only windows out of reach), its MSI-X messages written to the
 * client's eventfds, and each served by its own {@link VfioUserServer} (started before QEMU, which connects at
 * realize). Every guest access runs on the loop thread, so the model stays single-threaded.
 *
 * <p>The functions share the adapter's embedded switch ({@link AdapterSwitch}): what one transmits to its own MAC or
 * to another function's goes back into the adapter as ice's VEB rules say, the rest leaves on the adapter's one
 * Ethernet cable. The cable is two {@link FrameMailbox}es: what the E810 transmits waits in one for the far end, and
 * what the far end sends waits in the other until this loop hands it to the switch. The far end is a {@code
 * HostedNode} given {@link #wire()} (on its own loop; each side only kicks the other), or another adapter ({@link
 * #cable}); either way the two loops keep their simulated time behind each other ({@link ModelLoop#keepBehind}),
 * so that neither's TCP timers expire on frames the other has not yet had the CPU to answer.
 */
public final class E810Host implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(E810Host.class);

    /** One physical function of the adapter: its model, its DMA space, its trace and its vfio-user server. */
    private record Function(E810PhysicalFunction pf, Trace trace, VfioUserServer server) {
    }

    private final SimScheduler scheduler;
    private final List<Function> functions = new ArrayList<>();
    private final AdapterSwitch fabric;
    private final ModelLoop loop;
    /** The cable: frames the E810 sent, for the far end; frames the far end sent, for the E810. */
    private final FrameMailbox fromE810 = new FrameMailbox(CABLE_SLOTS);
    private final FrameMailbox toE810 = new FrameMailbox(CABLE_SLOTS);
    private volatile Runnable farEndWakeup = () -> { };
    /** When cabled to another E810 ({@link #cable}): where this one's frames go instead of {@link #fromE810}. */
    private volatile E810Host peer;
    private volatile FrameTap cableTap = FrameTap.NONE;
    private final FrameReceiver intoSwitch;
    /** Frames per direction the cable holds: more than a full TCP window of MTU-sized segments. */
    static final int CABLE_SLOTS = 512;
    /** Frames handed to the port per loop round before timers and tasks run again. */
    static final int POLL_BUDGET = 64;

    /** What to serve: one function per socket, PF {@code i} with MAC {@code firstMac + i}. */
    private E810Host(List<Path> sockets, long firstMac, long seed, IntFunction<TraceSink> traceSinks,
                     IntFunction<VfioUserSessionListener> sessions) throws IOException {
        if (sockets.isEmpty() || sockets.size() > AdapterSwitch.MAX_FUNCTIONS) {
            throw new IllegalArgumentException("an E810 has 1.." + AdapterSwitch.MAX_FUNCTIONS + " functions: "
                    + sockets.size());
        }
        this.scheduler = new SimScheduler(seed);
        this.fabric = new AdapterSwitch(scheduler);
        long serialNumber = E810PciFunction.serialNumberFromMac(firstMac);
        List<DmaSpace> spaces = new ArrayList<>();
        List<E810VfioUserFunction> served = new ArrayList<>();
        for (int i = 0; i < sockets.size(); i++) {
            int pfId = i;
            long mac = firstMac + i;
            TraceSink sink = traceSinks.apply(i);
            Trace trace = sink == null ? new Trace(scheduler) : new Trace(scheduler).enableAll(sink);
            DmaSpace dma = new DmaSpace();
            AtomicReference<E810PhysicalFunction> built = new AtomicReference<>();
            served.add(new E810VfioUserFunction(msix -> {
                E810PhysicalFunction f = new E810PhysicalFunction(scheduler, dma.writable(), trace, new LatencyTable(),
                        pfId, mac, serialNumber, msix);
                built.set(f);
                return f.pci();
            }));
            built.get().attachTo(fabric);
            if (i > 0) {
                built.get().sameAdapterAs(functions.get(0).pf()); // core, global and EMP resets hit every PF
            }
            spaces.add(dma);
            functions.add(new Function(built.get(), trace, null));
        }
        fabric.trace(functions.get(0).trace());
        fabric.uplink((store, offset, length) -> {
            E810Host p = peer;
            if (p != null) {
                cableTap.frame(scheduler.now(), store, offset, length);
                if (p.toE810.offer(store, offset, length)) {
                    p.loop.kickFromFarEnd();
                }
            } else if (fromE810.offer(store, offset, length)) {
                farEndWakeup.run();
            }
        });
        this.intoSwitch = fabric::fromUplink;
        this.loop = new ModelLoop(String.format("e810 %012x", firstMac), scheduler, System::nanoTime,
                () -> toE810.drain(intoSwitch, POLL_BUDGET) == POLL_BUDGET);
        loop.start();
        try {
            for (int i = 0; i < sockets.size(); i++) {
                VfioUserServer server = VfioUserServer.start(sockets.get(i), served.get(i), loop::execute,
                        spaces.get(i), sessions.apply(i));
                Function f = functions.get(i);
                functions.set(i, new Function(f.pf(), f.trace(), server));
                LOG.info("E810 PF {} (MAC {}) served over vfio-user at {}", i, String.format("%012x", firstMac + i),
                        sockets.get(i));
            }
        } catch (IOException | RuntimeException e) {
            for (Function f : functions) {
                if (f.server() != null) {
                    f.server().close();
                }
            }
            loop.close();
            throw e;
        }
    }

    /**
     * Starts an adapter of one function, PF {@code pfId} with permanent MAC {@code mac}, on a new vfio-user socket at
     * {@code socket}; the trace of every register access, AQ command and CQP op goes to {@code traceSink} (none if
     * null).
     */
    public static E810Host start(Path socket, int pfId, long mac, long seed, TraceSink traceSink)
            throws IOException {
        return start(socket, pfId, mac, seed, traceSink, VfioUserSessionListener.NONE);
    }

    /** As above, {@code sessions} hearing each QEMU connect, reset the function, leave or be refused. */
    public static E810Host start(Path socket, int pfId, long mac, long seed, TraceSink traceSink,
                                 VfioUserSessionListener sessions) throws IOException {
        if (pfId != 0) {
            throw new IllegalArgumentException("a one-function adapter's function is PF 0: " + pfId);
        }
        return new E810Host(List.of(socket), mac, seed, i -> traceSink, i -> sessions);
    }

    /**
     * Starts an adapter of {@code sockets.size()} functions (1..8) on one switch and one cable: PF {@code i} on
     * {@code sockets.get(i)} with MAC {@code firstMac + i}, its trace to {@code traceSinks.apply(i)} (none if null) and
     * its sessions to {@code sessions.apply(i)}.
     */
    public static E810Host startAdapter(List<Path> sockets, long firstMac, long seed,
                                        IntFunction<TraceSink> traceSinks,
                                        IntFunction<VfioUserSessionListener> sessions) throws IOException {
        return new E810Host(List.copyOf(sockets), firstMac, seed, traceSinks, sessions);
    }

    /** Function 0's server. */
    public VfioUserServer server() {
        return server(0);
    }

    public VfioUserServer server(int function) {
        return functions.get(function).server();
    }

    public ModelLoop loop() {
        return loop;
    }

    /** Function 0's model; touch it only on the loop thread ({@link ModelLoop#call}). */
    public E810PhysicalFunction pf() {
        return pf(0);
    }

    public E810PhysicalFunction pf(int function) {
        return functions.get(function).pf();
    }

    /** Function 0's trace. */
    public Trace trace() {
        return trace(0);
    }

    public Trace trace(int function) {
        return functions.get(function).trace();
    }

    public int functions() {
        return functions.size();
    }

    /** The adapter's embedded switch; touch it only on the loop thread. */
    public AdapterSwitch adapterSwitch() {
        return fabric;
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
                loop.kickFromFarEnd();
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
            public void pacedBy(ModelLoop farEnd) {
                loop.keepBehind(farEnd);
                farEnd.keepBehind(loop);
                farEndWakeup = farEnd::kickFromFarEnd;
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
        a.loop.keepBehind(b.loop);
        b.loop.keepBehind(a.loop);
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
        for (Function f : functions) {
            f.server().close();
        }
        loop.close();
        farEndWakeup = () -> { };
        LOG.info("E810 host closed: {}; switch: {}; cable: {}", server().counters().summary(), fabric.counters(),
                cableSummary());
        fromE810.close();
        toE810.close();
    }
}
