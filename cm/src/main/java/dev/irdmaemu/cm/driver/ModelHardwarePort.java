package dev.irdmaemu.cm.driver;

import dev.irdmaemu.cm.AbstractHardwarePort;
import dev.irdmaemu.cm.AhInfo;
import dev.irdmaemu.cm.AhResult;
import dev.irdmaemu.cm.CmHardwarePort;
import dev.irdmaemu.cm.LocalAddress;
import dev.irdmaemu.driver.CqpException;
import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.driver.verbs.MpaOutcome;
import dev.irdmaemu.cm.OffloadResult;
import dev.irdmaemu.cm.Qhash;
import dev.irdmaemu.driver.verbs.QpEvent;
import dev.irdmaemu.driver.verbs.TcpOffloadContext;
import dev.irdmaemu.driver.verbs.IbQpState;
import dev.irdmaemu.driver.verbs.IrdmaVerbs;
import dev.irdmaemu.driver.verbs.IwarpConnection;
import dev.irdmaemu.driver.verbs.QueuePair;
import dev.irdmaemu.driver.verbs.VerbsException;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.sim.SimTimer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.OptionalLong;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link CmHardwarePort} on the device model, through an {@link IrdmaDriver} and its {@link IrdmaVerbs}: frames the
 * quad hash steers to the ILQ go up to the CM (and the buffer is reposted), the CM's frames go out as ILQ sends,
 * quad-hash / APBVT / ARP changes are CQP ops, and {@link #offload} hands the connection to a verbs QP as irdma's
 * cm.c does: the consumer's QP named by the connect / accept parameters, or one of the port's own (one PD, one CQ)
 * for callers that name none. The passive side's MPA reply goes into SQ[0] as the LSMM from a physically registered
 * buffer, the active side's RTR likewise, then the RTS-AE WQEs; the context gets the TCP connection; Modify QP
 * moves it to RTS, the device takes the connection's four-tuple over from the CM's quad-hash entry and sends those
 * WQEs itself. CM segments go out as gen2 ILQ sends through the node's address handle (CREATE_ADDR_HANDLE).
 *
 * <p>The QP's asynchronous events reach the CM as {@link QpEvent}s (the RTS AE as {@link QpEvent#ESTABLISHED}),
 * decided by the verbs QP as hw.c irdma_process_aeq and cm.c irdma_cm_disconn_true do. A graceful close is Modify
 * QP to CLOSING (the device sends the FIN), an abortive one Modify QP to ERROR with the reset flag (the device sends
 * the RST and raises IRDMA_AE_RESET_SENT).
 *
 * <p>The identity and neighbours are {@link dev.irdmaemu.cm.AbstractHardwarePort}'s; the QPs of its own are
 * {@link OwnQueuePairs}'.
 */
public final class ModelHardwarePort extends AbstractHardwarePort<ModelHardwarePort>
        implements IrdmaDriver.Upcalls {
    private static final Logger LOG = LoggerFactory.getLogger(ModelHardwarePort.class);

    private final IrdmaDriver driver;
    private final IrdmaVerbs verbs;
    private final HashMap<Long, Integer> arpIndex = new HashMap<>();
    private int nextArpIndex;

    private final int[] apbvtUse = new int[65536];
    /** The connections the port handed to a QP, by QP number. */
    private final HashMap<Integer, Binding> bindings = new HashMap<>();
    private final OwnQueuePairs ownQps;

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
    private OptionalLong lastQpContext = OptionalLong.empty();

    /** A connection on a QP: whether the QP is the port's own (destroyed with the connection). */
    private record Binding(QueuePair qp, boolean own) {
    }

    public ModelHardwarePort(IrdmaDriver driver, long mac, int mtu, int maxIrd, int maxOrd,
                             List<LocalAddress> addresses) {
        super(driver.scheduler(), mac, mtu, maxIrd, maxOrd, addresses);
        this.driver = driver;
        driver.macAddress(mac);
        this.verbs = new IrdmaVerbs(driver);
        this.ownQps = new OwnQueuePairs(verbs);
        this.eventTimer = driver.scheduler().newTimer("model-port-qp-events", this::drainEvents);
        driver.attach(this);
    }

    /** A port with MTU 1500 and IRD/ORD limits of 128 on a driver already brought up. */
    public ModelHardwarePort(IrdmaDriver driver, long mac, List<LocalAddress> addresses) {
        this(driver, mac, 1500, 128, 128, addresses);
    }

    public IrdmaDriver driver() {
        return driver;
    }

    /** The verbs on this port's device: the consumer's PDs, CQs, QPs and memory regions. */
    public IrdmaVerbs verbs() {
        return verbs;
    }

    // ------------------------------------------------------------------------------------------------ the port

    /**
     * cm.c irdma_cm_create_ah: the neighbour's ARP index first (utils.c irdma_add_arp / irdma_arp_table, a
     * MANAGE_ARP add the first time the MAC is seen), then CREATE_ADDR_HANDLE through the driver.
     */
    @Override
    public AhResult createAh(AhInfo info) {
        try {
            int arp = arpIndexFor(info.remoteMac());
            words(info.ipv4(), info.localHi(), info.localLo(), localWords);
            words(info.ipv4(), info.remoteHi(), info.remoteLo(), remoteWords);
            return new AhResult.Created(driver.addressHandles().create(macAddress(), info.tos(), info.vlanTag(),
                    info.insertVlanTag(), arp, info.hopLimit(), info.ipv4(), info.loopback(), remoteWords, localWords));
        } catch (CqpException x) {
            cqpFailures++;
            LOG.debug("AH create refused: {}", x.getMessage());
            return new AhResult.Refused("AH create refused: " + x.getMessage());
        }
    }

    /** The same without waiting: the driver posts CREATE_ADDR_HANDLE and its completion runs {@code done}. */
    @Override
    public AhResult createAh(AhInfo info, AhCompletion done) {
        try {
            int arp = arpIndexFor(info.remoteMac());
            words(info.ipv4(), info.localHi(), info.localLo(), localWords);
            words(info.ipv4(), info.remoteHi(), info.remoteLo(), remoteWords);
            return new AhResult.Created(driver.addressHandles().create(macAddress(), info.tos(), info.vlanTag(),
                    info.insertVlanTag(), arp, info.hopLimit(), info.ipv4(), info.loopback(), remoteWords, localWords,
                    done::ahCreated));
        } catch (CqpException x) {
            cqpFailures++;
            LOG.debug("AH create refused: {}", x.getMessage());
            return new AhResult.Refused("AH create not posted: " + x.getMessage());
        }
    }

    @Override
    public void destroyAh(int ah) {
        driver.addressHandles().destroy(ah);
    }

    @Override
    public void transmit(int ah, BytesStore<?, ?> segment, long offset, int length, int tcpHeaderLength) {
        if (!driver.puda().ilqSend(ah, segment, offset, length, tcpHeaderLength)) {
            transmitDrops++;
            LOG.debug("ILQ send refused ({} bytes): every send buffer in flight", length);
        }
    }

    @Override
    public boolean addQhash(Qhash e) {
        return qhashOp(CqpWqe.QHASH_MANAGE_ADD, e, "qhash add {} refused: {}");
    }

    /**
     * The established entry of a passive node, posted from its AH's completion (cm.c irdma_add_conn_est_qh): the
     * driver's completion callback answers {@code done}; a refused entry is counted with the CQP failures.
     */
    @Override
    public boolean addQhash(Qhash e, QhashCompletion done) {
        try {
            words(e.ipv4(), e.localHi(), e.localLo(), localWords);
            words(e.ipv4(), e.remoteHi(), e.remoteLo(), remoteWords);
            driver.cqp().postManageQhash(CqpWqe.QHASH_MANAGE_ADD, e.ipv4(), localWords, e.localPort(), remoteWords,
                    e.remotePort(), e.kind() == Qhash.Kind.CONNECTION, e.vlanValid() ? e.vlanId() : -1, macAddress(),
                    IrdmaDriver.ILQ_QP, (error, major, minor, ret) -> {
                        if (error) {
                            cqpFailures++;
                            LOG.debug("qhash add {} refused: major {} minor {}", e, major, minor);
                        }
                        done.qhashDone(!error);
                    });
        } catch (CqpException x) {
            qhashRefused("qhash add {} not posted: {}", e, x);
            return false;
        }
        return true;
    }

    @Override
    public void deleteQhash(Qhash e) {
        qhashOp(CqpWqe.QHASH_MANAGE_DELETE, e, "qhash delete {} refused: {}");
    }

    /** A qhash op the CQP refused or could not post: counted with the CQP failures, and logged. */
    private void qhashRefused(String message, Qhash e, CqpException x) {
        cqpFailures++;
        LOG.debug(message, e, x.getMessage());
    }

    /** A waited Manage Qhash of {@code e} to the ILQ; false when the CQP refused it ({@link #qhashRefused}). */
    private boolean qhashOp(int manage, Qhash e, String refusal) {
        words(e.ipv4(), e.localHi(), e.localLo(), localWords);
        words(e.ipv4(), e.remoteHi(), e.remoteLo(), remoteWords);
        try {
            driver.cqp().manageQhash(manage, e.ipv4(), localWords, e.localPort(), remoteWords, e.remotePort(),
                    e.kind() == Qhash.Kind.CONNECTION, e.vlanValid() ? e.vlanId() : -1, macAddress(),
                    IrdmaDriver.ILQ_QP);
        } catch (CqpException x) {
            qhashRefused(refusal, e, x);
            return false;
        }
        return true;
    }

    /** irdma_add_apbvt: the driver use-counts the port; the device sees the first add and the last delete. */
    @Override
    public boolean addAcceleratedPort(int port) {
        if (apbvtUse[port] == 0) {
            try {
                driver.cqp().manageApbvt(port, true);
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
                driver.cqp().manageApbvt(port, false);
            } catch (CqpException x) {
                cqpFailures++;
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ offload

    @Override
    public OffloadResult offload(TcpOffloadContext tcp, MpaOutcome mpa) {
        return offload(tcp, mpa, -1);
    }

    @Override
    public boolean reportsEstablished() {
        return true;
    }

    /**
     * cm.c irdma_accept (passive, {@code mpa.lsmmLength() > 0}) or irdma_cm_event_connected (active) on QP
     * {@code qpn}, or on a QP of the port's own when {@code qpn} is negative.
     */
    @Override
    public OffloadResult offload(TcpOffloadContext tcp, MpaOutcome mpa, int qpn) {
        QueuePair qp;
        boolean own = qpn < 0;
        try {
            qp = own ? ownQps.create() : verbs.qp(qpn);
        } catch (VerbsException e) {
            cqpFailures++;
            LOG.warn("no QP for the connection: {}", e.getMessage());
            return new OffloadResult.Refused("no QP for the connection: " + e.getMessage());
        }
        if (!IwarpConnection.available(qp) || bindings.containsKey(qp.id())) {
            LOG.debug("QP {} cannot take a connection", qpn);
            return new OffloadResult.Refused("QP " + qpn + " cannot take a connection");
        }
        try {
            int arp = arpIndexFor(tcp.remoteMac());
            if (mpa.lsmmLength() > 0) {
                IwarpConnection.writeLsmm(qp, mpa);
            } else {
                IwarpConnection.writeRtr(qp, mpa.rtrType());
            }
            IwarpConnection.writeContext(qp, tcp, mpa, arp);
            // No qhash op: Modify QP to RTS with the TCP context makes the device take the four-tuple over from
            // the CM's ILQ entry (verbs.c irdma_modify_qp sets hte_added; cm.c clears qhash_set so the entry is
            // never deleted by the driver), and Destroy QP's REMOVEHASHENTRY drops it.
            // bound before RTS: the device may send the connection WQEs and raise the RTS AE at once
            bindings.put(qp.id(), new Binding(qp, own));
            IwarpConnection.moveToRts(qp, this::connectionEvent);
        } catch (VerbsException | CqpException x) {
            cqpFailures++;
            LOG.warn("offload to QP {} failed: {}", qp.id(), x.getMessage());
            bindings.remove(qp.id());
            IwarpConnection.release(qp);
            if (own) {
                destroyOwn(qp);
            }
            return new OffloadResult.Refused("offload to QP " + qp.id() + " failed: " + x.getMessage());
        }
        lastTcp = tcp;
        lastMpa = mpa;
        lastQpContext = OptionalLong.of(qp.hostContextAddress());
        return new OffloadResult.Offloaded(qp.id());
    }

    private void destroyOwn(QueuePair qp) {
        if (!ownQps.destroy(qp)) {
            cqpFailures++;
        }
    }

    /** utils.c irdma_arp_table + irdma_manage_arp_cache: one ARP cache index per neighbour MAC. */
    private int arpIndexFor(long remoteMac) {
        Integer idx = arpIndex.get(remoteMac);
        if (idx != null) {
            return idx;
        }
        int i = nextArpIndex;
        driver.cqp().manageArp(i, remoteMac, true);
        nextArpIndex++;
        arpIndex.put(remoteMac, i);
        return i;
    }

    /**
     * iw_cm's disconnect on the QP (verbs.c irdma_modify_qp): to SQD, the QP goes CLOSING and the device sends the
     * FIN; to ERR, it goes to ERROR with the reset flag and the device sends the RST.
     */
    @Override
    public void closeQp(int qpn, boolean abortive) {
        Binding b = bindings.get(qpn);
        if (b == null || b.qp().isDestroyed()) {
            return;
        }
        try {
            b.qp().modify(abortive ? IbQpState.ERR : IbQpState.SQD);
        } catch (VerbsException x) {
            cqpFailures++;
            LOG.debug("close of QP {} refused: {}", qpn, x.getMessage());
        }
    }

    /** The CM is done with the connection: the port's own QP is destroyed, a consumer's QP is left to it. */
    @Override
    public void destroyQp(int qpn) {
        Binding b = bindings.remove(qpn);
        if (b == null) {
            return;
        }
        IwarpConnection.release(b.qp());
        if (b.own()) {
            destroyOwn(b.qp());
        }
    }

    /** What the QP's events mean for the connection (from the verbs QP), queued for the CM. */
    private void connectionEvent(QueuePair qp, QpEvent event) {
        if (bindings.containsKey(qp.id())) {
            raise(qp.id(), event);
        }
    }

    // ------------------------------------------------------------------------------------------------ upcalls

    @Override
    public void ilqReceive(BytesStore<?, ?> store, long offset, int length) {
        framesToCm++;
        Receiver cm = receiver();
        if (cm != null) {
            cm.receive(store, offset, length);
        }
    }

    /** Raw AE observation: the verbs handle QP events; AMP_BAD_QP (a quad-hash entry naming no QP) is counted. */
    @Override
    public void asyncEvent(int qpId, int aeCode) {
        if (aeCode == AeCode.AMP_BAD_QP.code()) {
            badQpEvents++;
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
            Receiver cm = receiver();
            if (bindings.containsKey((int) ev[0]) && cm != null) {
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

    /** Connections currently on a QP. */
    public int qpCount() {
        return bindings.size();
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

    /** The host QP context (guest-physical address) of the QP the last offload went to, if one has. */
    public OptionalLong lastQpContextAddress() {
        return lastQpContext;
    }

    /** The host QP context of {@code qpn} (guest-physical address), if it is a verbs QP. */
    public OptionalLong qpContextAddress(int qpn) {
        QueuePair qp = verbs.qp(qpn);
        return qp == null ? OptionalLong.empty() : OptionalLong.of(qp.hostContextAddress());
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




}
