package dev.irdmaemu.cm.driver;

import dev.irdmaemu.cm.CmHardwarePort;
import dev.irdmaemu.cm.CmNode;
import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.cm.LocalAddress;
import dev.irdmaemu.cm.MpaOutcome;
import dev.irdmaemu.cm.Qhash;
import dev.irdmaemu.cm.QpEvent;
import dev.irdmaemu.cm.Rdma0;
import dev.irdmaemu.cm.TcpOffloadContext;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.QpOpFields;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.iwarp.IwarpFrame;
import dev.irdmaemu.fw.iwarp.RdmapOpcode;
import dev.irdmaemu.fw.qp.IwarpOffloadInfo;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.fw.qp.QpHostContextInfo;
import dev.irdmaemu.fw.qp.QpResources;
import dev.irdmaemu.fw.qp.TcpOffloadInfo;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.sim.SimTimer;
import dev.irdmaemu.fw.wire.Link;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link CmHardwarePort} on the device model, through an {@link IrdmaDriver}: frames the quad hash steers to the
 * ILQ go up to the CM (and the buffer is reposted), the CM's frames go out as ILQ sends, quad-hash / APBVT / ARP
 * changes are CQP ops, and {@link #offload} creates an iWARP QP whose HMC context carries the CM's TCP state and
 * MPA outcome (irdma cm.c irdma_cm_init_tsa_conn + verbs.c irdma_modify_qp to RTS), then points the connection's
 * four-tuple at it. AEs of offloaded QPs become {@link QpEvent}s.
 *
 * <p>Until issue 5 gives the model an iWARP data path, the port itself puts on the wire, through the ILQ SQ, the
 * segments the QP's TCP engine would send: the passive side's LSMM (the MPA reply), the active side's RTR, the
 * ACK of the peer's FIN, and the FIN or RST of {@link #closeQp}. It cannot see acknowledgements (they are steered
 * to the QP, which only counts them), so it does not retransmit, and reports {@link QpEvent#CLOSE_COMPLETE} once
 * both FINs have been exchanged. A graceful close leaves the model's QP in RTS, so that the peer's FIN still
 * reaches its TCP engine and raises IRDMA_AE_LLP_FIN_RECEIVED. Issue 5 replaces all of this.
 */
public final class ModelHardwarePort implements CmHardwarePort, IrdmaDriver.Upcalls {
    private static final Logger LOG = LoggerFactory.getLogger(ModelHardwarePort.class);

    /** The CQ every offloaded QP completes to (ids 0..2 are the CCQ, ILQ and IEQ CQs). */
    public static final int IWARP_CQ = 3;
    static final int IWARP_CQ_ENTRIES = 256;
    /** First QP id the port hands out (0 is reserved, 1 / 2 are the ILQ / IEQ; hw.c irdma_initialize_hw_rsrc). */
    public static final int FIRST_QP = 3;
    /** defs.h IRDMA_QP_TYPE_IWARP and IRDMA_QP_STATE_* values the Create / Modify QP WQEs carry. */
    static final int QP_TYPE_IWARP = 1;
    static final int QP_STATE_IDLE = 1;
    static final int QP_STATE_RTS = 2;
    static final int QP_STATE_ERROR = 6;
    /** defs.h IRDMA_TCP_STATE_ESTABLISHED. */
    static final int TCP_STATE_ESTABLISHED = 5;
    /** Bytes of host memory per QP for its SQ + RQ rings (QpResources hw sizes 2: 512 bytes each). */
    static final int QP_RING_BYTES = 1024;
    static final int QP_HW_QUEUE_SIZE = 2;

    private final IrdmaDriver driver;
    private final SimScheduler scheduler;
    private final long mac;
    private final int mtu;
    private final int maxIrd;
    private final int maxOrd;
    private final List<LocalAddress> addresses;
    private final HashMap<Key, Long> neighbours = new HashMap<>();
    private final HashMap<Long, Integer> arpIndex = new HashMap<>();
    private int nextArpIndex;
    private Receiver cm;

    /** The CM's connection entries (to the ILQ) by four-tuple; an offload takes its entry over. */
    private final HashMap<Quad, Qhash> cmConnectionEntries = new HashMap<>();
    private final int[] apbvtUse = new int[65536];
    private final Conn[] qps;
    private final long[] qpContexts;
    private final long[] qpRings;
    private final ArrayDeque<Integer> freeQps = new ArrayDeque<>();
    private boolean iwarpCqCreated;

    private final QpOpFields qpf = new QpOpFields();
    private final QpContext qpContext = new QpContext();
    private final TcpPacketBuilder tx = new TcpPacketBuilder();
    private final BytesStore<?, ?> txFrame = BytesStore.wrap(new byte[Link.MAX_FRAME]);
    private final BytesStore<?, ?> message = BytesStore.wrap(new byte[640]);
    private final IwarpFrame iwarp = new IwarpFrame();
    private final int[] localWords = new int[4];
    private final int[] remoteWords = new int[4];
    private final SimTimer eventTimer;
    private final ArrayDeque<long[]> pendingEvents = new ArrayDeque<>();

    private long framesToCm;
    private long transmitDrops;
    private long badQpEvents;
    private long cqpFailures;
    private TcpOffloadContext lastTcp;
    private MpaOutcome lastMpa;
    private long lastQpContext = -1;

    public ModelHardwarePort(IrdmaDriver driver, long mac, int mtu, int maxIrd, int maxOrd,
                             List<LocalAddress> addresses) {
        this.driver = driver;
        this.scheduler = driver.scheduler();
        this.mac = mac;
        this.mtu = mtu;
        this.maxIrd = maxIrd;
        this.maxOrd = maxOrd;
        this.addresses = List.copyOf(addresses);
        int qpCount = (int) Math.max(FIRST_QP, driver.committedCount(HmcObjectType.QP));
        this.qps = new Conn[qpCount];
        this.qpContexts = new long[qpCount];
        this.qpRings = new long[qpCount];
        for (int i = FIRST_QP; i < qpCount; i++) {
            freeQps.add(i);
        }
        this.eventTimer = scheduler.newTimer("model-port-qp-events", this::drainEvents);
        driver.macAddress(mac);
        driver.attach(this);
    }

    /** A port with MTU 1500 and IRD/ORD limits of 128 on a driver already brought up. */
    public ModelHardwarePort(IrdmaDriver driver, long mac, List<LocalAddress> addresses) {
        this(driver, mac, 1500, 128, 128, addresses);
    }

    /** A static neighbour entry (what ARP/ND would resolve). */
    public ModelHardwarePort addNeighbour(IpEndpoint address, long neighbourMac) {
        neighbours.put(new Key(address.addressHi(), address.addressLo()), neighbourMac);
        return this;
    }

    /** Makes two ports know each other's addresses. */
    public static void neighbours(ModelHardwarePort a, ModelHardwarePort b) {
        for (LocalAddress x : b.addresses) {
            a.addNeighbour(new IpEndpoint(x.ipv4(), x.addressHi(), x.addressLo(), 0), b.mac);
        }
        for (LocalAddress x : a.addresses) {
            b.addNeighbour(new IpEndpoint(x.ipv4(), x.addressHi(), x.addressLo(), 0), a.mac);
        }
    }

    public IrdmaDriver driver() {
        return driver;
    }

    // ------------------------------------------------------------------------------------------------ the port

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
    public long resolveNeighbour(boolean ipv4, long remoteHi, long remoteLo) {
        Long m = neighbours.get(new Key(remoteHi, remoteLo));
        if (m != null) {
            return m;
        }
        for (LocalAddress a : addresses) {
            if (a.matches(ipv4, remoteHi, remoteLo)) {
                return mac;
            }
        }
        return -1;
    }

    @Override
    public void transmit(BytesStore<?, ?> frame, long offset, int length, boolean loopback) {
        // loopback frames go out too: the link hands a frame to this MAC back to this port
        if (!driver.ilqSend(frame, offset, length)) {
            transmitDrops++;
            LOG.debug("ILQ send refused ({} bytes): every send buffer in flight", length);
        }
    }

    @Override
    public boolean addQhash(Qhash e) {
        boolean conn = e.kind() == Qhash.Kind.CONNECTION;
        try {
            qhashOp(CqpWqe.QHASH_MANAGE_ADD, e, IrdmaDriver.ILQ_QP);
        } catch (CqpException x) {
            cqpFailures++;
            LOG.debug("qhash add {} refused: {}", e, x.getMessage());
            return false;
        }
        if (conn) {
            cmConnectionEntries.put(quadOf(e), e);
        }
        return true;
    }

    @Override
    public void deleteQhash(Qhash e) {
        if (e.kind() == Qhash.Kind.CONNECTION && cmConnectionEntries.remove(quadOf(e)) == null) {
            return; // taken over by a QP (and removed with it)
        }
        try {
            qhashOp(CqpWqe.QHASH_MANAGE_DELETE, e, IrdmaDriver.ILQ_QP);
        } catch (CqpException x) {
            cqpFailures++;
            LOG.debug("qhash delete {} refused: {}", e, x.getMessage());
        }
    }

    private void qhashOp(int manage, Qhash e, int qpn) {
        words(e.ipv4(), e.localHi(), e.localLo(), localWords);
        words(e.ipv4(), e.remoteHi(), e.remoteLo(), remoteWords);
        driver.manageQhash(manage, e.ipv4(), localWords, e.localPort(), remoteWords, e.remotePort(),
                e.kind() == Qhash.Kind.CONNECTION, e.vlanValid() ? e.vlanId() : -1, mac, qpn);
    }

    /** irdma_add_apbvt: the driver use-counts the port; the device sees the first add and the last delete. */
    @Override
    public boolean addAcceleratedPort(int port) {
        if (apbvtUse[port] == 0) {
            try {
                driver.manageApbvt(port, true);
            } catch (CqpException x) {
                cqpFailures++;
                return false;
            }
        }
        apbvtUse[port]++;
        return true;
    }

    @Override
    public void deleteAcceleratedPort(int port) {
        if (apbvtUse[port] == 0) {
            return;
        }
        if (--apbvtUse[port] == 0) {
            try {
                driver.manageApbvt(port, false);
            } catch (CqpException x) {
                cqpFailures++;
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ offload

    @Override
    public int offload(TcpOffloadContext tcp, MpaOutcome mpa) {
        Integer id = freeQps.poll();
        if (id == null) {
            return -1;
        }
        int qpn = id;
        boolean created = false;
        try {
            ensureIwarpCq();
            int arp = arpIndexFor(tcp.remoteMac());
            if (qpContexts[qpn] == 0) {
                qpContexts[qpn] = driver.allocate(QpContext.SIZE);
                qpRings[qpn] = driver.allocate(QP_RING_BYTES);
            }
            long ctx = qpContexts[qpn];
            // verbs.c irdma_create_qp: the QP is created IDLE without its TCP half ...
            writeContext(ctx, qpn, tcp, mpa, arp, false);
            qpf.clear();
            qpf.qpId = qpn;
            qpf.qpType = QP_TYPE_IWARP;
            qpf.hostContextAddress = ctx;
            qpf.shadowAreaAddress = qpRings[qpn] + QP_RING_BYTES - 64;
            qpf.cqNumValid = true;
            qpf.nextIwarpState = QP_STATE_IDLE;
            driver.createQp(qpf);
            created = true;
            // ... and irdma_cm_init_tsa_conn + irdma_modify_qp(RTS) load the TCP context (irdma_sc_qp_setctx)
            writeContext(ctx, qpn, tcp, mpa, arp, true);
            qpf.clear();
            qpf.qpId = qpn;
            qpf.qpType = QP_TYPE_IWARP;
            qpf.hostContextAddress = ctx;
            qpf.tcpContextValid = true;
            qpf.arpIndexValid = true;
            qpf.nextIwarpState = QP_STATE_RTS;
            driver.modifyQp(qpf);
            // the four-tuple now belongs to the QP: the CM's connection entry (if any) is re-pointed, else added
            Quad k = new Quad().set(tcp.localHi(), tcp.localLo(), tcp.localPort(), tcp.remoteHi(), tcp.remoteLo(),
                    tcp.remotePort(), tcp.insertVlanTag() ? tcp.vlanId() : CmNode.NO_VLAN);
            Qhash own = cmConnectionEntries.remove(k);
            Qhash entry = own != null ? own : new Qhash(Qhash.Kind.CONNECTION, tcp.ipv4(), tcp.localHi(),
                    tcp.localLo(), tcp.localPort(), tcp.remoteHi(), tcp.remoteLo(), tcp.remotePort(),
                    tcp.insertVlanTag() ? tcp.vlanId() : CmNode.NO_VLAN, tcp.userPriority());
            qhashOp(own != null ? CqpWqe.QHASH_MANAGE_MODIFY : CqpWqe.QHASH_MANAGE_ADD, entry, qpn);
        } catch (CqpException x) {
            cqpFailures++;
            LOG.warn("offload to QP {} failed: {}", qpn, x.getMessage());
            if (created) {
                try {
                    destroyModelQp(qpn);
                } catch (CqpException y) {
                    cqpFailures++;
                }
            }
            freeQps.addFirst(qpn);
            return -1;
        }
        lastTcp = tcp;
        lastMpa = mpa;
        lastQpContext = qpContexts[qpn];
        Conn c = new Conn(qpn, tcp, mpa);
        qps[qpn] = c;
        c.sendFirstMessage();
        return qpn;
    }

    private void ensureIwarpCq() {
        if (!iwarpCqCreated) {
            driver.createCq(IWARP_CQ, IWARP_CQ_ENTRIES);
            iwarpCqCreated = true;
        }
    }

    /** utils.c irdma_arp_table + irdma_manage_arp_cache: one ARP cache index per neighbour MAC. */
    private int arpIndexFor(long remoteMac) {
        Integer idx = arpIndex.get(remoteMac);
        if (idx != null) {
            return idx;
        }
        int i = nextArpIndex;
        driver.manageArp(i, remoteMac, true);
        nextArpIndex++;
        arpIndex.put(remoteMac, i);
        return i;
    }

    /** cm.c irdma_init_tcp_ctx and verbs.c irdma_iw_fill_and_set_qpctx_info, written with irdma_sc_qp_setctx. */
    private void writeContext(long ctx, int qpn, TcpOffloadContext t, MpaOutcome mpa, int arp, boolean withTcp) {
        long ring = qpRings[qpn];
        var r = new QpResources(0, false, false, false, false, QpResources.NO_PUSH_PAGE, ring,
                ring + QP_RING_BYTES / 2 - 64, QP_HW_QUEUE_SIZE, QP_HW_QUEUE_SIZE, 0, 0, 0, 0,
                IrdmaDriver.IEQ_QP);
        var info = new QpHostContextInfo(qpn, IWARP_CQ, IWARP_CQ, 0, 0, false, withTcp, true);
        // irdma_iw_fill_and_set_qpctx_info: DDP / RDMAP version 1, reads, writes and binds enabled, MPA CRC on
        var iw = new IwarpOffloadInfo(0, 0, 1, 1, 0, 0, Math.max(1, mpa.ord()), Math.max(1, mpa.ird()), false,
                false, false, false, false, false, true, true, true, false, true, false, false, false, 0, 0, 0,
                t.localMac(), 0);
        TcpOffloadInfo tcp = null;
        if (withTcp) {
            int[] d = new int[4];
            int[] l = new int[4];
            if (t.ipv4()) {
                d[3] = (int) t.remoteLo();
                l[3] = (int) t.localLo();
            } else {
                words(false, t.remoteHi(), t.remoteLo(), d);
                words(false, t.localHi(), t.localLo(), l);
            }
            tcp = new TcpOffloadInfo(t.ipv4(), true, t.insertVlanTag(), false, false, false, true, false, false,
                    0, 0, t.ttl(), t.tos(), t.localPort(), t.remotePort(), d[0], d[1], d[2], d[3], t.mss(), 0,
                    t.vlanTag(), arp, 0, TCP_STATE_ESTABLISHED, t.sndWscale(), t.rcvWscale(), 0, 0, t.sndNxt(),
                    t.sndWnd(), t.rcvNxt(), t.rcvWnd(), t.sndMax(), t.sndUna(), 0, t.rttVar(), t.ssThresh(),
                    t.cwnd(), t.sndWl1(), t.sndWl2(), t.maxSndWnd(), t.rexmitThresh(), l[0], l[1], l[2], l[3]);
        }
        qpContext.wrap(driver.store(), driver.offsetOf(ctx), QpContext.SIZE).write(r, info, iw, tcp);
    }

    @Override
    public void closeQp(int qpn, boolean abortive) {
        Conn c = conn(qpn);
        if (c == null || c.closed) {
            return;
        }
        if (abortive) {
            // verbs.c irdma_modify_qp to ERROR with reset: the hardware sends the RST and raises RESET_SENT
            c.segment(TcpHeader.RST | TcpHeader.ACK, 0);
            c.closed = true;
            qpf.clear();
            qpf.qpId = qpn;
            qpf.qpType = QP_TYPE_IWARP;
            qpf.nextIwarpState = QP_STATE_ERROR;
            qpf.resetConnection = true;
            try {
                driver.modifyQp(qpf);
            } catch (CqpException x) {
                cqpFailures++;
            }
            raise(qpn, QpEvent.RESET_SENT);
            return;
        }
        if (c.finSent) {
            return;
        }
        c.segment(TcpHeader.FIN | TcpHeader.ACK, 0);
        c.sndNxt = c.sndNxt + 1 & 0xffff_ffffL;
        c.finSent = true;
        if (c.finReceived) {
            // LAST_ACK: the peer acknowledges a FIN it is waiting for (not seen here: the QP has the ACK)
            c.closed = true;
            raise(qpn, QpEvent.CLOSE_COMPLETE);
        }
    }

    @Override
    public void destroyQp(int qpn) {
        Conn c = conn(qpn);
        if (c == null) {
            return;
        }
        qps[qpn] = null;
        c.destroyed = true;
        try {
            destroyModelQp(qpn);
        } catch (CqpException x) {
            cqpFailures++;
            LOG.warn("destroy QP {}: {}", qpn, x.getMessage());
        }
        freeQps.add(qpn);
    }

    /** Destroy QP with IRDMA_CQPSQ_QP_REMOVEHASHENTRY: the QP's four-tuple entry goes with it. */
    private void destroyModelQp(int qpn) {
        qpf.clear();
        qpf.qpId = qpn;
        qpf.qpType = QP_TYPE_IWARP;
        qpf.removeHashEntry = true;
        driver.destroyQp(qpf);
    }

    private Conn conn(int qpn) {
        return qpn >= 0 && qpn < qps.length ? qps[qpn] : null;
    }

    // ------------------------------------------------------------------------------------------------ upcalls

    @Override
    public void ilqReceive(BytesStore<?, ?> store, long offset, int length) {
        framesToCm++;
        if (cm != null) {
            cm.receive(store, offset, length);
        }
    }

    /** hw.c irdma_process_aeq: the LLP AEs of an offloaded QP become CM work. */
    @Override
    public void asyncEvent(int qpId, int aeCode) {
        Conn c = conn(qpId);
        if (aeCode == AeCode.AMP_BAD_QP.code()) {
            badQpEvents++;
            return;
        }
        if (c == null || c.destroyed) {
            return;
        }
        if (aeCode == AeCode.LLP_FIN_RECEIVED.code()) {
            if (c.finReceived || c.closed) {
                return;
            }
            c.finReceived = true;
            c.rcvNxt = c.rcvNxt + 1 & 0xffff_ffffL;
            c.segment(TcpHeader.ACK, 0);
            if (c.finSent) {
                c.closed = true;
                raise(qpId, QpEvent.CLOSE_COMPLETE);
            } else {
                raise(qpId, QpEvent.FIN_RECEIVED);
            }
        } else if (aeCode == AeCode.LLP_CONNECTION_RESET.code()) {
            if (!c.closed) {
                c.closed = true;
                raise(qpId, QpEvent.CONNECTION_RESET);
            }
        } else if (aeCode == AeCode.LLP_CLOSE_COMPLETE.code()) {
            c.closed = true;
            raise(qpId, QpEvent.CLOSE_COMPLETE);
        } else if (aeCode == AeCode.RESET_SENT.code()) {
            c.closed = true;
            raise(qpId, QpEvent.RESET_SENT);
        } else {
            LOG.debug("AE 0x{} for QP {} ignored", Integer.toHexString(aeCode), qpId);
        }
    }

    /** QP events reach the CM asynchronously, as irdma's AEQ work does (never inside a CM call). */
    private void raise(int qpn, QpEvent e) {
        pendingEvents.addLast(new long[] {qpn, e.ordinal()});
        if (!eventTimer.isPending()) {
            eventTimer.scheduleIn(0);
        }
    }

    private void drainEvents() {
        while (!pendingEvents.isEmpty()) {
            long[] ev = pendingEvents.pollFirst();
            Conn c = conn((int) ev[0]);
            if (c != null && cm != null) {
                cm.qpEvent((int) ev[0], QpEvent.values()[(int) ev[1]]);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ observation

    public long framesToCm() {
        return framesToCm;
    }

    public long transmitDrops() {
        return transmitDrops;
    }

    /** AMP_BAD_QP AEs: a quad-hash entry named a QP that does not exist. */
    public long badQpEvents() {
        return badQpEvents;
    }

    public long cqpFailures() {
        return cqpFailures;
    }

    public int qpCount() {
        int n = 0;
        for (Conn c : qps) {
            if (c != null) {
                n++;
            }
        }
        return n;
    }

    public int acceleratedPortUse(int port) {
        return apbvtUse[port];
    }

    /** The TCP context and MPA outcome of the last offload, and the guest-physical address of its QP context. */
    public TcpOffloadContext lastTcp() {
        return lastTcp;
    }

    public MpaOutcome lastMpa() {
        return lastMpa;
    }

    public long lastQpContextAddress() {
        return lastQpContext;
    }

    /** The host QP context of {@code qpn} as written at offload (guest-physical address), or -1. */
    public long qpContextAddress(int qpn) {
        return qpn >= 0 && qpn < qpContexts.length && qpContexts[qpn] != 0 ? qpContexts[qpn] : -1;
    }

    private static void words(boolean ipv4, long hi, long lo, int[] w) {
        if (ipv4) {
            w[0] = (int) lo;
            w[1] = 0;
            w[2] = 0;
            w[3] = 0;
            return;
        }
        w[0] = (int) (hi >>> 32);
        w[1] = (int) hi;
        w[2] = (int) (lo >>> 32);
        w[3] = (int) lo;
    }

    private static Quad quadOf(Qhash e) {
        return new Quad().set(e.localHi(), e.localLo(), e.localPort(), e.remoteHi(), e.remoteLo(), e.remotePort(),
                e.vlanId());
    }

    /** An offloaded connection as far as this stand-in TCP engine needs it (issue 5 replaces it). */
    private final class Conn {
        final int qpn;
        final TcpOffloadContext ctx;
        final MpaOutcome mpa;
        long sndNxt;
        long rcvNxt;
        boolean finSent;
        boolean finReceived;
        boolean closed;
        boolean destroyed;

        Conn(int qpn, TcpOffloadContext ctx, MpaOutcome mpa) {
            this.qpn = qpn;
            this.ctx = ctx;
            this.mpa = mpa;
            this.sndNxt = ctx.sndNxt();
            this.rcvNxt = ctx.rcvNxt();
        }

        /** The QP's first message: the LSMM (passive side) or the RTR (active side, RFC 6581 §4). */
        void sendFirstMessage() {
            int len = 0;
            if (mpa.lsmmLength() > 0) {
                byte[] lsmm = mpa.lsmm();
                message.write(0, lsmm, 0, lsmm.length);
                len = lsmm.length;
            } else if (mpa.sendsRtr()) {
                len = rtr(mpa.rtrType());
            }
            if (len > 0) {
                segment(TcpHeader.ACK | TcpHeader.PSH, len);
                sndNxt = sndNxt + len & 0xffff_ffffL;
            }
            if (mpa.lsmmLength() > 0 && mpa.revision() >= 2 && !mpa.sendsRtr() && mpa.rtrType() != null) {
                // the passive side will see the initiator's RTR, steered to the QP (it advances the QP's
                // rcv_nxt); what this side acknowledges from now on counts it
                rcvNxt = rcvNxt + rtr(mpa.rtrType()) & 0xffff_ffffL;
            }
        }

        /** Writes the RTR into {@link #message}: a zero-length RDMA Read Request or RDMA Write (MPA CRC on). */
        int rtr(Rdma0 type) {
            return type == Rdma0.READ
                    ? iwarp.writeReadRequest(message, 0, message.capacity(), 1, 0, 0, 0, 0, 0, true)
                    : iwarp.writeTagged(message, 0, message.capacity(), RdmapOpcode.CODE_RDMA_WRITE, true, 0, 0,
                            null, 0, 0, true);
        }

        void segment(int flags, int payload) {
            tx.reset().ethernet(ctx.remoteMac(), ctx.localMac());
            if (ctx.insertVlanTag()) {
                tx.vlan(ctx.userPriority(), false, ctx.vlanId());
            }
            tx.addresses(ctx.localHi(), ctx.localLo(), ctx.remoteHi(), ctx.remoteLo()).tos(ctx.tos()).ttl(ctx.ttl());
            tx.tcp().reset().ports(ctx.localPort(), ctx.remotePort()).sequenceNumber(sndNxt)
                    .acknowledgmentNumber(rcvNxt).flags(flags)
                    .window((int) Math.min(0xffff, ctx.rcvWnd() >> ctx.rcvWscale()));
            int len = payload > 0 ? tx.build(txFrame, 0, message, 0, payload) : tx.build(txFrame, 0);
            if (!driver.ilqSend(txFrame, 0, len)) {
                transmitDrops++;
            }
        }
    }

    private record Key(long hi, long lo) {
    }

    /** A four-tuple plus VLAN, value-compared. */
    static final class Quad {
        long localHi;
        long localLo;
        long remoteHi;
        long remoteLo;
        int localPort;
        int remotePort;
        int vlan;

        Quad set(long localHi, long localLo, int localPort, long remoteHi, long remoteLo, int remotePort, int vlan) {
            this.localHi = localHi;
            this.localLo = localLo;
            this.localPort = localPort;
            this.remoteHi = remoteHi;
            this.remoteLo = remoteLo;
            this.remotePort = remotePort;
            this.vlan = vlan;
            return this;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Quad q && q.localPort == localPort && q.remotePort == remotePort && q.vlan == vlan
                    && q.localLo == localLo && q.remoteLo == remoteLo && q.localHi == localHi
                    && q.remoteHi == remoteHi;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(localLo * 31 + remoteLo) ^ (localPort << 16 | remotePort) ^ vlan
                    ^ Long.hashCode(localHi ^ remoteHi * 17);
        }
    }
}
