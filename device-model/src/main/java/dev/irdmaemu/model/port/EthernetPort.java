package dev.irdmaemu.model.port;

import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.pcap.FrameTap;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.sim.SimTimer;
import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.model.eq.AsyncEventQueue;
import dev.irdmaemu.model.qp.QpTable;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.stats.FunctionCounters;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The Ethernet port of the RDMA function. Receive ({@link #receive}, shaped like {@code fw.wire.FrameReceiver}):
 * every frame is tapped, parsed with {@link TcpPacket}, classified ({@link ReceiveClassifier}) and delivered:
 * <ul>
 *   <li>to a PUDA QP (the ILQ for listen entries, connection set-up and APBVT-only ports) as a CQE;</li>
 *   <li>to an offloaded iWARP QP with a running engine ({@link OffloadedPath}, the model.iwarp data path): its TCP,
 *       MPA, DDP and RDMAP take the segment; an iWARP QP without one (not yet in RTS, or gone to ERROR and reset)
 *       drops it;</li>
 *   <li>a quad-hash entry naming a QP that does not exist raises IRDMA_AE_AMP_BAD_QP (user.h) and drops;</li>
 *   <li>UDP to port 4791 for a unicast MAC to the RoCEv2 engine ({@link RoceSink}, attached by the function);</li>
 *   <li>everything else to the LAN sink.</li>
 * </ul>
 * Transmit ({@link #transmit}) taps and hands the frame to the {@link FrameTransmitter} (e.g. the wire's
 * LinkPort); a PUDA send through a loopback AH ({@link #loopback}) enters the receive FIFO as if it had come from
 * the wire, and is not transmitted. Allocation-free per frame.
 */
public final class EthernetPort implements PudaWire {
    private final SimScheduler scheduler;
    private final Trace trace;
    private final LatencyTable latency;
    private final ReceiveClassifier classifier;
    private final QpTable qps;
    private final AsyncEventQueue aeq;
    private final TcpPacket packet = new TcpPacket();
    /** The transmit side's view of a frame, for the counters (never the receive side's flyweight). */
    private final TcpPacket txPacket = new TcpPacket();
    private FunctionCounters counters = new FunctionCounters();
    private SegmentReceiver puda = SegmentReceiver.NONE;
    private RoceSink roce = RoceSink.NONE;
    private long rxRoce;
    private OffloadedPath dataPath;
    private FrameTransmitter transmitter = FrameTransmitter.NONE;
    private FrameTransmitter lanTransmitter = FrameTransmitter.NONE;
    private FrameTap tap = FrameTap.NONE;
    private LanSink lan = LanSink.NONE;

    private long rxFrames;
    private long rxLan;
    private long rxPuda;
    private long rxQp;
    private long rxBadQp;
    private long rxQpNotReady;
    private long rxDropped;
    private long txFrames;
    private long rxOverflow;

    /**
     * The receive FIFO: frames wait here for their classification time, in arrival order, each in one contiguous
     * run of a byte ring ({@link #RX_RING_BYTES}), so that a jumbo frame takes the room of four or five 2 KiB
     * frames rather than every slot being jumbo-sized. At most {@link #RX_SLOTS} frames wait.
     */
    public static final int RX_SLOTS = 256;
    /** Room of the FIFO's byte ring: {@link #RX_SLOTS} frames of 2 KiB. */
    public static final int RX_RING_BYTES = RX_SLOTS * 2048;
    /**
     * The largest frame the port takes (without its FCS): the E810's largest, 9728 bytes with the FCS, which ice
     * programs as the MAC's maximum frame size whatever the MTU (ice_adminq_cmd.h ICE_AQ_SET_MAC_FRAME_SIZE_MAX,
     * ice_common.c ice_aq_set_mac_cfg); the MTU is enforced per LAN queue (rxmax), not here. Longer frames are
     * dropped and counted ({@link #rxOverflow}).
     */
    public static final int MAX_FRAME = 9728 - 4;
    private final BytesStore<?, Void> rxBuffer = BytesStore.nativeStoreWithFixedCapacity(RX_RING_BYTES);
    private final int[] rxLength = new int[RX_SLOTS];
    private final int[] rxStart = new int[RX_SLOTS];
    private final long[] rxDue = new long[RX_SLOTS];
    private int rxHead;
    private int rxCount;
    /** Where in the ring the next frame goes, when it fits there. */
    private int rxWrite;
    private long lastDue;
    private final SimTimer rxTimer;
    private long txBytes;

    public EthernetPort(SimScheduler scheduler, Trace trace, LatencyTable latency, ReceiveClassifier classifier,
                        QpTable qps, AsyncEventQueue aeq) {
        this.scheduler = scheduler;
        this.trace = trace;
        this.latency = latency;
        this.classifier = classifier;
        this.qps = qps;
        this.aeq = aeq;
        this.rxTimer = scheduler.newTimer("port-rx", this::drainReceive);
    }

    public void attachPuda(SegmentReceiver queues) {
        this.puda = queues == null ? SegmentReceiver.NONE : queues;
    }

    /** The offloaded QPs' data path: frames classified to an iWARP QP with a running engine go there. */
    /** The function's statistics counters this port counts the RDMA block's packets into (Gather Stats). */
    public void attachCounters(FunctionCounters functionCounters) {
        this.counters = functionCounters;
    }

    /** The RoCEv2 engine: UDP 4791 frames to a unicast MAC go there ({@link RoceSteering}). */
    public void attachRoce(RoceSink sink) {
        this.roce = sink == null ? RoceSink.NONE : sink;
    }

    /** RoCEv2 frames the RoCE engine placed into a QP. */
    public long rxRoce() {
        return rxRoce;
    }

    public void attachDataPath(OffloadedPath path) {
        this.dataPath = path;
    }

    /** Where transmitted frames go: the RDMA block's and, until {@link #setLanTransmitter} says otherwise, the LAN's. */
    public void setTransmitter(FrameTransmitter t) {
        this.transmitter = t == null ? FrameTransmitter.NONE : t;
        this.lanTransmitter = transmitter;
    }

    /**
     * Where the LAN queues' frames ({@link #transmitLan}) go, when that is not where the RDMA block's go: the
     * adapter's switch tells the two sources apart (AdapterSwitch.Origin).
     */
    public void setLanTransmitter(FrameTransmitter t) {
        this.lanTransmitter = t == null ? FrameTransmitter.NONE : t;
    }

    public void setTap(FrameTap t) {
        this.tap = t == null ? FrameTap.NONE : t;
    }

    public void setLanSink(LanSink s) {
        this.lan = s == null ? LanSink.NONE : s;
    }

    /** Where transmitted frames go (kept across a function reset). */
    public FrameTransmitter transmitter() {
        return transmitter;
    }

    /** Where the LAN queues' frames go (kept across a function reset). */
    public FrameTransmitter lanTransmitter() {
        return lanTransmitter;
    }

    public FrameTap tap() {
        return tap;
    }

    public LanSink lanSink() {
        return lan;
    }

    /** Link speed in bits per second (used for serialisation time). */
    public void setLinkSpeed(long bitsPerSecond) {
        if (bitsPerSecond <= 0) {
            throw new IllegalArgumentException("link speed " + bitsPerSecond);
        }
        latency.linkBitsPerSecond = bitsPerSecond;
    }

    public long linkSpeed() {
        return latency.linkBitsPerSecond;
    }

    /** A frame from the wire (no FCS). The bytes are copied: the caller may reuse them when this returns. */
    public void receive(BytesStore<?, ?> store, long offset, int length) {
        rxFrames++;
        tap.frame(scheduler.now(), store, offset, length);
        TraceEvent t = trace.start(TraceKind.FRAME_RX);
        if (t != null) {
            t.num("len", length).num("queued", rxCount).bytes("hdr", store, offset, length).emit();
        }
        int at = length < 0 || length > MAX_FRAME || rxCount == RX_SLOTS ? -1 : ringPlace(length);
        if (at < 0) {
            rxOverflow++;
            rxDropped++;
            TraceEvent d = trace.start(TraceKind.PUDA_DROP);
            if (d != null) {
                d.text("reason", length > MAX_FRAME ? "FRAME_TOO_LONG" : "RX_FIFO_FULL").num("len", length)
                        .emit();
            }
            return;
        }
        int slot = (rxHead + rxCount) % RX_SLOTS;
        // A frame in a heap buffer is copied as an array: Chronicle copies a heap store into a native one eight
        // bytes and two interface calls at a time, an array eight bytes at a time without them. (The simulated
        // link's buffers are native, so its frames take one memory copy.)
        if (!store.isDirectMemory() && store.underlyingObject() instanceof byte[] array && store.start() == 0
                && offset >= 0 && offset + length <= array.length) {
            rxBuffer.write(at, array, (int) offset, length);
        } else {
            rxBuffer.write(at, store, offset, length);
        }
        rxStart[slot] = at;
        rxWrite = at + (length + 7 & ~7);
        rxLength[slot] = length;
        // Classification (quad-hash lookup) and the placement DMA cost time; frames leave the FIFO in order.
        long due = Math.max(scheduler.now() + latency.rxFrameNanos(length), lastDue);
        rxDue[slot] = due;
        lastDue = due;
        rxCount++;
        if (!rxTimer.isPending()) {
            rxTimer.scheduleAt(rxDue[rxHead]);
        }
    }

    /**
     * Where a frame of {@code length} bytes goes in the ring: after the newest frame, or at the ring's start when
     * it does not fit before the end; -1 when the frames waiting leave no contiguous room for it.
     */
    private int ringPlace(int length) {
        if (rxCount == 0) {
            return 0;
        }
        int oldest = rxStart[rxHead];
        if (rxWrite > oldest) {
            if (rxWrite + length <= RX_RING_BYTES) {
                return rxWrite;
            }
            return length <= oldest ? 0 : -1;
        }
        return rxWrite + length <= oldest ? rxWrite : -1;
    }

    private void drainReceive() {
        while (rxCount > 0 && rxDue[rxHead] <= scheduler.now()) {
            int slot = rxHead;
            rxHead = (rxHead + 1) % RX_SLOTS;
            rxCount--;
            process(rxBuffer, rxStart[slot], rxLength[slot]);
        }
        if (rxCount > 0) {
            rxTimer.scheduleAt(rxDue[rxHead]);
        } else {
            // Empty: start again at slot 0 and the ring's start, so the few bytes in use stay in the CPU's cache
            // instead of the next frame going further on, round half a megabyte (where a frame is is seen nowhere
            // else).
            rxHead = 0;
            rxWrite = 0;
        }
    }

    private void process(BytesStore<?, ?> store, long offset, int length) {
        if (roce.active() && RoceSteering.isRoce(store, offset, length)) {
            // a frame the RoCE engine drops is counted there, by its reason (RoceCounters)
            if (roce.receive(store, offset, length)) {
                rxRoce++;
            }
            return;
        }
        TcpPacket.Status st = packet.wrap(store, offset, length).validate();
        if (!st.accepted()) {
            toLan(store, offset, length, st.name());
            return;
        }
        ReceiveClassifier.Route route = classifier.classify(packet);
        int qpn = classifier.qpn();
        TraceEvent t = trace.start(TraceKind.CLASSIFY);
        if (t != null) {
            t.text("route", route.name()).num("qp", qpn).num("local_port", packet.tcp().destinationPort())
                    .num("remote_port", packet.tcp().sourcePort()).num("vlan", packet.vlanId())
                    .hex("flags", packet.tcp().flags()).emit();
        }
        switch (route) {
            case QP_ESTABLISHED, QP_LISTEN -> toQp(qpn);
            case APBVT -> toPuda(qps.get(QueuePair.ILQ_QP_ID));
            default -> toLan(store, offset, length, "no RDMA port");
        }
    }

    /** Frames received but not yet classified (the receive FIFO). */
    public int rxQueued() {
        return rxCount;
    }

    public long rxOverflow() {
        return rxOverflow;
    }


    private void toQp(int qpn) {
        QueuePair qp = qps.get(qpn);
        if (qp == null) {
            rxBadQp++;
            rxDropped++;
            aeq.post(0, qpn, AeCode.AMP_BAD_QP.code(), AeSource.RSVD, 0, 0, 0);
            return;
        }
        if (qp.role() != QueuePair.Role.IWARP) {
            toPuda(qp);
            return;
        }
        // The QP's offloaded TCP takes it from here: in-order bytes to the iWARP data path, out-of-order ones
        // reassembled (and copied to the IEQ), FIN / RST / retransmission limits raised as the LLP AEs.
        if (dataPath != null && dataPath.receive(qp, packet)) {
            rxQp++;
            counters.received(packet);
            qp.steered(packet.tcpPayloadLength());
            return;
        }
        rxQpNotReady++;
        rxDropped++;
        qp.dropped();
    }

    private void toPuda(QueuePair qp) {
        if (qp == null || puda == SegmentReceiver.NONE) {
            rxDropped++;
            TraceEvent t = trace.start(TraceKind.PUDA_DROP);
            if (t != null) {
                t.text("reason", "NO_PUDA_QP").emit();
            }
            return;
        }
        if (puda.receive(qp, packet)) {
            rxPuda++;
            counters.received(packet);
        } else {
            rxDropped++;
        }
    }

    private void toLan(BytesStore<?, ?> store, long offset, int length, String why) {
        rxLan++;
        TraceEvent t = trace.start(TraceKind.LAN);
        if (t != null) {
            t.num("len", length).text("why", why).emit();
        }
        lan.frame(store, offset, length);
    }

    @Override
    public long send(BytesStore<?, ?> store, long offset, int length) {
        return transmit(store, offset, length);
    }

    /** A PUDA frame through an AH with the loopback bit: into the own receive path, never onto the wire. */
    @Override
    public void loopback(BytesStore<?, ?> store, long offset, int length) {
        receive(store, offset, length);
    }

    /** Puts a frame of the RDMA block on the wire; answers its serialisation time in nanoseconds. */
    public long transmit(BytesStore<?, ?> store, long offset, int length) {
        if (txPacket.wrap(store, offset, length).validateStructure().accepted()) {
            counters.transmitted(txPacket);
        }
        tapTransmitted(store, offset, length);
        transmitter.transmit(store, offset, length);
        return latency.wireNanos(length);
    }

    /**
     * Puts a frame of the LAN queues (ice's Tx rings) on the wire: tapped and traced as the RDMA block's are, but not
     * counted among the RDMA block's packets (Gather Stats counts the protocol engine's traffic).
     */
    public void transmitLan(BytesStore<?, ?> store, long offset, int length) {
        tapTransmitted(store, offset, length);
        lanTransmitter.transmit(store, offset, length);
    }

    private void tapTransmitted(BytesStore<?, ?> store, long offset, int length) {
        txFrames++;
        txBytes += length;
        tap.frame(scheduler.now(), store, offset, length);
        TraceEvent t = trace.start(TraceKind.FRAME_TX);
        if (t != null) {
            t.num("len", length).bytes("hdr", store, offset, length).emit();
        }
    }

    public long rxFrames() {
        return rxFrames;
    }

    public long rxLan() {
        return rxLan;
    }

    public long rxPuda() {
        return rxPuda;
    }

    public long rxQp() {
        return rxQp;
    }

    /** Exception segments of offloaded connections (out of order, or ending inside an FPDU), the IEQ's share. */
    public long rxIeq() {
        return dataPath == null ? 0 : dataPath.exceptionSegments();
    }

    public long rxBadQp() {
        return rxBadQp;
    }

    public long rxQpNotReady() {
        return rxQpNotReady;
    }

    public long rxDropped() {
        return rxDropped;
    }

    public long txFrames() {
        return txFrames;
    }

    public long txBytes() {
        return txBytes;
    }
}
