package dev.irdmaemu.cm.hw;

import dev.irdmaemu.cm.AhInfo;
import dev.irdmaemu.cm.AhResult;
import dev.irdmaemu.cm.CmHardwarePort;
import dev.irdmaemu.cm.CmNode;
import dev.irdmaemu.cm.FourTuple;
import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.cm.LocalAddress;
import dev.irdmaemu.driver.verbs.MpaOutcome;
import dev.irdmaemu.cm.NeighbourTable;
import dev.irdmaemu.cm.OffloadResult;
import dev.irdmaemu.cm.Qhash;
import dev.irdmaemu.driver.verbs.QpEvent;
import dev.irdmaemu.driver.verbs.TcpOffloadContext;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.iwarp.IwarpFrame;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.sim.SimTimer;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.FrameReceiver;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.fw.wire.LinkPort;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * A stand-in for the device behind {@link CmHardwarePort}, enough to run the CM between nodes on a {@link Link}:
 * the quad hash steers received frames to the CM (listener entries take SYNs, connection entries their
 * four-tuple); a QP created by {@link #offload} owns its four-tuple with a small offloaded TCP
 * ({@link OffloadedConnection}: sends the LSMM or the RTR, acknowledges, closes with FIN or RST, retransmits);
 * anything else goes to the "host stack", which answers as a TCP with no socket there: a reset (RFC 9293 §3.10.7.1).
 * It records every quad hash, accelerated-port and offload call so tests can see them.
 */
public final class InMemoryHardwarePort implements CmHardwarePort, FrameReceiver {
    private final SimScheduler scheduler;
    private final long mac;
    private final int mtu;
    private final int maxIrd;
    private final int maxOrd;
    private final List<LocalAddress> addresses;
    private final NeighbourTable neighbours;
    private LinkPort wire;
    private Receiver cm;

    private final Set<Qhash> qhash = new HashSet<>();
    private final HashMap<Integer, AhInfo> ahs = new HashMap<>();
    private int nextAh;
    /** AHs created without waiting whose completion has not run yet, in creation order, and its timer. */
    private final ArrayDeque<PendingAh> pendingAhs = new ArrayDeque<>();
    private final SimTimer ahCompletionTimer;
    private final SimTimer qhashCompletionTimer;
    private final ArrayDeque<PendingQhash> pendingQhash = new ArrayDeque<>();
    private boolean refuseAhCreates;
    private int ipIdentification;
    private long sendsWithoutAh;
    private final HashMap<FourTuple, Qhash> connectionEntries = new HashMap<>();
    private final HashMap<FourTuple, Qhash> listenerEntries = new HashMap<>();
    private final HashMap<FourTuple, OffloadedConnection> qpByQuad = new HashMap<>();
    private final HashMap<Integer, OffloadedConnection> qps = new HashMap<>();
    private final int[] acceleratedPorts = new int[65536];
    private final FourTuple probe = new FourTuple();
    private final TcpPacket rx = new TcpPacket();
    private final TcpPacketBuilder tx = new TcpPacketBuilder();
    private final BytesStore<?, ?> txBuffer = BytesStore.wrap(new byte[Link.MAX_FRAME]);
    // shared by the QPs: a segment is built and handed to the link (which copies it) in one go
    private final TcpPacketBuilder qpTx = new TcpPacketBuilder();
    private final BytesStore<?, ?> qpBuffer = BytesStore.wrap(new byte[Link.MAX_FRAME]);
    private final IwarpFrame iwarp = new IwarpFrame();
    private final List<String> log = new ArrayList<>();
    private final List<Offload> offloads = new ArrayList<>();
    private Offload lastOffload;
    private int nextQpn = 2;

    private long framesToCm;
    private long framesToQp;
    private long resetsFromHostStack;
    private long framesRefused;
    private long corruptedRefused;
    private long corruptedAccepted;
    private long corruptedUnprotectedAccepted;
    private boolean recordLog = true;
    private boolean rtsAe;
    private boolean muteQps;

    /** One {@link #offload} call as recorded. */
    public record Offload(int qpn, TcpOffloadContext tcp, MpaOutcome mpa) {
    }

    public InMemoryHardwarePort(SimScheduler scheduler, long mac, int mtu, int maxIrd, int maxOrd,
                                List<LocalAddress> addresses) {
        this.scheduler = scheduler;
        this.mac = mac;
        this.mtu = mtu;
        this.maxIrd = maxIrd;
        this.maxOrd = maxOrd;
        this.addresses = List.copyOf(addresses);
        this.neighbours = new NeighbourTable(mac, this.addresses);
        this.ahCompletionTimer = scheduler.newTimer("in-memory-ah-completions", this::completeAhs);
        this.qhashCompletionTimer = scheduler.newTimer("in-memory-qhash-completions", this::completeQhashAdds);
    }

    private record PendingAh(int ah, AhCompletion done) {
    }

    /** A port with MTU 1500 and IRD/ORD limits of 128. */
    public InMemoryHardwarePort(SimScheduler scheduler, long mac, List<LocalAddress> addresses) {
        this(scheduler, mac, 1500, 128, 128, addresses);
    }

    /** Plugs this device into {@code link}; its transmissions get {@code outbound} faults. */
    public InMemoryHardwarePort plugInto(Link link, FaultProfile outbound) {
        wire = link.attach(mac, outbound, this);
        return this;
    }

    /** A static neighbour entry (what ARP/ND would resolve). */
    public InMemoryHardwarePort addNeighbour(IpEndpoint address, long neighbourMac) {
        neighbours.add(address, neighbourMac);
        return this;
    }

    /** Makes two ports know each other's addresses. */
    public static void neighbours(InMemoryHardwarePort a, InMemoryHardwarePort b) {
        a.neighbours.addAll(b.addresses, b.mac);
        b.neighbours.addAll(a.addresses, a.mac);
    }

    /** Stop recording the call log and the offload history (for long runs). */
    public InMemoryHardwarePort quiet() {
        recordLog = false;
        return this;
    }

    // ---------------------------------------------------------------------------------------------- the port

    /**
     * Makes the port behave like a device with IRDMA_FEATURE_RTS_AE: the CM waits for {@link QpEvent#ESTABLISHED},
     * which a QP raises once its RTR is acknowledged (active side) or its LSMM is acknowledged and the peer's first
     * FPDU has arrived (passive side, the LSMM's wait-for-rcv-PDU).
     */
    public InMemoryHardwarePort withRtsAe() {
        this.rtsAe = true;
        return this;
    }

    /** The port's QPs send nothing from now on (a test of a peer that never sees the RTR or LSMM). */
    public InMemoryHardwarePort muteQps() {
        this.muteQps = true;
        return this;
    }

    @Override
    public boolean reportsEstablished() {
        return rtsAe;
    }

    boolean qpsMuted() {
        return muteQps;
    }

    @Override
    public void attach(Receiver receiver) {
        this.cm = receiver;
    }

    @Override
    public SimScheduler scheduler() {
        return scheduler;
    }

    @Override
    public long macAddress() {
        return mac;
    }

    @Override
    public int mtu() {
        return mtu;
    }

    @Override
    public int maxIrd() {
        return maxIrd;
    }

    @Override
    public int maxOrd() {
        return maxOrd;
    }

    @Override
    public List<LocalAddress> localAddresses() {
        return addresses;
    }

    @Override
    public OptionalLong neighbourMac(boolean ipv4, long remoteHi, long remoteLo) {
        return neighbours.resolve(ipv4, remoteHi, remoteLo);
    }

    @Override
    public AhResult createAh(AhInfo info) {
        int index = nextAh++;
        ahs.put(index, info);
        record("ah create " + index);
        return new AhResult.Created(index);
    }

    /**
     * The create is recorded now and answered at the current instant, after what is already due (the CQP's
     * completion); with {@link #refuseAhCreates} the answer is "not valid" and the AH does not exist.
     */
    @Override
    public AhResult createAh(AhInfo info, AhCompletion done) {
        int index = nextAh++;
        ahs.put(index, info);
        record("ah create " + index + " (no wait)");
        pendingAhs.add(new PendingAh(index, done));
        if (!ahCompletionTimer.isPending()) {
            ahCompletionTimer.scheduleIn(0);
        }
        return new AhResult.Created(index);
    }

    private void completeAhs() {
        while (!pendingAhs.isEmpty()) {
            PendingAh p = pendingAhs.poll();
            if (!ahs.containsKey(p.ah())) {
                continue;
            }
            boolean valid = !refuseAhCreates;
            if (!valid) {
                ahs.remove(p.ah());
            }
            record("ah " + (valid ? "valid " : "refused ") + p.ah());
            p.done().ahCreated(p.ah(), valid);
        }
    }

    /** Makes the device refuse (true) or take (false) the AHs created without waiting from now on. */
    public InMemoryHardwarePort refuseAhCreates(boolean refuse) {
        this.refuseAhCreates = refuse;
        return this;
    }

    /** AHs created without waiting whose completion has not come yet. */
    public int addressHandlesPending() {
        return pendingAhs.size();
    }

    @Override
    public void destroyAh(int ah) {
        if (ahs.remove(ah) != null) {
            record("ah destroy " + ah);
        }
    }

    /**
     * The device's part of a gen2 ILQ send: Ethernet, VLAN and IP from the AH, the TCP checksum, then the link.
     * Loopback frames travel the link too (back to this MAC), so they show in the capture. A send through an AH
     * that does not exist is refused and counted.
     */
    @Override
    public void transmit(int ah, BytesStore<?, ?> segment, long offset, int length, int tcpHeaderLength) {
        if (wire == null) {
            throw new IllegalStateException("port " + Long.toHexString(mac) + " is not plugged into a link");
        }
        AhInfo a = ahs.get(ah);
        if (a == null) {
            sendsWithoutAh++;
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
        return ahs.size();
    }

    /** ILQ sends naming an AH that does not exist. */
    public long sendsWithoutAh() {
        return sendsWithoutAh;
    }

    @Override
    public boolean addQhash(Qhash entry) {
        record("qhash add " + entry);
        if (!qhash.add(entry)) {
            return false;
        }
        FourTuple k = quadOf(entry);
        (entry.kind() == Qhash.Kind.CONNECTION ? connectionEntries : listenerEntries).put(k, entry);
        return true;
    }

    /**
     * Recorded now, executed and answered at the current instant after what is already due, as a posted CQP op
     * completes.
     */
    @Override
    public boolean addQhash(Qhash entry, QhashCompletion done) {
        record("qhash add " + entry + " (no wait)");
        pendingQhash.add(new PendingQhash(entry, done));
        if (!qhashCompletionTimer.isPending()) {
            qhashCompletionTimer.scheduleIn(0);
        }
        return true;
    }

    private void completeQhashAdds() {
        while (!pendingQhash.isEmpty()) {
            PendingQhash p = pendingQhash.poll();
            boolean added = qhash.add(p.entry());
            if (added) {
                FourTuple k = quadOf(p.entry());
                (p.entry().kind() == Qhash.Kind.CONNECTION ? connectionEntries : listenerEntries).put(k, p.entry());
            }
            record("qhash " + (added ? "added " : "refused ") + p.entry());
            p.done().qhashDone(added);
        }
    }

    private record PendingQhash(Qhash entry, QhashCompletion done) {
    }

    @Override
    public void deleteQhash(Qhash entry) {
        record("qhash delete " + entry);
        if (qhash.remove(entry)) {
            (entry.kind() == Qhash.Kind.CONNECTION ? connectionEntries : listenerEntries).remove(quadOf(entry));
        }
    }

    @Override
    public boolean addAcceleratedPort(int port) {
        record("apbvt add " + port);
        acceleratedPorts[port]++;
        return true;
    }

    @Override
    public void deleteAcceleratedPort(int port) {
        record("apbvt delete " + port);
        if (acceleratedPorts[port] > 0) {
            acceleratedPorts[port]--;
        }
    }

    @Override
    public OffloadResult offload(TcpOffloadContext tcp, MpaOutcome mpa) {
        int qpn = nextQpn++;
        record("offload qp " + qpn + " rev " + mpa.revision() + " ird " + mpa.ird() + " ord " + mpa.ord()
                + " rtr " + mpa.rtrType() + (mpa.sendsRtr() ? " (sends)" : "") + " lsmm " + mpa.lsmmLength() + "B");
        lastOffload = new Offload(qpn, tcp, mpa);
        if (recordLog) { // a quiet port keeps only the last one: a long run must not grow without bound
            offloads.add(lastOffload);
        }
        FourTuple k = new FourTuple().set(tcp.localHi(), tcp.localLo(), tcp.localPort(), tcp.remoteHi(), tcp.remoteLo(),
                tcp.remotePort(), tcp.insertVlanTag() ? tcp.vlanId() : CmNode.NO_VLAN);
        // the QP takes the four-tuple over from the ILQ's connection entry (cm.c then forgets qhash_set)
        Qhash superseded = connectionEntries.remove(k);
        if (superseded != null) {
            qhash.remove(superseded);
        }
        OffloadedConnection c = new OffloadedConnection(this, qpn, k, tcp, mpa);
        qpByQuad.put(k, c);
        qps.put(qpn, c);
        c.start();
        return new OffloadResult.Offloaded(qpn);
    }

    @Override
    public void closeQp(int qpn, boolean abortive) {
        record("close qp " + qpn + (abortive ? " abortive" : ""));
        OffloadedConnection c = qps.get(qpn);
        if (c != null) {
            c.close(abortive);
        }
    }

    @Override
    public void destroyQp(int qpn) {
        record("destroy qp " + qpn);
        OffloadedConnection c = qps.remove(qpn);
        if (c != null) {
            qpByQuad.remove(c.quad);
            c.destroy();
        }
    }

    // ---------------------------------------------------------------------------------------------- receive

    @Override
    public void receive(BytesStore<?, ?> store, long offset, int length) {
        int corruptedAt = wire == null ? -1 : wire.deliveringCorruptedAt();
        if (!rx.wrap(store, offset, length).validate().accepted()) {
            framesRefused++;
            if (corruptedAt >= 0) {
                corruptedRefused++;
            }
            return;
        }
        if (corruptedAt >= 0) {
            if (checksummed(corruptedAt)) {
                corruptedAccepted++;
            } else {
                corruptedUnprotectedAccepted++;
            }
        }
        TcpHeader tcp = rx.tcp();
        int tag = rx.vlanId();
        int vlan = tag < 0 ? CmNode.NO_VLAN : tag;
        probe.set(rx.destinationHi(), rx.destinationLo(), tcp.destinationPort(), rx.sourceHi(), rx.sourceLo(),
                tcp.sourcePort(), vlan);
        OffloadedConnection qp = qpByQuad.get(probe);
        if (qp != null) {
            framesToQp++;
            qp.segment(rx);
            return;
        }
        if (connectionEntries.containsKey(probe)) {
            framesToCm++;
            cm.receive(store, offset, length);
            return;
        }
        if (tcp.syn() && !tcp.ack()) {
            probe.set(rx.destinationHi(), rx.destinationLo(), tcp.destinationPort(), 0, 0, 0, vlan);
            if (listenerEntries.containsKey(probe)) {
                framesToCm++;
                cm.receive(store, offset, length);
                return;
            }
        }
        hostStackReset(tcp);
    }

    /**
     * Whether a byte of the validated frame is covered by a checksum: the IPv4 header (its header checksum), the
     * TCP segment, and the IPv6 fields in the TCP pseudo-header (payload length, next header, addresses). IPv6
     * has no header checksum (RFC 8200 §8.1): its traffic class, flow label and hop limit are protected only by
     * the link's FCS, which the simulated wire does not model.
     */
    private boolean checksummed(int at) {
        int ip = rx.ipOffset();
        if (at >= rx.tcpOffset()) {
            return true;
        }
        if (!rx.isIpv6()) {
            return at >= ip;
        }
        int rel = at - ip;
        return rel == 4 || rel == 5 || rel == 6 || rel >= 8;
    }

    /** No socket for the segment: answer with a reset, never to a reset (RFC 9293 §3.10.7.1). */
    private void hostStackReset(TcpHeader in) {
        if (in.rst()) {
            return;
        }
        resetsFromHostStack++;
        long seq;
        long ack;
        int flags;
        if (in.ack()) {
            seq = in.acknowledgmentNumber();
            ack = 0;
            flags = TcpHeader.RST;
        } else {
            seq = 0;
            ack = in.sequenceNumber() + rx.tcpPayloadLength() + (in.syn() ? 1 : 0) + (in.fin() ? 1 : 0);
            flags = TcpHeader.RST | TcpHeader.ACK;
        }
        long srcMac = rx.ethernet().source();
        tx.reset().ethernet(srcMac, mac);
        if (rx.vlanId() >= 0) {
            tx.vlan(rx.ethernet().pcp(), false, rx.vlanId());
        }
        tx.addresses(rx.destinationHi(), rx.destinationLo(), rx.sourceHi(), rx.sourceLo()).ttl(64);
        tx.tcp().reset().ports(in.destinationPort(), in.sourcePort()).sequenceNumber(seq).acknowledgmentNumber(ack)
                .flags(flags).window(0);
        int len = tx.build(txBuffer, 0);
        wire.transmit(txBuffer, 0, len);
    }

    TcpPacketBuilder segmentBuilder() {
        return qpTx;
    }

    BytesStore<?, ?> segmentBuffer() {
        return qpBuffer;
    }

    IwarpFrame iwarpWriter() {
        return iwarp;
    }

    void deliverQpEvent(int qpn, QpEvent event) {
        record("qp " + qpn + " " + event);
        cm.qpEvent(qpn, event);
    }

    void send(BytesStore<?, ?> frame, long offset, int length) {
        wire.transmit(frame, offset, length);
    }

    void record(String line) {
        if (recordLog) {
            log.add(scheduler.now() / 1000 + "us " + line);
        }
    }

    private static FourTuple quadOf(Qhash e) {
        return new FourTuple().set(e.localHi(), e.localLo(), e.localPort(), e.kind() == Qhash.Kind.CONNECTION ? e.remoteHi() : 0,
                e.kind() == Qhash.Kind.CONNECTION ? e.remoteLo() : 0,
                e.kind() == Qhash.Kind.CONNECTION ? e.remotePort() : 0, e.vlanId());
    }

    // ---------------------------------------------------------------------------------------------- observation

    /** FourTuple hash entries programmed now. */
    public Set<Qhash> qhashEntries() {
        return Collections.unmodifiableSet(new HashSet<>(qhash));
    }

    /** QPs that exist. */
    public int qpCount() {
        return qps.size();
    }

    public int acceleratedPortUse(int port) {
        return acceleratedPorts[port];
    }

    /** Ports with at least one accelerated-port (APBVT) reference programmed. */
    public int acceleratedPortsInUse() {
        int n = 0;
        for (int use : acceleratedPorts) {
            if (use != 0) {
                n++;
            }
        }
        return n;
    }

    /**
     * Steering the device holds for the ILQ and the QPs: connection and listener quad entries by four-tuple and
     * four-tuples steered to a QP. Each follows a {@link #qhashEntries} entry or a QP of {@link #qpCount}; a count
     * left above zero when those are empty is a leak of the device model itself.
     */
    public int steeringEntries() {
        return connectionEntries.size() + listenerEntries.size() + qpByQuad.size();
    }

    public List<Offload> offloads() {
        return Collections.unmodifiableList(offloads);
    }

    public Offload lastOffload() {
        return lastOffload;
    }

    public List<String> log() {
        return Collections.unmodifiableList(log);
    }

    public long framesToCm() {
        return framesToCm;
    }

    public long framesToQp() {
        return framesToQp;
    }

    public long resetsFromHostStack() {
        return resetsFromHostStack;
    }

    /** Frames that failed the Ethernet/IP/TCP checks at the device. */
    public long framesRefused() {
        return framesRefused;
    }

    /** Frames the link corrupted that the checks refused. */
    public long corruptedFramesRefused() {
        return corruptedRefused;
    }

    /** Frames the link corrupted in checksummed bytes that nevertheless passed the checks (must stay 0). */
    public long corruptedFramesAccepted() {
        return corruptedAccepted;
    }

    /**
     * Frames the link corrupted only in IPv6 header bytes no checksum covers (traffic class, flow label, hop
     * limit); accepted, as a real receiver would once the FCS matched.
     */
    public long corruptedUnprotectedFramesAccepted() {
        return corruptedUnprotectedAccepted;
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
