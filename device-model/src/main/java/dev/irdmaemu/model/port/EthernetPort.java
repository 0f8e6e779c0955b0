package dev.irdmaemu.model.port;

import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.pcap.FrameTap;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.sim.SimTimer;
import dev.irdmaemu.model.LatencyTable;
import dev.irdmaemu.model.eq.AsyncEventQueue;
import dev.irdmaemu.model.puda.PudaQueues;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.qp.QpTable;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The Ethernet port of the RDMA function. Receive ({@link #receive}, shaped like {@code fw.wire.FrameReceiver}):
 * every frame is tapped, parsed with {@link TcpPacket}, classified ({@link ReceiveClassifier}) and delivered:
 * <ul>
 *   <li>to a PUDA QP (the ILQ for listen entries, connection set-up and APBVT-only ports) as a CQE;</li>
 *   <li>to an offloaded iWARP QP in RTS: in-order segments are counted on the QP (the data path is issue 5);
 *       out-of-order ones go to the IEQ, as the hardware hands them up; a RST or FIN raises
 *       IRDMA_AE_LLP_CONNECTION_RESET / IRDMA_AE_LLP_FIN_RECEIVED;</li>
 *   <li>a quad-hash entry naming a QP that does not exist raises IRDMA_AE_AMP_BAD_QP (user.h) and drops;</li>
 *   <li>everything else to the LAN sink.</li>
 * </ul>
 * Transmit ({@link #transmit}) taps and hands the frame to the {@link FrameTransmitter} (e.g. the wire's
 * LinkPort). Allocation-free per frame.
 */
public final class EthernetPort {
    private final SimScheduler scheduler;
    private final Trace trace;
    private final LatencyTable latency;
    private final ReceiveClassifier classifier;
    private final QpTable qps;
    private final AsyncEventQueue aeq;
    private final TcpPacket packet = new TcpPacket();
    private PudaQueues puda;
    private FrameTransmitter transmitter = FrameTransmitter.NONE;
    private FrameTap tap = FrameTap.NONE;
    private LanSink lan = LanSink.NONE;

    private long rxFrames;
    private long rxLan;
    private long rxPuda;
    private long rxQp;
    private long rxIeq;
    private long rxBadQp;
    private long rxQpNotReady;
    private long rxDropped;
    private long txFrames;
    private long rxOverflow;
    private long rxPartial;

    /** The receive FIFO: frames wait here for their classification time. Link.MAX_FRAME-sized slots. */
    public static final int RX_SLOTS = 256;
    public static final int RX_SLOT_BYTES = 2048;
    private final BytesStore<?, Void> rxBuffer = BytesStore.nativeStoreWithFixedCapacity((long) RX_SLOTS * RX_SLOT_BYTES);
    private final int[] rxLength = new int[RX_SLOTS];
    private final long[] rxDue = new long[RX_SLOTS];
    private int rxHead;
    private int rxCount;
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

    public void attachPuda(PudaQueues queues) {
        this.puda = queues;
    }

    public void setTransmitter(FrameTransmitter t) {
        this.transmitter = t == null ? FrameTransmitter.NONE : t;
    }

    public void setTap(FrameTap t) {
        this.tap = t == null ? FrameTap.NONE : t;
    }

    public void setLanSink(LanSink s) {
        this.lan = s == null ? LanSink.NONE : s;
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
            t.num("len", length).num("queued", rxCount).emit();
        }
        if (length < 0 || length > RX_SLOT_BYTES || rxCount == RX_SLOTS) {
            rxOverflow++;
            rxDropped++;
            TraceEvent d = trace.start(TraceKind.PUDA_DROP);
            if (d != null) {
                d.text("reason", length > RX_SLOT_BYTES ? "FRAME_TOO_LONG" : "RX_FIFO_FULL").num("len", length)
                        .emit();
            }
            return;
        }
        int slot = (rxHead + rxCount) % RX_SLOTS;
        rxBuffer.write((long) slot * RX_SLOT_BYTES, store, offset, length);
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

    private void drainReceive() {
        while (rxCount > 0 && rxDue[rxHead] <= scheduler.now()) {
            int slot = rxHead;
            rxHead = (rxHead + 1) % RX_SLOTS;
            rxCount--;
            process(rxBuffer, (long) slot * RX_SLOT_BYTES, rxLength[slot]);
        }
        if (rxCount > 0) {
            rxTimer.scheduleAt(rxDue[rxHead]);
        }
    }

    private void process(BytesStore<?, ?> store, long offset, int length) {
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

    /** In-order segments that were not whole FPDUs (handed to the IEQ). */
    public long rxPartial() {
        return rxPartial;
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
        if (qp.state() != QpState.RTS) {
            rxQpNotReady++;
            rxDropped++;
            qp.dropped();
            return;
        }
        int flags = packet.tcp().flags();
        if ((flags & (TcpHeader.RST | TcpHeader.FIN)) != 0) {
            // The offloaded TCP engine reports the peer's close to the driver (user.h IRDMA_AE_LLP_*); the
            // QP state itself moves only by Modify QP.
            boolean rst = (flags & TcpHeader.RST) != 0;
            aeq.post(qp.completionContext(), qp.id(),
                    rst ? AeCode.LLP_CONNECTION_RESET.code() : AeCode.LLP_FIN_RECEIVED.code(), AeSource.RQ,
                    qp.state().code(), rst ? TCP_STATE_CLOSED : TCP_STATE_CLOSE_WAIT, 0);
            if (rst) {
                rxQp++;
                qp.steered(0);
                return;
            }
        }
        long seq = packet.tcp().sequenceNumber();
        long payload = packet.tcpPayloadLength();
        if ((int) seq != (int) qp.rcvNxt()) {
            rxIeq++;
            toPuda(qps.get(QueuePair.IEQ_QP_ID));
            return;
        }
        qps.advanceReceive(qp, payload);
        if (payload > 0 && qp.mpaCrc() >= 0 && !wholeFpdus(packet.store(), packet.offset() + packet.tcpPayloadOffset(),
                payload, qp.mpaCrc() == 1)) {
            // In order at the TCP level but not a whole number of FPDUs: the hardware cannot place it and hands
            // the segment up to the IEQ (puda.c irdma_ieq_process_fpdus reassembles partial FPDUs).
            rxIeq++;
            rxPartial++;
            toPuda(qps.get(QueuePair.IEQ_QP_ID));
            return;
        }
        rxQp++;
        qp.steered(payload);
    }

    /**
     * Whether {@code length} bytes of TCP payload are a whole number of MPA FPDUs (RFC 5044 §4: a 2-byte ULPDU
     * length, the ULPDU, padding to a 4-byte boundary, and a 4-byte CRC unless MPA CRC is off; no markers).
     */
    static boolean wholeFpdus(BytesStore<?, ?> s, long at, long length, boolean crc) {
        long off = 0;
        while (off + 2 <= length) {
            int ulpdu = s.readUnsignedByte(at + off) << 8 | s.readUnsignedByte(at + off + 1);
            long fpdu = (2L + ulpdu + 3) & ~3L;
            off += fpdu + (crc ? 4 : 0);
        }
        return off == length;
    }

    /** defs.h IRDMA_TCP_STATE_CLOSED / IRDMA_TCP_STATE_CLOSE_WAIT. */
    private static final int TCP_STATE_CLOSED = 1;
    private static final int TCP_STATE_CLOSE_WAIT = 6;

    private void toPuda(QueuePair qp) {
        if (qp == null || puda == null) {
            rxDropped++;
            TraceEvent t = trace.start(TraceKind.PUDA_DROP);
            if (t != null) {
                t.text("reason", "NO_PUDA_QP").emit();
            }
            return;
        }
        if (puda.receive(qp, packet)) {
            rxPuda++;
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

    /** Puts a frame on the wire; answers its serialisation time in nanoseconds. */
    public long transmit(BytesStore<?, ?> store, long offset, int length) {
        txFrames++;
        txBytes += length;
        tap.frame(scheduler.now(), store, offset, length);
        TraceEvent t = trace.start(TraceKind.FRAME_TX);
        if (t != null) {
            t.num("len", length).emit();
        }
        transmitter.transmit(store, offset, length);
        return latency.wireNanos(length);
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

    public long rxIeq() {
        return rxIeq;
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
