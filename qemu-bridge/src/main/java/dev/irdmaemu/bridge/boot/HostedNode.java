package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.bridge.lan.LanAddresses;
import dev.irdmaemu.bridge.lan.LanNetdevs;
import dev.irdmaemu.bridge.lan.LanResponder;
import dev.irdmaemu.bridge.lan.LanTag;
import dev.irdmaemu.cm.CmNode;
import dev.irdmaemu.cm.ConnectionManager;
import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.cm.LocalAddress;
import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.cm.driver.ModelHardwarePort;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.pcap.FrameTap;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.E810RdmaFunction;
import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.model.timing.WallClockPacer;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceSink;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One model node served to a live guest: host RAM, the {@link E810RdmaFunction} brought up by the cm module's
 * {@link IrdmaDriver} (as irdma's probe does), a {@link ModelHardwarePort} and a {@link ConnectionManager} on it,
 * as {@code bridge.model.ModelNode} assembles them; but its Ethernet port is the guest's NIC ({@link GuestWire},
 * the vhost-user port) instead of a simulated link, its LAN side is a {@link LanResponder} for its own addresses,
 * and it runs on one {@link ModelLoop} thread paced against the wall clock.
 *
 * <p>Addresses (documentation ranges): the node is {@value #MAC_TEXT}, 192.0.2.1/24 and 2001:db8::1/64; the guest
 * is {@value #GUEST_MAC_TEXT}, 192.0.2.2 and 2001:db8::2. The node learns the guest's MAC from its ARP and Neighbor
 * Discovery (the LAN responder) and hands it to the CM's neighbour resolution.
 *
 * <p>Every frame both ways goes through the {@link FrameTap} (a pcap), stamped with simulated time: the same clock
 * as the model's trace, and (paced) the wall time since the node started.
 *
 * <p>Threading: build it on any thread (the bring-up runs the scheduler there), then {@link #start()}; from then
 * on touch the model only on {@link #loop()}'s thread ({@link ModelLoop#execute}, {@link ModelLoop#submit}).
 */
public final class HostedNode implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HostedNode.class);

    public static final String MAC_TEXT = "02:00:00:00:00:01";
    public static final String GUEST_MAC_TEXT = "02:00:00:00:00:02";
    public static final long MAC = 0x02_00_00_00_00_01L;
    public static final long GUEST_MAC = 0x02_00_00_00_00_02L;
    public static final IpEndpoint V4 = IpEndpoint.of("192.0.2.1", 0);
    public static final IpEndpoint V6 = IpEndpoint.of("2001:db8::1", 0);
    public static final LanAddresses ADDRESSES = LanAddresses.of(MAC, V4, 24, V6, 64);
    public static final IpEndpoint GUEST_V4 = IpEndpoint.of("192.0.2.2", 0);
    public static final IpEndpoint GUEST_V6 = IpEndpoint.of("2001:db8::2", 0);
    /** Frames taken from the guest per poll before the loop looks at its timers and tasks again. */
    static final int POLL_BUDGET = 64;
    /** The node's host RAM (the driver's rings, contexts and buffers). */
    static final long RAM_BASE = 0x4000_0000L;
    static final long RAM_SIZE = 64L << 20;

    /**
     * The floor of the model's TCP retransmission timeout toward the guest, in milliseconds
     * ({@link LatencyTable#tcpRtoFloorNanos}); default {@value #DEFAULT_RTO_FLOOR_MS}, 0 for the context's 5 ms
     * alone. A TCG guest acknowledges in 5 to 30 ms on a loaded host, so the E810's floor retransmits spuriously and
     * collapses the window; 200 ms is Linux's TCP_RTO_MIN, the guest's own floor toward the model.
     */
    public static final String RTO_FLOOR_PROPERTY = "irdmaemu.tcp.rtoFloorMs";
    static final long DEFAULT_RTO_FLOOR_MS = 200;

    /** The model's device timings for a live guest: {@link #RTO_FLOOR_PROPERTY} read here. */
    static LatencyTable guestPacedLatency() {
        LatencyTable latency = new LatencyTable();
        long ms = Long.getLong(RTO_FLOOR_PROPERTY, DEFAULT_RTO_FLOOR_MS);
        latency.tcpRtoFloorNanos = Math.max(0, Math.min(ms, 60_000)) * 1_000_000L;
        return latency;
    }

    /** Told on the model thread whenever the node learns or relearns a neighbour's MAC. */
    @FunctionalInterface
    public interface NeighbourListener {
        void learned(IpEndpoint address, long mac);
    }

    public final SimScheduler scheduler;
    public final HostMemory memory = new HostMemory();
    public final HostRam ram;
    public final Trace trace;
    public final E810RdmaFunction device;
    public final IrdmaDriver driver;
    public final ModelHardwarePort port;
    public final ConnectionManager cm;
    public final LanResponder lan;
    private final GuestWire wire;
    private final ModelLoop loop;
    private final List<NeighbourListener> neighbourListeners = new ArrayList<>();
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
    private FrameTap tap;
    private long framesFromGuest;
    private long framesToGuest;
    private long framesToGuestDropped;
    private final int deviceQpsAtBringUp;
    private final int deviceCqsAtBringUp;
    private final MpaReplyProbe firstReplyProbe = new MpaReplyProbe();
    private long firstConnectionNanos = -1;
    /** Simulated time when the loop's pacing starts (the end of the bring-up). */
    private final long clockZero;

    /**
     * Builds and brings up the node (on the calling thread). {@code tap} gets every frame both ways ({@code
     * FrameTap.NONE}: none); {@code traceSink} gets the model's trace (null: off); {@code clock} paces the loop
     * ({@code System::nanoTime}, or a fake in tests).
     */
    public HostedNode(GuestWire wire, FrameTap tap, TraceSink traceSink, WallClockPacer.Clock clock) {
        this(wire, tap, traceSink, clock, NodeLink.PLAIN);
    }

    /** As above, the node's port on {@code link}: its MTU, and VLAN netdevs with addresses of their own. */
    public HostedNode(GuestWire wire, FrameTap tap, TraceSink traceSink, WallClockPacer.Clock clock, NodeLink link) {
        this.wire = wire;
        this.tap = tap == null ? FrameTap.NONE : tap;
        this.scheduler = new SimScheduler(1);
        this.trace = traceSink == null ? new Trace(scheduler) : new Trace(scheduler).enableAll(traceSink);
        this.ram = new HostRam(memory, RAM_BASE, RAM_SIZE);
        this.driver = new IrdmaDriver(ram, scheduler);
        this.device = new E810RdmaFunction(scheduler, memory, driver.interruptSink(), trace, guestPacedLatency());
        driver.bind(device);
        device.port().setTransmitter(this::toGuest);
        driver.bringUp();
        List<LocalAddress> local = new ArrayList<>(List.of(LocalAddress.of(V4, CmNode.NO_VLAN),
                LocalAddress.of(V6, CmNode.NO_VLAN)));
        for (NodeLink.VlanNetdev v : link.vlans()) {
            local.add(LocalAddress.of(v.v4(), v.tag().id()));
            local.add(LocalAddress.of(v.v6(), v.tag().id()));
        }
        this.port = new ModelHardwarePort(driver, MAC, link.mtu(), 128, 128, local);
        for (NodeLink.VlanNetdev v : link.vlans()) {
            int p = v.tag().pcp();
            port.egressQosMap(v.tag().id(), p, p, p, p, p, p, p, p); // egress-qos-map 0:P 1:P .. 7:P
        }
        this.cm = new ConnectionManager(port);
        this.lan = new LanResponder(ADDRESSES, this::toGuest, this::learned);
        if (link.vlans().isEmpty()) {
            device.port().setLanSink(lan);
        } else {
            List<LanResponder> netdevs = new ArrayList<>(List.of(lan));
            List<LanTag> tags = new ArrayList<>(List.of(LanTag.UNTAGGED));
            for (NodeLink.VlanNetdev v : link.vlans()) {
                netdevs.add(new LanResponder(v.addresses(MAC), v.tag(), this::toGuest, this::learned));
                tags.add(v.tag());
            }
            device.port().setLanSink(new LanNetdevs(netdevs, tags));
        }
        this.loop = new ModelLoop("model " + GUEST_MAC_TEXT, scheduler, clock, this::pollGuest, wire::flush);
        this.clockZero = scheduler.now();
        this.deviceQpsAtBringUp = device.qps().liveCount();
        this.deviceCqsAtBringUp = device.cqs().liveCount();
    }

    /** Starts the model thread and takes the guest's kicks. */
    public HostedNode start() {
        wire.onKick(loop::kick);
        wire.pacedBy(loop);
        loop.start();
        loop.kick(); // frames posted before the hand-over
        return this;
    }

    public ModelLoop loop() {
        return loop;
    }

    /** Model thread: call {@code l} for each neighbour learned from now on. */
    public void onNeighbour(NeighbourListener l) {
        neighbourListeners.add(l);
    }

    /**
     * Model thread: runs {@code then} once {@code address}'s MAC is known (rdma_resolve_addr's wait for the peer's
     * ARP or neighbour advertisement): now if it is, else when it is first learned. The port of {@code address}
     * plays no part.
     */
    public void whenNeighbourKnown(IpEndpoint address, Runnable then) {
        if (neighbour(address).isPresent()) {
            then.run();
            return;
        }
        boolean[] pending = {true};
        onNeighbour((learned, mac) -> {
            if (pending[0] && learned.ipv4() == address.ipv4() && learned.addressLo() == address.addressLo()
                    && learned.addressHi() == address.addressHi()) {
                pending[0] = false;
                then.run();
            }
        });
    }

    /** Model thread: the MAC learned for {@code address}, empty when none was. */
    public OptionalLong neighbour(IpEndpoint address) {
        return lan.neighbour(address.ipv4(), address.addressHi(), address.addressLo());
    }

    private void learned(boolean ipv4, long hi, long lo, long mac) {
        IpEndpoint a = new IpEndpoint(ipv4, hi, lo, 0);
        port.addNeighbour(a, mac);
        LOG.info("neighbour {} is {}", a, String.format("%012x", mac));
        for (NeighbourListener l : List.copyOf(neighbourListeners)) {
            l.learned(a, mac);
        }
    }

    private boolean pollGuest() {
        return wire.fromGuest(this::fromGuest, POLL_BUDGET) == POLL_BUDGET;
    }

    private void fromGuest(BytesStore<?, ?> store, long offset, int length) {
        framesFromGuest++;
        tap(store, offset, length);
        device.port().receive(store, offset, length);
    }

    private void toGuest(BytesStore<?, ?> store, long offset, int length) {
        framesToGuest++;
        tap(store, offset, length);
        if (!wire.toGuest(store, offset, length)) {
            framesToGuestDropped++;
        }
    }

    private void tap(BytesStore<?, ?> store, long offset, int length) {
        if (firstConnectionNanos < 0) {
            noteFirstConnection(store, offset, length);
        }
        try {
            tap.frame(scheduler.now(), store, offset, length);
        } catch (RuntimeException e) {
            // a full disk must not stop the model: the capture ends here, the run goes on
            LOG.error("the capture failed and is stopped: {}", e.toString());
            tap = FrameTap.NONE;
        }
    }

    /**
     * Until the first connection: is this frame an MPA reply that accepts (RFC 5044 §7.1: the key "MPA ID Rep
     * Frame", the R flag clear)? Its time is the first connection's. Only frames that look like one are validated
     * ({@link MpaReplyProbe}). Flyweights, nothing allocated.
     */
    private void noteFirstConnection(BytesStore<?, ?> store, long offset, int length) {
        if (firstReplyProbe.isAcceptingReply(store, offset, length)) {
            firstConnectionNanos = scheduler.now() - clockZero;
        }
    }

    /** Model thread: the node's counters now. */
    public NodeCounters counters() {
        return new NodeCounters(scheduler.now(), framesFromGuest, framesToGuest, framesToGuestDropped,
                device.port().rxDropped(), lan.frames(), lan.answered(), lan.malformed(), lan.neighbourCount(),
                cm.nodesCreated(), cm.nodesDestroyed(), cm.nodeCount(), cm.listenerCount(), cm.accepts(),
                cm.rejects(), cm.passiveErrors(), cm.connectErrors(), port.qpCount(), firstConnectionNanos,
                cm.listenerChildNodeCount(), port.verbs().qpsInUse(), port.verbs().cqsInUse(),
                port.verbs().mrsInUse(), device.qps().liveCount(), device.cqs().liveCount(),
                device.stags().liveCount(), device.quadHash().establishedCount(), deviceQpsAtBringUp,
                deviceCqsAtBringUp);
    }

    /** Stops the model thread (after the tasks already posted) and frees the host RAM. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        wire.onKick(null);
        loop.close();
        LOG.info("model loop, wall time: kick to poll {}; poll to the round's end {}", loop.kickToPoll().summary(),
                loop.pollToRoundEnd().summary());
        ram.close();
    }
}
