package dev.irdmaemu.cm.hw;

import dev.irdmaemu.cm.AbstractHardwarePort;
import dev.irdmaemu.cm.AhInfo;
import dev.irdmaemu.cm.AhResult;
import dev.irdmaemu.cm.CmHardwarePort;
import dev.irdmaemu.cm.CmNode;
import dev.irdmaemu.cm.FourTuple;
import dev.irdmaemu.cm.LocalAddress;
import dev.irdmaemu.cm.OffloadResult;
import dev.irdmaemu.cm.Qhash;
import dev.irdmaemu.driver.verbs.MpaOutcome;
import dev.irdmaemu.driver.verbs.QpEvent;
import dev.irdmaemu.driver.verbs.TcpOffloadContext;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.FrameReceiver;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.fw.wire.LinkPort;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Set;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * A stand-in for the device behind {@link CmHardwarePort}, enough to run the CM between nodes on a {@link Link}:
 * the quad hash steers received frames to the CM (listener entries take SYNs, connection entries their
 * four-tuple); a QP created by {@link #offload} owns its four-tuple with a small offloaded TCP
 * ({@link OffloadedConnection}: sends the LSMM or the RTR, acknowledges, closes with FIN or RST, retransmits);
 * anything else goes to the "host stack", which answers as a TCP with no socket there: a reset (RFC 9293 §3.10.7.1).
 * It records every quad hash, accelerated-port and offload call so tests can see them.
 *
 * <p>Its parts: {@link AddressHandleTable} (address handles), {@link SteeringTable} (quad hash, QPs' four-tuples,
 * accelerated ports), {@link FrameChecks} (receive checks), {@link HostStack} (the resets), {@link OffloadEngine}
 * (what the QPs use) and {@link CallLog} (the record); the identity and neighbours are
 * {@link AbstractHardwarePort}'s.
 */
public final class InMemoryHardwarePort extends AbstractHardwarePort<InMemoryHardwarePort>
        implements FrameReceiver {
    private LinkPort wire;
    private final CallLog log;
    private final AddressHandleTable ahs;
    private final SteeringTable steering;
    private final FrameChecks checks = new FrameChecks();
    private final HostStack hostStack;
    private final OffloadEngine engine;
    private int ipIdentification;
    private final HashMap<Integer, OffloadedConnection> qps = new HashMap<>();
    private final FourTuple probe = new FourTuple();
    private final TcpPacket rx = new TcpPacket();
    private final TcpPacketBuilder tx = new TcpPacketBuilder();
    private final BytesStore<?, ?> txBuffer = BytesStore.wrap(new byte[Link.MAX_FRAME]);
    private final List<Offload> offloads = new ArrayList<>();
    private Offload lastOffload;
    private int nextQpn = 2;
    private long framesToCm;
    private long framesToQp;

    /** One {@link #offload} call as recorded. */
    public record Offload(int qpn, TcpOffloadContext tcp, MpaOutcome mpa) {
    }

    public InMemoryHardwarePort(SimScheduler scheduler, long mac, int mtu, int maxIrd, int maxOrd,
                                List<LocalAddress> addresses) {
        super(scheduler, mac, mtu, maxIrd, maxOrd, addresses);
        this.log = new CallLog(scheduler);
        this.ahs = new AddressHandleTable(scheduler, log);
        this.steering = new SteeringTable(scheduler, log);
        this.hostStack = new HostStack(mac, tx, txBuffer);
        this.engine = new OffloadEngine(scheduler, log, upstream());
    }

    /** A port with MTU 1500 and IRD/ORD limits of 128. */
    public InMemoryHardwarePort(SimScheduler scheduler, long mac, List<LocalAddress> addresses) {
        this(scheduler, mac, 1500, 128, 128, addresses);
    }

    /** Plugs this device into {@code link}; its transmissions get {@code outbound} faults. */
    public InMemoryHardwarePort plugInto(Link link, FaultProfile outbound) {
        wire = link.attach(macAddress(), outbound, this);
        engine.plug(wire);
        return this;
    }

    /** Stop recording the call log and the offload history (for long runs). */
    public InMemoryHardwarePort quiet() {
        log.quiet();
        return this;
    }

    // ---------------------------------------------------------------------------------------------- the port

    /**
     * Makes the port behave like a device with IRDMA_FEATURE_RTS_AE: the CM waits for {@link QpEvent#ESTABLISHED},
     * which a QP raises once its RTR is acknowledged (active side) or its LSMM is acknowledged and the peer's first
     * FPDU has arrived (passive side, the LSMM's wait-for-rcv-PDU).
     */
    public InMemoryHardwarePort withRtsAe() {
        engine.raiseRtsAe();
        return this;
    }

    /** The port's QPs send nothing from now on (a test of a peer that never sees the RTR or LSMM). */
    public InMemoryHardwarePort muteQps() {
        engine.mute();
        return this;
    }

    @Override
    public boolean reportsEstablished() {
        return engine.reportsEstablished();
    }

    @Override
    public AhResult createAh(AhInfo info) {
        return ahs.create(info);
    }

    /**
     * The create is recorded now and answered at the current instant, after what is already due (the CQP's
     * completion); with {@link #refuseAhCreates} the answer is "not valid" and the AH does not exist.
     */
    @Override
    public AhResult createAh(AhInfo info, AhCompletion done) {
        return ahs.createNoWait(info, done);
    }

    /** Makes the device refuse (true) or take (false) the AHs created without waiting from now on. */
    public InMemoryHardwarePort refuseAhCreates(boolean refuse) {
        ahs.refuse(refuse);
        return this;
    }

    /** AHs created without waiting whose completion has not come yet. */
    public int addressHandlesPending() {
        return ahs.pending();
    }

    @Override
    public void destroyAh(int ah) {
        ahs.destroy(ah);
    }

    /**
     * The device's part of a gen2 ILQ send: Ethernet, VLAN and IP from the AH, the TCP checksum, then the link.
     * Loopback frames travel the link too (back to this MAC), so they show in the capture. A send through an AH
     * that does not exist is refused and counted.
     */
    @Override
    public void transmit(int ah, BytesStore<?, ?> segment, long offset, int length, int tcpHeaderLength) {
        if (wire == null) {
            throw new IllegalStateException("port " + Long.toHexString(macAddress()) + " is not plugged into a link");
        }
        AhInfo a = ahs.forSend(ah);
        if (a == null) {
            return;
        }
        tx.reset().ethernet(a.remoteMac(), a.localMac());
        if (a.insertVlanTag()) {
            tx.vlan(a.userPriority() & 7, false, a.vlanId());
        }
        tx.addresses(a.localHi(), a.localLo(), a.remoteHi(), a.remoteLo()).tos(a.tos()).ttl(a.hopLimit())
                .dontFragment(true);
        if (a.ipv4()) {
            ipIdentification = ipIdentification + 1 & 0xffff;
            tx.identification(ipIdentification);
        }
        int len = tx.encapsulate(txBuffer, 0, segment, offset, length);
        wire.transmit(txBuffer, 0, len);
    }

    /** Address handles that exist. */
    public int addressHandles() {
        return ahs.count();
    }

    /** ILQ sends naming an AH that does not exist. */
    public long sendsWithoutAh() {
        return ahs.sendsWithoutAh();
    }

    @Override
    public boolean addQhash(Qhash entry) {
        return steering.add(entry);
    }

    /**
     * Recorded now, executed and answered at the current instant after what is already due, as a posted CQP op
     * completes.
     */
    @Override
    public boolean addQhash(Qhash entry, QhashCompletion done) {
        return steering.addNoWait(entry, done);
    }

    @Override
    public void deleteQhash(Qhash entry) {
        steering.delete(entry);
    }

    @Override
    public boolean addAcceleratedPort(int port) {
        return steering.addAcceleratedPort(port);
    }

    @Override
    public void deleteAcceleratedPort(int port) {
        steering.deleteAcceleratedPort(port);
    }

    @Override
    public OffloadResult offload(TcpOffloadContext tcp, MpaOutcome mpa) {
        int qpn = nextQpn++;
        log.record("offload qp " + qpn + " rev " + mpa.revision() + " ird " + mpa.ird() + " ord " + mpa.ord()
                + " rtr " + mpa.rtrType() + (mpa.sendsRtr() ? " (sends)" : "") + " lsmm " + mpa.lsmmLength() + "B");
        lastOffload = new Offload(qpn, tcp, mpa);
        if (log.recording()) { // a quiet port keeps only the last one: a long run must not grow without bound
            offloads.add(lastOffload);
        }
        FourTuple k = new FourTuple().set(tcp.localHi(), tcp.localLo(), tcp.localPort(), tcp.remoteHi(), tcp.remoteLo(),
                tcp.remotePort(), tcp.insertVlanTag() ? tcp.vlanId() : CmNode.NO_VLAN);
        OffloadedConnection c = new OffloadedConnection(engine, qpn, k, tcp, mpa);
        // the QP takes the four-tuple over from the ILQ's connection entry (cm.c then forgets qhash_set)
        steering.takeOver(k, c);
        qps.put(qpn, c);
        c.start();
        return new OffloadResult.Offloaded(qpn);
    }

    @Override
    public void closeQp(int qpn, boolean abortive) {
        log.record("close qp " + qpn + (abortive ? " abortive" : ""));
        OffloadedConnection c = qps.get(qpn);
        if (c != null) {
            c.close(abortive);
        }
    }

    @Override
    public void destroyQp(int qpn) {
        log.record("destroy qp " + qpn);
        OffloadedConnection c = qps.remove(qpn);
        if (c != null) {
            steering.release(c.quad);
            c.destroy();
        }
    }

    // ---------------------------------------------------------------------------------------------- receive

    /** A frame from the link: checked, then steered to a QP, the CM, or the host stack. Allocates nothing. */
    @Override
    public void receive(BytesStore<?, ?> store, long offset, int length) {
        if (!checks.accept(rx, store, offset, length, wire)) {
            return;
        }
        TcpHeader tcp = rx.tcp();
        int tag = rx.vlanId();
        int vlan = tag < 0 ? CmNode.NO_VLAN : tag;
        probe.set(rx.destinationHi(), rx.destinationLo(), tcp.destinationPort(), rx.sourceHi(), rx.sourceLo(),
                tcp.sourcePort(), vlan);
        if (steering.toQp(probe, rx)) {
            framesToQp++;
            return;
        }
        if (steering.connectionEntry(probe)) {
            framesToCm++;
            upstream().receive(store, offset, length);
            return;
        }
        if (tcp.syn() && !tcp.ack()) {
            probe.set(rx.destinationHi(), rx.destinationLo(), tcp.destinationPort(), 0, 0, 0, vlan);
            if (steering.listenerEntry(probe)) {
                framesToCm++;
                upstream().receive(store, offset, length);
                return;
            }
        }
        hostStack.answer(rx, wire);
    }

    // ---------------------------------------------------------------------------------------------- observation

    /** FourTuple hash entries programmed now. */
    public Set<Qhash> qhashEntries() {
        return steering.entries();
    }

    /** QPs that exist. */
    public int qpCount() {
        return qps.size();
    }

    public int acceleratedPortUse(int port) {
        return steering.acceleratedPortUse(port);
    }

    /** Ports with at least one accelerated-port (APBVT) reference programmed. */
    public int acceleratedPortsInUse() {
        return steering.acceleratedPortsInUse();
    }

    /**
     * Steering the device holds for the ILQ and the QPs: connection and listener quad entries by four-tuple and
     * four-tuples steered to a QP. Each follows a {@link #qhashEntries} entry or a QP of {@link #qpCount}; a count
     * left above zero when those are empty is a leak of the device model itself.
     */
    public int steeringEntries() {
        return steering.size();
    }

    public List<Offload> offloads() {
        return Collections.unmodifiableList(offloads);
    }

    public Offload lastOffload() {
        return lastOffload;
    }

    public List<String> log() {
        return log.lines();
    }

    public long framesToCm() {
        return framesToCm;
    }

    public long framesToQp() {
        return framesToQp;
    }

    public long resetsFromHostStack() {
        return hostStack.resets();
    }

    /** Frames that failed the Ethernet/IP/TCP checks at the device. */
    public long framesRefused() {
        return checks.refused();
    }

    /** Frames the link corrupted that the checks refused. */
    public long corruptedFramesRefused() {
        return checks.corruptedRefused();
    }

    /** Frames the link corrupted in checksummed bytes that nevertheless passed the checks (must stay 0). */
    public long corruptedFramesAccepted() {
        return checks.corruptedAccepted();
    }

    /**
     * Frames the link corrupted only in IPv6 header bytes no checksum covers (traffic class, flow label, hop
     * limit); accepted, as a real receiver would once the FCS matched.
     */
    public long corruptedUnprotectedFramesAccepted() {
        return checks.corruptedUnprotectedAccepted();
    }

    /** Timers of offloaded connections still armed (part of the scheduler's pending timers). */
    public int pendingQpTimers() {
        int n = 0;
        for (OffloadedConnection c : qps.values()) {
            n += c.pendingTimers();
        }
        return n;
    }
}
