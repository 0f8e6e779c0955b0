package dev.irdmaemu.cm;

import dev.irdmaemu.cm.mpa.MpaRejection;
import dev.irdmaemu.cm.mpa.MpaVerdict;
import dev.irdmaemu.driver.verbs.MpaOutcome;
import dev.irdmaemu.driver.verbs.QpEvent;
import dev.irdmaemu.driver.verbs.TcpOffloadContext;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.iwarp.MpaFrame;
import dev.irdmaemu.fw.sim.SimScheduler;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The iWARP connection manager of one device: the behaviour of Linux 7.3 irdma {@code cm.c}, driven by frames the
 * device steers to it, by its timers on simulated time and by the iw_cm-shaped API (listen, connect, accept,
 * reject, disconnect). It has no thread: every entry point runs to completion on the scheduler's thread and
 * delivers the upcalls it caused before returning, in order (cm.c's ordered event work queue).
 *
 * <p>Where this differs from cm.c, on purpose:
 * <ul>
 *   <li>A FIN received in FIN_WAIT1 keeps the retransmission of our FIN, and a reset ends CLOSING; cm.c drops
 *       the one and ignores the other, which leaves a node with no timer for ever.</li>
 *   <li>The ULP gets exactly the private data the peer sent; for MPA v2 cm.c copies PD_Length bytes from after
 *       the RTR message, four bytes past the frame.</li>
 *   <li>A peer asking for markers is refused ({@link dev.irdmaemu.cm.mpa.MpaRejection#MARKERS_REQUESTED}).</li>
 *   <li>A SYN finds a listener on its exact address and VLAN before a wildcard one; cm.c takes the first match
 *       in its list.</li>
 *   <li>Segments the firmware-iface codec refuses (checksum, malformed option lengths) never reach the state
 *       machine; cm.c would reset a peer whose MSS option has the wrong length.</li>
 *   <li>Tearing down an address fails the opens still in setup; cm.c moves their QP to error.</li>
 *   <li>FIN_WAIT2 is timed: a node whose FIN the peer acknowledged but which never sees the peer's FIN is
 *       released, without a reset, {@link #FIN_WAIT2_TIMEOUT_NANOS} (60 s) after it entered FIN_WAIT2. That is
 *       Linux TCP's bound on an orphaned FIN_WAIT2 socket (tcp_fin_timeout, whose default is TCP_FIN_TIMEOUT in
 *       include/net/tcp.h; tcp_close and tcp_keepalive_timer hand it to tcp_time_wait, which drops it silently
 *       when it expires). cm.c's irdma_handle_ack_pkt moves to FIN_WAIT2 after freeing the retransmission entry
 *       and arms nothing, so a silent or vanished peer would pin the node for ever.</li>
 *   <li>A bare ACK in SYN_SENT is dropped and the SYN keeps being retransmitted (RFC 9293 3.10.7.3); cm.c
 *       frees the retransmission entry, and a peer that ACKs without SYN-ACK pins the node with no timer.</li>
 *   <li>An active node that received an MPA reject (MPAREJ_RCVD) waits the same {@link #FIN_WAIT2_TIMEOUT_NANOS}
 *       for the peer's FIN, then resets the peer and is released (a consumer's close still ends it at once,
 *       as irdma_cm_close does); cm.c has no timer there, so only the FIN or that close would end it.</li>
 * </ul>
 */
public final class ConnectionManager implements CmHardwarePort.Receiver {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionManager.class);

    /** cm.h IRDMA_RETRY_TIMEOUT: HZ, one second before the first retransmission. */
    public static final long RETRY_TIMEOUT_NANOS = 1_000_000_000L;
    /** cm.h IRDMA_MAX_TIMEOUT: the back-off never waits more than 12 seconds. */
    public static final long MAX_TIMEOUT_NANOS = 12_000_000_000L;
    /** cm.c irdma_schedule_cm_timer: a close entry fires HZ/10 after it is armed (TIME_WAIT, QP close backstop). */
    public static final long CLOSE_DELAY_NANOS = 100_000_000L;
    /**
     * How long a node waits in FIN_WAIT2 for the peer's FIN before it is released: Linux TCP's tcp_fin_timeout
     * default, TCP_FIN_TIMEOUT (= TCP_TIMEWAIT_LEN, 60 * HZ) in include/net/tcp.h. cm.c has no such bound.
     */
    public static final long FIN_WAIT2_TIMEOUT_NANOS = 60_000_000_000L;
    /** cm.h IRDMA_DEFAULT_RETRANS: retransmissions of one frame before the connection is given up. */
    public static final int DEFAULT_RETRANS = 32;
    /** cm.h IRDMA_DEFAULT_RETRYS (cm.c checks it but never counts it down). */
    public static final int DEFAULT_RETRYS = 64;
    /** cm.h IRDMA_CM_DEFAULT_MSS: assumed when a SYN carries no MSS option (cm.c irdma_process_options). */
    public static final int DEFAULT_MSS = 536;
    /** cm.h IRDMA_CM_DEFAULT_RCV_WND_SCALED and IRDMA_CM_DEFAULT_RCV_WND_SCALE (main.c sets iwdev from them). */
    public static final int DEFAULT_RCV_WND_SCALED = 0x3fffc;
    public static final int DEFAULT_RCV_WND_SCALE = 2;
    /** cm.h IRDMA_DEFAULT_TTL; the AH of the ILQ uses the same hop limit (cm.c irdma_cm_create_ah). */
    public static final int DEFAULT_TTL = 0x40;
    /** defs.h IRDMA_MTU_TO_MSS_IPV4 / _IPV6 and IRDMA_MIN_MTU_IPV4 / _IPV6. */
    static final int MTU_TO_MSS_IPV4 = 40;
    static final int MTU_TO_MSS_IPV6 = 60;
    static final int MIN_MTU_IPV4 = 576;
    static final int MIN_MTU_IPV6 = 1280;
    /** cm.h IRDMA_MAX_TIMEOUT: how long irdma_accept / irdma_cm_event_connected wait for the RTS AE. */
    public static final long ESTABLISH_TIMEOUT_NANOS = 12_000_000_000L;
    /** cm.h IRDMA_SEND_RESET_EVENT: accept or reject after a reset of an indicated connection. */
    private static final int PASSIVE_RESET_SEEN = 2;

    private enum Work { MPA_REQUEST, CONNECTED, MPA_REJECT, ABORTED, REPLY }

    private record Pending(CmNode node, Work work, CmEventType type, CmStatus status, CmReason reason,
                           CmEventHandler handler) {
    }

    private final CmHardwarePort port;
    private final SimScheduler scheduler;
    private final SplittableRandom isn;
    private final HashMap<FourTuple, CmNode> nodes = new HashMap<>();
    private final HashMap<Integer, CmNode> byQp = new HashMap<>();
    private final List<CmListener> listeners = new ArrayList<>();
    private final FourTuple probe = new FourTuple();
    private final ArrayDeque<Pending> work = new ArrayDeque<>();
    private int depth;
    private int defaultMpaRevision = MpaFrame.REVISION_2;

    private final TcpPacket rx = new TcpPacket();
    private final MpaFrame rxMpa = new MpaFrame();
    private final TcpHeader.Builder txTcp = new TcpHeader.Builder();
    /** The TCP header length (with options) of the segment {@link #buildFrame} built last. */
    private int builtHeaderLength;
    private final MpaFrame.Builder txMpa = new MpaFrame.Builder();
    private final BytesStore<?, ?> scratch = BytesStore.wrap(new byte[CmNode.FRAME_CAPACITY]);

    private long nodesCreated;
    private long nodesDestroyed;
    private long retransmissions;
    private long backlogDrops;
    private long framesRefused;
    private long connectErrors;
    private long framesWithoutAh;
    private long ahRefusals;
    private long connectionQhashRefusals;
    private long passiveErrors;
    private long accepts;
    private long rejects;
    private Consumer<PassiveRefusal> passiveRefusals;

    public ConnectionManager(CmHardwarePort port) {
        this.port = port;
        this.scheduler = port.scheduler();
        this.isn = scheduler.random(0x1c5eedL ^ port.macAddress());
        port.attach(this);
    }

    public SimScheduler scheduler() {
        return scheduler;
    }

    public CmHardwarePort port() {
        return port;
    }

    /**
     * The MPA revision new nodes start with (cm.h IRDMA_CM_DEFAULT_MPA_VER, 2). Setting 1 makes this CM an MPA v1
     * only peer: a v2 request then exceeds its revision and is reset, as cm.c irdma_parse_mpa answers it.
     */
    public ConnectionManager defaultMpaRevision(int revision) {
        if (revision != 1 && revision != 2) {
            throw new IllegalArgumentException("MPA revision " + revision);
        }
        this.defaultMpaRevision = revision;
        return this;
    }

    // ------------------------------------------------------------------------------------------------------------
    // API in iw_cm's shape

    /**
     * Listens on {@code address} (a specific local address or the wildcard) with a backlog of not-yet-accepted
     * connections (cm.c irdma_create_listen, irdma_make_listen_node).
     *
     * @throws IllegalStateException when an active listener already covers the address and port, or the device
     *                               refuses the quad hash entry
     */
    public CmListener listen(IpEndpoint address, int backlog, int tos, CmEventHandler handler) {
        Objects.requireNonNull(handler, "handler");
        enter();
        try {
            checkMtu(address.ipv4());
            boolean wildcard = address.isWildcard();
            int vlan = wildcard ? CmNode.NO_VLAN : vlanOf(address.ipv4(), address.addressHi(), address.addressLo());
            CmListener found = findListener(address.ipv4(), address.addressHi(), address.addressLo(),
                    address.port(), vlan, true);
            boolean reused = false;
            CmListener l;
            if (found != null) {
                if (found.active) {
                    throw new IllegalStateException("already listening: " + found);
                }
                // a destroyed listener whose children still live is taken over (cm.c reused_node)
                l = found;
                l.references++;
                reused = true;
            } else {
                l = new CmListener(this, address.ipv4(), address.addressHi(), address.addressLo(), address.port(),
                        wildcard);
                listeners.add(0, l);
            }
            l.handler = handler;
            l.vlanId = vlan;
            l.pendingAccepts = 0;
            l.backlog = backlog;
            l.active = true;
            l.tos = tos;
            l.userPriority = priorityOfTos(tos);
            if (!reused) {
                boolean ok = wildcard ? addChildListeners(l) : addListenerQhash(l);
                if (ok) {
                    ok = l.acceleratedPortSet = port.addAcceleratedPort(l.port);
                }
                if (!ok) {
                    l.active = false;
                    l.handler = null;
                    releaseListener(l, true);
                    throw new IllegalStateException("device refused the listen on " + address);
                }
            }
            LOG.debug("listen {} backlog {}", l, backlog);
            return l;
        } finally {
            leave();
        }
    }

    public CmListener listen(IpEndpoint address, int backlog, CmEventHandler handler) {
        return listen(address, backlog, 0, handler);
    }

    /**
     * Destroys a listener: its children that were not accepted are reset (cm.c irdma_cm_del_listen,
     * irdma_dec_refcnt_listen with free_hanging_nodes). Those already indicated (CONNECT_REQUEST) stay in
     * LISTENER_DESTROYED until the consumer's accept or reject, which then fails.
     */
    public void destroyListener(CmListener l) {
        enter();
        try {
            if (!l.active) {
                return;
            }
            l.active = false;
            l.handler = null;
            List<CmNode> hanging = new ArrayList<>();
            for (CmNode n : nodes.values()) {
                if (n.listener == l && !n.accelerated) {
                    retain(n);
                    hanging.add(n);
                }
            }
            for (CmNode n : hanging) {
                if (n.state.closingOrLater()) {
                    release(n);
                    continue;
                }
                clearSendEntry(n);
                sendReset(n);
                CmState old = n.state;
                n.state = CmState.LISTENER_DESTROYED;
                if (old != CmState.MPAREQ_RCVD) {
                    release(n);
                }
            }
            releaseListener(l, true);
        } finally {
            leave();
        }
    }

    /**
     * Starts an active open: creates the node, programs the connection's quad hash entry and accelerated port and
     * sends the SYN (cm.c irdma_connect, irdma_create_cm_node). Events go to {@code handler}.
     *
     * @throws IllegalStateException when the neighbour does not resolve, the four-tuple is in use or the device
     *                               refuses the quad hash entry
     */
    public CmNode connect(IpEndpoint local, IpEndpoint remote, ConnectParams params, CmEventHandler handler) {
        Objects.requireNonNull(handler, "handler");
        enter();
        try {
            if (local.ipv4() != remote.ipv4() || local.port() == 0 || remote.port() == 0) {
                throw new IllegalArgumentException("connect needs two ports of one family: " + local + " " + remote);
            }
            checkMtu(local.ipv4());
            int vlan = vlanOf(local.ipv4(), local.addressHi(), local.addressLo());
            FourTuple key = new FourTuple().set(local.addressHi(), local.addressLo(), local.port(),
                    remote.addressHi(), remote.addressLo(), remote.port(), vlan);
            if (nodes.containsKey(key)) {
                throw new IllegalStateException("four-tuple in use: " + local + " " + remote);
            }
            CmNode n = makeNode(key, local.ipv4(), true, null, params.tos(), priorityOfTos(params.tos()));
            if (n == null) {
                connectErrors++;
                throw new IllegalStateException("no neighbour for " + remote);
            }
            n.handler = handler;
            n.consumerQpn = params.qpn();
            n.rcvWscale = DEFAULT_RCV_WND_SCALE;
            n.mpaRevision = params.mpaRevision();
            n.irdOrd.record(params.ird(), params.ord(), port.maxIrd(), port.maxOrd());
            byte[] pd = params.privateData();
            System.arraycopy(pd, 0, n.privateData, 0, pd.length);
            n.privateDataLength = pd.length;
            // cm.c irdma_connect: irdma_cm_create_ah (waited for), then the connection's qhash entry
            if (!createAh(n)) {
                connectErrors++;
                release(n);
                throw new IllegalStateException("device refused the address handle for " + n);
            }
            n.connectionQhash = connectionQhash(n);
            if (!port.addQhash(n.connectionQhash)) {
                connectErrors++;
                release(n);
                throw new IllegalStateException("device refused the quad hash entry for " + n);
            }
            n.qhashSet = true;
            if (!port.addAcceleratedPort(local.port())) {
                connectErrors++;
                release(n);
                throw new IllegalStateException("device refused accelerating port " + local.port());
            }
            n.acceleratedPortSet = true;
            n.state = CmState.SYN_SENT;
            sendSyn(n, false);
            LOG.debug("connect {}", n);
            return n;
        } finally {
            leave();
        }
    }

    /**
     * Accepts an indicated connection (cm.c irdma_accept): builds the MPA reply with our private data, hands the
     * connection to the hardware (which sends the reply as its LSMM) and reports ESTABLISHED. As in cm.c the
     * responder's IRD/ORD are the device's, adjusted by the negotiation, not the consumer's.
     *
     * @return false when the connection can no longer be accepted (listener destroyed, reset by the peer, device
     *         refused the QP); the node is then released
     */
    public boolean accept(CmNode n, byte[] privateData) {
        return accept(n, privateData, null);
    }

    /**
     * Accepts with a consumer of its own for the connection's later upcalls (ESTABLISHED, DISCONNECT, CLOSE), as
     * iw_cm gives an accepted connection its own cm_id; null keeps the listener's.
     */
    public boolean accept(CmNode n, byte[] privateData, CmEventHandler connectionHandler) {
        return accept(n, privateData, connectionHandler, -1);
    }

    /**
     * Accepts onto the consumer's QP {@code qpn} (iw_cm_conn_param.qpn; negative: the port supplies one). With a
     * device that raises the RTS AE, ESTABLISHED comes when the QP has sent the MPA reply and the peer's RTR
     * arrived (IRDMA_AE_LLP_CONNECTION_ESTABLISHED); without it within {@link #ESTABLISH_TIMEOUT_NANOS} the consumer
     * gets ESTABLISHED with CONNECTION_RESET (irdma_accept's -ECONNRESET) and the connection is aborted.
     */
    public boolean accept(CmNode n, byte[] privateData, CmEventHandler connectionHandler, int qpn) {
        enter();
        try {
            if (n.destroyed || n.active) {
                return false;
            }
            if (privateData.length > ConnectParams.MAX_PRIVATE_DATA) {
                throw new IllegalArgumentException("private data of " + privateData.length + " bytes");
            }
            if (n.state == CmState.LISTENER_DESTROYED) {
                release(n);
                return false;
            }
            if (++n.passiveState == PASSIVE_RESET_SEEN) {
                release(n);
                return false;
            }
            int lsmmLength = buildMpaFrame(n, scratch, 0, false, false, BytesStore.wrap(privateData), privateData.length);
            byte[] lsmm = new byte[lsmmLength];
            scratch.read(0, lsmm, 0, lsmmLength);
            n.consumerQpn = qpn;
            // cm.c irdma_accept: qhash_set cleared and the AH freed before irdma_modify_qp to RTS
            freeAh(n);
            int offloaded = port.offload(tcpContext(n), new MpaOutcome(n.mpaRevision, n.irdOrd.ird(),
                    n.irdOrd.ord(), n.irdOrd.rdma0(), false, lsmm), qpn);
            if (offloaded < 0) {
                release(n);
                return false;
            }
            if (connectionHandler != null) {
                n.handler = connectionHandler;
            }
            // cm.c irdma_cm_init_tsa_conn; the QP owns the four-tuple now
            n.state = CmState.OFFLOADED;
            n.qhashSet = false;
            n.qpn = offloaded;
            byQp.put(offloaded, n);
            if (port.reportsEstablished()) {
                awaitEstablished(n);
            } else {
                post(n, CmEventType.ESTABLISHED, CmStatus.OK);
            }
            n.accelerated = true;
            if (n.acceptPending) {
                n.listener.pendingAccepts--;
                n.acceptPending = false;
            }
            accepts++;
            return true;
        } finally {
            leave();
        }
    }

    /**
     * Rejects an indicated connection with private data (cm.c irdma_reject, irdma_cm_reject): an MPA reply with
     * the R flag, sent with FIN.
     */
    public boolean reject(CmNode n, byte[] privateData) {
        enter();
        try {
            if (n.destroyed) {
                return false;
            }
            rejects++;
            if (privateData.length + MpaFrame.HEADER_SIZE + MpaFrame.RTR_SIZE > MpaFrame.MAX_CM_BUF) {
                throw new IllegalArgumentException("private data of " + privateData.length + " bytes");
            }
            if (n.active) {
                return true;
            }
            clearSendEntry(n);
            if (++n.passiveState == PASSIVE_RESET_SEEN) {
                n.state = CmState.CLOSED;
                release(n);
                return true;
            }
            if (n.state == CmState.LISTENER_DESTROYED) {
                release(n);
                return true;
            }
            int len = buildFrame(n, n.sendFrame, TcpHeader.ACK | TcpHeader.FIN, true, false, true,
                    BytesStore.wrap(privateData), privateData.length);
            n.state = CmState.FIN_WAIT1;
            scheduleSend(n, len, true, false);
            return true;
        } finally {
            leave();
        }
    }

    /**
     * Ends a connection. Offloaded: the QP closes gracefully (FIN) or abortively (RST) and DISCONNECT/CLOSE follow
     * (irdma_modify_qp to CLOSING or ERROR, irdma_cm_disconn_true). Still in setup: cm.c irdma_cm_close (a reset
     * for the setup states, a FIN from CLOSE_WAIT, release otherwise).
     */
    public void disconnect(CmNode n, boolean abortive) {
        enter();
        try {
            if (n.destroyed) {
                return;
            }
            if (n.state == CmState.OFFLOADED && n.qpn >= 0) {
                if (n.awaitingEstablished) {
                    // not reported up yet: the consumer gives it up before the RTS AE
                    establishFailed(n, CmReason.LOCAL_ABORT);
                    return;
                }
                port.closeQp(n.qpn, abortive);
                // verbs.c irdma_modify_qp to SQD or ERR starts the QP's close timer (the backstop)
                armQpCloseBackstop(n);
                return;
            }
            close(n);
        } finally {
            leave();
        }
    }

    /**
     * A local address went down (irdma_if_notify, ifdown): the listeners' quad hash entries for it are removed
     * (irdma_qhash_ctrl for wildcard listeners' children) and its connections are torn down.
     */
    public void addressRemoved(LocalAddress address) {
        enter();
        try {
            for (CmListener l : listenersFor(address)) {
                if (l.wildcard) {
                    for (CmListener child : l.children) {
                        if (child.qhash != null && address.matches(child.ipv4, child.addressHi, child.addressLo)) {
                            port.deleteQhash(child.qhash);
                            child.qhash = null;
                        }
                    }
                } else if (l.qhash != null) {
                    port.deleteQhash(l.qhash);
                    l.qhash = null;
                }
            }
            teardownConnections(address);
        } finally {
            leave();
        }
    }

    /**
     * A local address came (back) up (irdma_if_notify, ifup): listeners on it get their quad hash entry again, and
     * a wildcard listener without a child for the address gets a new one (irdma_qhash_ctrl).
     */
    public void addressAdded(LocalAddress address) {
        enter();
        try {
            for (CmListener l : listenersFor(address)) {
                if (l.wildcard) {
                    CmListener child = null;
                    for (CmListener c : l.children) {
                        if (address.matches(c.ipv4, c.addressHi, c.addressLo)) {
                            child = c;
                        }
                    }
                    if (child == null) {
                        child = new CmListener(this, address.ipv4(), address.addressHi(), address.addressLo(), l.port,
                                false);
                        child.vlanId = address.vlanId();
                        child.userPriority = l.userPriority;
                        if (addListenerQhash(child)) {
                            l.children.add(child);
                        }
                    } else if (child.qhash == null) {
                        addListenerQhash(child);
                    }
                } else if (l.qhash == null) {
                    addListenerQhash(l);
                }
            }
        } finally {
            leave();
        }
    }

    /** irdma_if_notify's match: same family, and the listener's address or the wildcard. */
    private List<CmListener> listenersFor(LocalAddress address) {
        List<CmListener> found = new ArrayList<>();
        for (CmListener l : listeners) {
            if (l.ipv4 == address.ipv4() && (l.wildcard
                    || (l.vlanId == address.vlanId() && address.matches(l.ipv4, l.addressHi, l.addressLo)))) {
                found.add(l);
            }
        }
        return found;
    }

    /**
     * Tears down every connection on a local address (cm.c irdma_cm_teardown_connections): offloaded ones by moving
     * the QP to error (the device resets the connection, CLOSE follows), ones still in setup by failing the open
     * with a reset (the active side's consumer gets CONNECT_REPLY -ECONNRESET).
     */
    public void teardownConnections(LocalAddress address) {
        teardown(address);
    }

    /** Tears down every connection of the device (irdma_cm_teardown_connections with disconnect_all). */
    public void teardownAllConnections() {
        teardown(null);
    }

    private void teardown(LocalAddress address) {
        enter();
        try {
            List<CmNode> affected = new ArrayList<>();
            for (CmNode n : nodes.values()) {
                if (address == null
                        || (n.vlanId == address.vlanId() && address.matches(n.ipv4, n.key.localHi, n.key.localLo))) {
                    retain(n);
                    affected.add(n);
                }
            }
            for (CmNode n : affected) {
                if (n.state == CmState.OFFLOADED && n.qpn >= 0) {
                    port.closeQp(n.qpn, true);
                } else if (!n.state.closingOrLater() && n.state != CmState.MPAREJ_RCVD) {
                    if (n.active) {
                        activeOpenError(n, true, CmReason.LOCAL_ABORT);
                    } else {
                        passiveOpenError(n, true, CmReason.LOCAL_ABORT, null);
                    }
                }
                release(n);
            }
        } finally {
            leave();
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Observation

    /** Connection nodes that exist (not yet destroyed). */
    public int nodeCount() {
        return nodes.size();
    }

    public Collection<CmNode> nodes() {
        return Collections.unmodifiableCollection(new ArrayList<>(nodes.values()));
    }

    /** Listeners in the table, including destroyed ones that still have children. */
    public int listenerCount() {
        return listeners.size();
    }

    /** Nodes that belong to a listener (not-yet-destroyed passive connections). */
    public int listenerChildNodeCount() {
        int c = 0;
        for (CmNode n : nodes.values()) {
            if (n.listener != null) {
                c++;
            }
        }
        return c;
    }

    public long nodesCreated() {
        return nodesCreated;
    }

    public long nodesDestroyed() {
        return nodesDestroyed;
    }

    public long retransmissions() {
        return retransmissions;
    }

    public long backlogDrops() {
        return backlogDrops;
    }

    /** Frames the ILQ delivered that failed the Ethernet/IP/TCP checks (checksums included) and were dropped. */
    public long framesRefused() {
        return framesRefused;
    }

    /** Accepts that went through (cm.c stats_accepts). */
    public long accepts() {
        return accepts;
    }

    /** Rejects asked for (cm.c stats_rejects). */
    public long rejects() {
        return rejects;
    }

    /** CM segments not sent because the node had no AH (cm.c irdma_form_ah_cm_frame: "AH invalid"). */
    public long framesWithoutAh() {
        return framesWithoutAh;
    }

    public long connectErrors() {
        return connectErrors;
    }

    /**
     * Who hears each connection refused on the passive side before it reached a listener (cm.c
     * irdma_passive_open_err: an MPA request irdma_parse_mpa refuses, a full backlog, bad TCP options, a reset
     * during the set-up), with the endpoints and the reason: irdma makes no upcall for these, so this is where a
     * trace or a test learns why (null: nobody). Called on the CM's thread; one listener, replaced by the next.
     */
    public ConnectionManager onPassiveRefusal(Consumer<PassiveRefusal> listener) {
        this.passiveRefusals = listener;
        return this;
    }

    public long passiveErrors() {
        return passiveErrors;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Receive path (cm.c irdma_receive_ilq)

    @Override
    public void receive(BytesStore<?, ?> frame, long offset, int length) {
        enter();
        try {
            if (!rx.wrap(frame, offset, length).validate().accepted()) {
                framesRefused++;
                return;
            }
            TcpHeader tcp = rx.tcp();
            int tag = rx.vlanId();
            int vlan = tag < 0 ? CmNode.NO_VLAN : tag;
            boolean ipv4 = !rx.isIpv6();
            probe.set(rx.destinationHi(), rx.destinationLo(), tcp.destinationPort(),
                    rx.sourceHi(), rx.sourceLo(), tcp.sourcePort(), vlan);
            CmNode n = nodes.get(probe);
            if (n == null) {
                // only a passive open (SYN without ACK) may create a node
                if (!tcp.syn() || tcp.ack()) {
                    return;
                }
                CmListener l = findListener(ipv4, probe.localHi, probe.localLo, probe.localPort, vlan, false);
                if (l == null) {
                    return;
                }
                l.references++;
                int tos = ipv4 ? rx.ipv4().tos() : rx.ipv6().trafficClass();
                // cm.c irdma_make_cm_node: the higher of the listener's and the peer's TOS decides the priority
                int nodeTos = Math.max(l.tos, tos);
                n = makeNode(probe.copy(), ipv4, false, l, nodeTos, priorityOfTos(nodeTos));
                if (n == null) {
                    releaseListener(l, true);
                    return;
                }
                n.handler = l.handler;
                if (tcp.rst() || tcp.fin()) {
                    release(n);
                    return;
                }
                n.state = CmState.LISTENING;
            } else if (n.state == CmState.OFFLOADED) {
                return;
            }
            retain(n);
            processSegment(n, tcp);
            release(n);
        } finally {
            leave();
        }
    }

    /** cm.c irdma_process_pkt: classify by flags, then the handler of that kind. */
    private void processSegment(CmNode n, TcpHeader tcp) {
        if (tcp.rst()) {
            handleReset(n);
        } else if (tcp.syn()) {
            if (tcp.ack()) {
                handleSynAck(n, tcp);
            } else {
                handleSyn(n, tcp);
            }
        } else if (tcp.ack()) {
            boolean ok = handleAck(n, tcp);
            if (tcp.fin() && ok) {
                handleFin(n);
            }
        } else if (tcp.fin() && sequenceAcceptable(n, tcp)) {
            handleFin(n);
        }
    }

    /** cm.c irdma_handle_syn_pkt: a SYN on the passive side (or a bad one on an active open). */
    private void handleSyn(CmNode n, TcpHeader tcp) {
        switch (n.state) {
            case SYN_SENT, MPAREQ_SENT -> activeOpenError(n, true, CmReason.PROTOCOL_ERROR);
            case LISTENING -> {
                CmListener l = n.listener;
                if (l.pendingAccepts > l.backlog) {
                    backlogDrops++;
                    passiveOpenError(n, false, CmReason.BACKLOG_FULL, null);
                    return;
                }
                if (!applyTcpOptions(n, tcp)) {
                    // irdma_handle_tcp_options resets the peer (passive_open_err with reset)
                    passiveOpenError(n, true, CmReason.PROTOCOL_ERROR, null);
                    return;
                }
                // cm.c irdma_handle_syn_pkt: irdma_cm_create_ah(cm_node, false): the AH is posted, not waited
                // for; its completion (irdma_ilq_ah_cb, ahCreated) adds the established qhash entry
                // (irdma_add_conn_est_qh), whose completion sends the SYN-ACK
                if (!createAhNoWait(n)) {
                    passiveOpenError(n, false, CmReason.LOCAL_ABORT, null);
                    return;
                }
                n.rcvNxt = tcp.sequenceNumber() + 1 & 0xffff_ffffL;
                n.acceptPending = true;
                l.pendingAccepts++;
                n.state = CmState.SYN_RCVD;
            }
            case CLOSED -> {
                clearSendEntry(n);
                retain(n);
                sendReset(n);
            }
            default -> {
                // cm.c ignores a SYN in every other state
            }
        }
    }

    /** cm.c irdma_handle_synack_pkt: the active side's answer to its SYN. */
    private void handleSynAck(CmNode n, TcpHeader tcp) {
        switch (n.state) {
            case SYN_SENT -> {
                clearSendEntry(n);
                // cm.c irdma_check_syn: the SYN-ACK must acknowledge exactly our SYN
                if (tcp.acknowledgmentNumber() != n.locSeq) {
                    activeOpenError(n, true, CmReason.PROTOCOL_ERROR);
                    return;
                }
                n.remAck = tcp.acknowledgmentNumber();
                if (!applyTcpOptions(n, tcp)) {
                    activeOpenError(n, true, CmReason.PROTOCOL_ERROR);
                    return;
                }
                n.rcvNxt = tcp.sequenceNumber() + 1 & 0xffff_ffffL;
                sendAck(n);
                sendMpaRequest(n);
                n.state = CmState.MPAREQ_SENT;
            }
            case MPAREQ_RCVD -> passiveOpenError(n, true, CmReason.PROTOCOL_ERROR, null);
            case LISTENING -> {
                n.locSeq = tcp.acknowledgmentNumber();
                clearSendEntry(n);
                n.state = CmState.CLOSED;
                sendReset(n);
            }
            case CLOSED -> {
                n.locSeq = tcp.acknowledgmentNumber();
                clearSendEntry(n);
                retain(n);
                sendReset(n);
            }
            default -> {
            }
        }
    }

    /** cm.c irdma_handle_ack_pkt; false when the sequence check fails (the FIN it may carry is then ignored too). */
    private boolean handleAck(CmNode n, TcpHeader tcp) {
        if (!sequenceAcceptable(n, tcp)) {
            return false;
        }
        long seq = tcp.sequenceNumber();
        int dataLength = (int) rx.tcpPayloadLength();
        switch (n.state) {
            case SYN_RCVD -> {
                clearSendEntry(n);
                if (!applyTcpOptions(n, tcp)) {
                    passiveOpenError(n, true, CmReason.PROTOCOL_ERROR, null);
                    return false;
                }
                n.remAck = tcp.acknowledgmentNumber();
                n.state = CmState.ESTABLISHED;
                if (dataLength > 0) {
                    n.rcvNxt = seq + dataLength & 0xffff_ffffL;
                    handleMpa(n, dataLength);
                }
            }
            case ESTABLISHED -> {
                clearSendEntry(n);
                if (dataLength > 0) {
                    n.rcvNxt = seq + dataLength & 0xffff_ffffL;
                    handleMpa(n, dataLength);
                }
            }
            case MPAREQ_SENT -> {
                n.remAck = tcp.acknowledgmentNumber();
                if (dataLength > 0) {
                    n.rcvNxt = seq + dataLength & 0xffff_ffffL;
                    n.ackReceived = false;
                    handleMpa(n, dataLength);
                } else {
                    // the peer has our MPA request: keep the timer, stop resending (cm.c ack_rcvd)
                    n.ackReceived = true;
                }
            }
            case LISTENING -> {
                clearSendEntry(n);
                n.state = CmState.CLOSED;
                sendReset(n);
            }
            case CLOSED -> {
                clearSendEntry(n);
                retain(n);
                sendReset(n);
            }
            case LAST_ACK, CLOSING -> {
                clearSendEntry(n);
                n.state = CmState.CLOSED;
                release(n);
            }
            case SYN_SENT -> {
                // RFC 9293 3.10.7.3, SYN-SENT: a segment with neither SYN nor RST is dropped, and our SYN stays
                // queued for retransmission. cm.c's irdma_handle_ack_pkt frees the retransmission entry here,
                // which leaves the node in SYN_SENT with no timer for ever (see the class comment)
            }
            case FIN_WAIT1 -> {
                clearSendEntry(n);
                n.state = CmState.FIN_WAIT2;
                // our FIN is acknowledged and nothing of ours is outstanding: without a timer a peer that never
                // sends its FIN would keep the node for ever (see the class comment)
                armCloseEntry(n, FIN_WAIT2_TIMEOUT_NANOS);
            }
            default -> clearSendEntry(n);
        }
        return true;
    }

    /** cm.c irdma_handle_fin_pkt. */
    private void handleFin(CmNode n) {
        switch (n.state) {
            case SYN_RCVD, SYN_SENT, ESTABLISHED, MPAREJ_RCVD -> {
                n.rcvNxt = n.rcvNxt + 1 & 0xffff_ffffL;
                clearSendEntry(n);
                cancelCloseEntry(n);
                n.state = CmState.LAST_ACK;
                sendFin(n);
            }
            case MPAREQ_SENT -> {
                n.failure = CmReason.PEER_CLOSED;
                post(n, Work.ABORTED);
                n.rcvNxt = n.rcvNxt + 1 & 0xffff_ffffL;
                clearSendEntry(n);
                n.state = CmState.CLOSED;
                retain(n);
                sendReset(n);
            }
            case FIN_WAIT1 -> {
                // simultaneous close: wait for the ACK of our FIN, then the node goes. cm.c drops the
                // retransmission of our FIN here; we keep it, or a lost ACK would leave the node in CLOSING
                // forever (no timer, and cm.c ignores a RST in CLOSING). irdma_retrans_expired already has the
                // CLOSING case that then ends it.
                n.rcvNxt = n.rcvNxt + 1 & 0xffff_ffffL;
                n.state = CmState.CLOSING;
                sendAck(n);
            }
            case FIN_WAIT2 -> {
                n.rcvNxt = n.rcvNxt + 1 & 0xffff_ffffL;
                clearSendEntry(n);
                n.state = CmState.TIME_WAIT;
                sendAck(n);
                // the FIN_WAIT2 timeout gives way to TIME_WAIT's HZ/10
                armCloseEntry(n, CLOSE_DELAY_NANOS);
            }
            case TIME_WAIT -> {
                n.rcvNxt = n.rcvNxt + 1 & 0xffff_ffffL;
                clearSendEntry(n);
                n.state = CmState.CLOSED;
                endCloseEntryAndRelease(n);
            }
            default -> LOG.debug("FIN ignored in {}", n);
        }
    }

    /** cm.c irdma_handle_rst_pkt. */
    private void handleReset(CmNode n) {
        clearSendEntry(n);
        switch (n.state) {
            case SYN_SENT, MPAREQ_SENT -> {
                if (n.mpaRevision == 2) {
                    // a peer that resets an MPA v2 attempt gets one more try with MPA v1
                    n.mpaRevision = 1;
                    n.state = CmState.SYN_SENT;
                    sendSyn(n, false);
                } else {
                    activeOpenError(n, false, CmReason.PEER_RESET);
                }
            }
            case MPAREQ_RCVD -> n.passiveState++;
            case ESTABLISHED, SYN_RCVD, LISTENING -> passiveOpenError(n, false, CmReason.PEER_RESET, null);
            case OFFLOADED -> activeOpenError(n, false, CmReason.PEER_RESET);
            case FIN_WAIT2, FIN_WAIT1, LAST_ACK, TIME_WAIT, CLOSING -> {
                // cm.c leaves out CLOSING, after having dropped the node's retransmission above: the node would
                // then wait for ever; a reset ends it like the other closing states
                n.state = CmState.CLOSED;
                endCloseEntryAndRelease(n);
            }
            default -> {
            }
        }
    }

    /**
     * cm.c irdma_check_seq: the segment must acknowledge everything we sent and start inside our receive window.
     * (A failure is not answered; the segment is dropped.)
     */
    private static boolean sequenceAcceptable(CmNode n, TcpHeader tcp) {
        long seq = tcp.sequenceNumber();
        if (tcp.acknowledgmentNumber() != n.locSeq) {
            return false;
        }
        // kernel between(seq, rcv_nxt, rcv_nxt + rcv_wnd) in 32-bit sequence space
        long offset = seq - n.rcvNxt & 0xffff_ffffL;
        return offset <= n.rcvWnd;
    }

    /**
     * cm.c irdma_handle_tcp_options / irdma_process_options: the peer's MSS (never raising ours, refused when it
     * would make an MTU below the minimum), its window scale, and the send window.
     */
    private static boolean applyTcpOptions(CmNode n, TcpHeader tcp) {
        boolean hasOptions = tcp.headerLength() > TcpHeader.MIN_HEADER_LENGTH;
        if (hasOptions) {
            if (tcp.hasMss()) {
                int mss = tcp.mss();
                if (n.ipv4 ? mss + MTU_TO_MSS_IPV4 < MIN_MTU_IPV4 : mss + MTU_TO_MSS_IPV6 < MIN_MTU_IPV6) {
                    return false;
                }
                if (mss < n.mss) {
                    n.mss = mss;
                }
            } else if (tcp.syn()) {
                n.mss = DEFAULT_MSS;
            }
            if (tcp.hasWindowScale()) {
                // RFC 7323 §2.3: a shift above 14 is used as 14
                n.sndWscale = tcp.windowScale();
            }
        }
        n.sndWnd = (long) tcp.window() << n.sndWscale;
        if (n.sndWnd > n.maxSndWnd) {
            n.maxSndWnd = n.sndWnd;
        }
        return true;
    }

    // ------------------------------------------------------------------------------------------------------------
    // MPA

    /** cm.c irdma_handle_rcv_mpa: an MPA request (passive) or reply (active) arrived as the segment's data. */
    private void handleMpa(CmNode n, int dataLength) {
        long at = rx.offset() + rx.tcpPayloadOffset();
        MpaVerdict verdict = parseMpa(n, rx.store(), at, dataLength);
        if (!verdict.accepted()) {
            LOG.debug("MPA refused ({}) on {}", verdict.rule(), n);
            if (n.state == CmState.MPAREQ_SENT) {
                activeOpenError(n, true, CmReason.BAD_MPA);
            } else {
                passiveOpenError(n, true, CmReason.BAD_MPA, verdict.rule());
            }
            return;
        }
        switch (n.state) {
            case ESTABLISHED -> {
                n.state = CmState.MPAREQ_RCVD;
                sendAck(n);
                n.passiveState = 0;
                post(n, Work.MPA_REQUEST);
            }
            case MPAREQ_SENT -> {
                clearSendEntry(n);
                if (verdict.peerRejected()) {
                    n.state = CmState.MPAREJ_RCVD;
                    sendAck(n);
                    // the peer owes us its FIN (a reject goes with one); a peer that never sends it gets what a
                    // FIN_WAIT2 gets (see the class comment), then a reset
                    armCloseEntry(n, FIN_WAIT2_TIMEOUT_NANOS);
                    post(n, Work.MPA_REJECT);
                } else {
                    n.state = CmState.OFFLOADED;
                    sendAck(n);
                    post(n, Work.CONNECTED);
                }
            }
            default -> LOG.debug("MPA frame in wrong state {}", n);
        }
    }

    /**
     * cm.c irdma_parse_mpa, rule by rule in its order, then the RFC 6581 negotiation for revision 2. On success
     * the peer's private data is in the node and the verdict tells whether the R flag was set. Allocates nothing.
     * Package-visible so the rules can be checked one by one.
     */
    MpaVerdict parseMpa(CmNode n, BytesStore<?, ?> store, long offset, int length) {
        MpaRejection rule = mpaRule(n, store, offset, length);
        if (!rule.accepted()) {
            return MpaVerdict.refused(rule);
        }
        return MpaVerdict.accepted((rxMpa.flags() & MpaFrame.FLAG_REJECT) != 0);
    }

    /** The rules of {@link #parseMpa}; on ACCEPTED {@link #rxMpa} still wraps the frame. */
    private MpaRejection mpaRule(CmNode n, BytesStore<?, ?> store, long offset, int length) {
        if (length < MpaFrame.HEADER_SIZE) {
            return MpaRejection.BUFFER_TOO_SMALL;
        }
        MpaFrame f = rxMpa.wrap(store, offset, length);
        int pdLength = f.privateDataLengthField();
        if (pdLength > MpaFrame.MAX_PRIVATE_DATA) {
            return MpaRejection.PRIVATE_DATA_TOO_LONG;
        }
        int rev = f.revision();
        if (rev != MpaFrame.REVISION_1 && rev != MpaFrame.REVISION_2) {
            return MpaRejection.UNKNOWN_REVISION;
        }
        if (rev > n.mpaRevision) {
            return MpaRejection.REVISION_ABOVE_OURS;
        }
        n.mpaRevision = rev;
        boolean initiator = n.state == CmState.MPAREQ_SENT;
        if (initiator ? !f.isReply() : !f.isRequest()) {
            return MpaRejection.UNEXPECTED_KEY;
        }
        if (pdLength + MpaFrame.HEADER_SIZE > length) {
            return MpaRejection.LENGTH_MISMATCH;
        }
        if (length > MpaFrame.MAX_CM_BUF) {
            return MpaRejection.OVER_MAX_CM_BUF;
        }
        int headerLength = MpaFrame.HEADER_SIZE;
        if (rev == MpaFrame.REVISION_2) {
            headerLength += MpaFrame.RTR_SIZE;
            MpaRejection r = n.irdOrd.negotiate(initiator, f.ctrlIrd(), f.ctrlOrd());
            if (!r.accepted()) {
                return r;
            }
        }
        // cm.c copies PD_Length bytes from after the RTR message, so for revision 2 it hands the ULP four bytes
        // beyond the frame; we hand over exactly the private data the peer sent.
        int ulpLength = Math.max(0, Math.min(pdLength - (headerLength - MpaFrame.HEADER_SIZE), length - headerLength));
        store.read(offset + headerLength, n.privateData, 0, ulpLength);
        n.privateDataLength = ulpLength;
        if ((f.flags() & MpaFrame.FLAG_MARKERS) != 0) {
            n.peerWantsMarkers = true;
            return MpaRejection.MARKERS_REQUESTED;
        }
        return MpaRejection.ACCEPTED;
    }

    /** cm.c irdma_send_mpa_request: MPA request with our private data, retransmitted until answered. */
    private void sendMpaRequest(CmNode n) {
        int len = buildFrame(n, n.sendFrame, TcpHeader.ACK, true, true, false, n.privateDataStore(),
                n.privateDataLength);
        scheduleSend(n, len, true, false);
    }

    /**
     * irdma_build_mpa_v1 / irdma_build_mpa_v2: key, CRC flag always, our revision, and for revision 2 the RTR
     * message (PD_Length counting it). Returns the bytes written at {@code at}.
     */
    private int buildMpaFrame(CmNode n, BytesStore<?, ?> out, long at, boolean request, boolean reject,
                              BytesStore<?, ?> pd, int pdLength) {
        MpaFrame.Builder b = txMpa.reset();
        if (request) {
            b.request();
        } else {
            b.reply();
        }
        b.revision(n.mpaRevision);
        b.flags(MpaFrame.FLAG_CRC | (reject ? MpaFrame.FLAG_REJECT : 0));
        if (n.mpaRevision == MpaFrame.REVISION_2) {
            int ctrlIrd = n.irdOrd.ctrlIrd();
            int ctrlOrd = n.irdOrd.ctrlOrd(request);
            b.rtr(ctrlIrd, ctrlOrd, (ctrlIrd & MpaFrame.IRD_PEER_TO_PEER) != 0, false,
                    (ctrlOrd & MpaFrame.ORD_RDMA0_WRITE) != 0, (ctrlOrd & MpaFrame.ORD_RDMA0_READ) != 0);
        }
        b.privateData(pd, pd == null ? 0 : pd.start(), pdLength);
        return b.build(out, at, out.capacity() - at);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Sending (cm.c irdma_form_ah_cm_frame, irdma_send_syn/ack/fin/reset)

    /**
     * Builds one CM segment for {@code n} into {@code out} at 0 (cm.c irdma_form_ah_cm_frame: TCP header, options,
     * MPA frame; the device adds the rest and the checksums) and advances the node's send sequence the way cm.c
     * does: SYN and FIN count one, data its length; ACK carries rcv_nxt. Returns the segment length; the header
     * length is left in {@link #builtHeaderLength}.
     */
    private int buildFrame(CmNode n, BytesStore<?, ?> out, int flags, boolean mpa, boolean request, boolean reject,
                           BytesStore<?, ?> pd, int pdLength) {
        int payload = 0;
        if (mpa) {
            payload = MpaFrame.HEADER_SIZE + (n.mpaRevision == 2 ? MpaFrame.RTR_SIZE : 0) + pdLength;
        }
        TcpHeader.Builder t = txTcp.reset().ports(n.key.localPort, n.key.remotePort)
                .sequenceNumber(n.locSeq).window((int) Math.min(0xffff, n.rcvWnd));
        if ((flags & TcpHeader.ACK) != 0) {
            n.locAck = n.rcvNxt;
            t.acknowledgmentNumber(n.locAck);
        }
        if ((flags & TcpHeader.SYN) != 0) {
            // cm.c irdma_send_syn: MSS, window scale and EOL, back to back, nothing else
            t.mss(n.mss).windowScale(n.rcvWscale).packedWithEndOfList(true);
            n.locSeq = n.locSeq + 1 & 0xffff_ffffL;
        } else {
            n.locSeq = n.locSeq + payload & 0xffff_ffffL;
        }
        if ((flags & TcpHeader.FIN) != 0) {
            n.locSeq = n.locSeq + 1 & 0xffff_ffffL;
        }
        t.flags(flags);
        int header = t.write(out, 0);
        builtHeaderLength = header;
        if (mpa) {
            buildMpaFrame(n, out, header, request, reject, pd, pdLength);
        }
        return header + payload;
    }

    /**
     * Sends a built segment through the node's AH. Without one (freed at RTS, or never created) cm.c
     * irdma_form_ah_cm_frame answers "AH invalid" and nothing goes out.
     */
    private void transmit(CmNode n, BytesStore<?, ?> segment, int length, int headerLength) {
        if (n.ah < 0 || !n.ahValid) {
            framesWithoutAh++;
            LOG.debug("no AH for {}: segment not sent", n);
            return;
        }
        port.transmit(n.ah, segment, 0, length, headerLength);
    }

    /** cm.c irdma_cm_create_ah(cm_node, true) for node {@code n}: valid on return; false when refused. */
    private boolean createAh(CmNode n) {
        int ah = port.createAh(ahInfo(n));
        if (ah < 0) {
            return false;
        }
        n.ah = ah;
        n.ahValid = true;
        return true;
    }

    /**
     * cm.c irdma_cm_create_ah(cm_node, false) for node {@code n}: the AH exists but is not valid until
     * {@link #ahCreated}; false when no AH could be posted.
     */
    private boolean createAhNoWait(CmNode n) {
        int ah = port.createAh(ahInfo(n), (index, valid) -> ahCreated(n, index, valid));
        if (ah < 0) {
            return false;
        }
        n.ah = ah;
        n.ahValid = false;
        return true;
    }

    private AhInfo ahInfo(CmNode n) {
        return new AhInfo(n.ipv4, n.key.localHi, n.key.localLo, n.key.remoteHi, n.key.remoteLo, n.localMac,
                n.remoteMac, n.tos, DEFAULT_TTL, n.vlanId, n.userPriority, n.loopback);
    }

    /**
     * utils.c irdma_ilq_ah_cb for a passive node: ah_valid from the completion, then irdma_add_conn_est_qh: the
     * established qhash entry (whether or not the AH is valid) posted without waiting (irdma_manage_qhash with the
     * cm_node and wait = false, which takes a reference on the node for its callback), qhash_set at once. The SYN-ACK
     * goes from that op's completion ({@link #connectionQhashDone}, hw.c irdma_send_syn_cqp_callback), so it still
     * follows the entry. With an invalid AH the SYN-ACK finds no AH and is not sent (cm.c irdma_form_ah_cm_frame:
     * "AH invalid"); the node then waits for the peer to retry or give up. When the add cannot even be posted
     * (irdma_handle_cqp_op failed: the driver requested a reset) irdma drops its reference and leaves the node
     * waiting for a SYN-ACK that never goes; this CM ends the node instead (a passive open error), so that no peer
     * can hold it.
     */
    private void ahCreated(CmNode n, int ah, boolean valid) {
        if (n.destroyed || n.ah != ah) {
            return;
        }
        n.ahValid = valid;
        if (!valid) {
            ahRefusals++;
        }
        if (n.sendEntry && n.sendAwaitsAh && n.state != CmState.SYN_RCVD) {
            if (valid) {
                startSend(n);
            } else {
                // refused: the frame can never be formed; a node that was to close once it went out closes now
                boolean close = n.closeWhenComplete;
                clearSendEntry(n);
                if (close) {
                    release(n);
                }
            }
        }
        if (n.state != CmState.SYN_RCVD) {
            return;
        }
        n.connectionQhash = connectionQhash(n);
        retain(n);
        if (!port.addQhash(n.connectionQhash, added -> connectionQhashDone(n, added))) {
            release(n);
            passiveOpenError(n, false, CmReason.LOCAL_ABORT, null);
            return;
        }
        n.qhashSet = true;
    }

    /**
     * hw.c irdma_send_syn_cqp_callback: the established entry's add completed: the SYN-ACK (irdma_send_syn with
     * its ACK), whatever the op's answer (the kernel's callback does not look at it), then the callback's reference
     * goes. A node that left SYN_RCVD meanwhile (the peer's RST, a FIN, a timeout) has nothing to answer.
     */
    private void connectionQhashDone(CmNode n, boolean added) {
        enter();
        try {
            if (!added) {
                connectionQhashRefusals++;
            }
            if (!n.destroyed && n.state == CmState.SYN_RCVD) {
                sendSyn(n, true);
            }
            release(n);
        } finally {
            leave();
        }
    }

    /** Established qhash entries of passive nodes that the device refused (their SYN-ACK went out regardless). */
    public long connectionQhashRefusals() {
        return connectionQhashRefusals;
    }

    /** Address handles the device answered "not valid" after a create without waiting. */
    public long ahRefusals() {
        return ahRefusals;
    }

    /** cm.c irdma_cm_free_ah: once per AH. */
    private void freeAh(CmNode n) {
        if (n.ah >= 0) {
            port.destroyAh(n.ah);
            n.ah = -1;
            n.ahValid = false;
        }
    }

    private void sendSyn(CmNode n, boolean withAck) {
        int len = buildFrame(n, n.sendFrame, TcpHeader.SYN | (withAck ? TcpHeader.ACK : 0), false, false, false,
                null, 0);
        scheduleSend(n, len, true, false);
    }

    private void sendAck(CmNode n) {
        int len = buildFrame(n, scratch, TcpHeader.ACK, false, false, false, null, 0);
        transmit(n, scratch, len, builtHeaderLength);
    }

    private void sendFin(CmNode n) {
        int len = buildFrame(n, n.sendFrame, TcpHeader.ACK | TcpHeader.FIN, false, false, false, null, 0);
        scheduleSend(n, len, true, false);
    }

    /**
     * cm.c irdma_send_reset: RST+ACK, sent once, and the node gives up one reference when it is out (callers that
     * keep the node take one first).
     */
    private void sendReset(CmNode n) {
        int len = buildFrame(n, scratch, TcpHeader.RST | TcpHeader.ACK, false, false, false, null, 0);
        transmit(n, scratch, len, builtHeaderLength);
        release(n);
    }

    /**
     * cm.c irdma_schedule_cm_timer for a send: the frame goes out now; with retransmission it is kept and resent
     * with back-off until answered; the pending entry holds a reference on the node.
     */
    private void scheduleSend(CmNode n, int length, boolean retransmit, boolean closeWhenComplete) {
        clearSendEntry(n);
        retain(n);
        n.sendEntry = true;
        n.sendLength = length;
        n.sendHeaderLength = builtHeaderLength;
        n.sendRetransmits = retransmit;
        n.closeWhenComplete = closeWhenComplete;
        n.retransLeft = DEFAULT_RETRANS;
        n.retriesLeft = DEFAULT_RETRYS;
        if (n.ah >= 0 && !n.ahValid) {
            // cm.c irdma_form_ah_cm_frame: an AH not yet valid forms no frame. The entry is kept and goes out
            // when the AH's create completes (ahCreated), so a passive node whose peer sent a FIN before its AH
            // was valid (SYN_RCVD to LAST_ACK) still sends its FIN, is retransmitted and closes, instead of
            // sitting in LAST_ACK with no timer for ever (HostileSegmentProperties, seed 1517260993334010527).
            framesWithoutAh++;
            n.sendAwaitsAh = true;
            LOG.debug("AH {} of {} not valid yet: segment held for its completion", n.ah, n);
            return;
        }
        startSend(n);
    }

    /** The held entry's first transmission, then its retransmission timer (or its end, for a one-shot frame). */
    private void startSend(CmNode n) {
        n.sendAwaitsAh = false;
        boolean retransmit = n.sendRetransmits;
        boolean closeWhenComplete = n.closeWhenComplete;
        transmit(n, n.sendFrame, n.sendLength, n.sendHeaderLength);
        if (!retransmit) {
            clearSendEntry(n);
            if (closeWhenComplete) {
                release(n);
            }
            return;
        }
        n.retransmitTimer.scheduleIn(RETRY_TIMEOUT_NANOS);
    }

    /** cm.c irdma_free_retrans_entry. */
    private void clearSendEntry(CmNode n) {
        if (!n.sendEntry) {
            return;
        }
        n.sendEntry = false;
        n.sendAwaitsAh = false;
        n.retransmitTimer.cancel();
        release(n);
    }

    /** One expiry of a node's send entry (cm.c irdma_cm_timer_tick for that node). */
    void retransmitTimerExpired(CmNode n) {
        enter();
        try {
            if (!n.sendEntry) {
                return;
            }
            retain(n);
            if (n.state == CmState.OFFLOADED || n.state == CmState.CLOSED) {
                clearSendEntry(n);
            } else if (n.retransLeft == 0 || n.retriesLeft == 0) {
                clearSendEntry(n);
                retransmissionsExhausted(n);
                n.state = CmState.CLOSED;
            } else {
                if (!n.ackReceived) {
                    transmit(n, n.sendFrame, n.sendLength, n.sendHeaderLength);
                    retransmissions++;
                }
                if (n.sendRetransmits) {
                    n.retransLeft--;
                    int doublings = DEFAULT_RETRANS - n.retransLeft;
                    long wait = doublings >= 4 ? MAX_TIMEOUT_NANOS
                            : Math.min(RETRY_TIMEOUT_NANOS << doublings, MAX_TIMEOUT_NANOS);
                    n.retransmitTimer.scheduleIn(wait);
                } else {
                    boolean closeAfter = n.closeWhenComplete;
                    clearSendEntry(n);
                    if (closeAfter) {
                        release(n);
                    }
                }
            }
            release(n);
        } finally {
            leave();
        }
    }

    /** cm.c irdma_retrans_expired: the peer stopped answering. */
    private void retransmissionsExhausted(CmNode n) {
        CmState was = n.state;
        n.state = CmState.CLOSED;
        switch (was) {
            case SYN_RCVD, CLOSING -> release(n);
            case FIN_WAIT1, LAST_ACK -> sendReset(n);
            default -> {
                retain(n);
                sendReset(n);
                n.failure = CmReason.RETRIES_EXHAUSTED;
                post(n, Work.ABORTED);
            }
        }
    }

    /**
     * A close entry without QP that releases the node when it fires: TIME_WAIT's (cm.c irdma_handle_fin_pkt in
     * FIN_WAIT2 schedules one HZ/10 ahead) and the FIN_WAIT2 timeout. Re-arming replaces the earlier deadline.
     * The entry stands for the node's own reference; it takes none.
     */
    private void armCloseEntry(CmNode n, long delayNanos) {
        if (n.closeEntry && n.closeEntryForQp) {
            return;
        }
        n.closeEntry = true;
        n.closeEntryForQp = false;
        n.closeTimer.cancel();
        n.closeTimer.scheduleIn(delayNanos);
    }

    /**
     * The node ends before its close entry fires (a FIN in TIME_WAIT, a reset in a closing state): the entry is
     * dropped with the release, so the node's own reference is not given up twice.
     */
    private void endCloseEntryAndRelease(CmNode n) {
        cancelCloseEntry(n);
        release(n);
    }

    /** Drops a close entry without QP (TIME_WAIT, the FIN timeout); a QP's backstop stays. */
    private static void cancelCloseEntry(CmNode n) {
        if (n.closeEntry && !n.closeEntryForQp) {
            n.closeEntry = false;
            n.closeTimer.cancel();
        }
    }

    /** verbs.c irdma_modify_qp / hw.c LLP_FIN_RECEIVED: the close entry carrying the QP, a backstop for the close. */
    private void armQpCloseBackstop(CmNode n) {
        if (n.closeEntry) {
            return;
        }
        n.closeEntry = true;
        n.closeEntryForQp = true;
        n.closeTimer.scheduleIn(CLOSE_DELAY_NANOS);
    }

    /** cm.c irdma_handle_close_entry with rem_node set. */
    void closeTimerExpired(CmNode n) {
        enter();
        try {
            if (!n.closeEntry) {
                return;
            }
            n.closeEntry = false;
            if (n.closeEntryForQp) {
                // the QP is forced closed: CLOSE to the consumer, then the node goes (irdma_cm_disconn_true)
                if (!n.destroyed) {
                    qpClosed(n, false, CmReason.CLOSE_TIMEOUT);
                }
            } else if (n.state == CmState.MPAREJ_RCVD) {
                // the rejecting peer never sent its FIN: reset it, and the node goes (sendReset releases)
                n.state = CmState.CLOSED;
                sendReset(n);
            } else {
                release(n);
            }
        } finally {
            leave();
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Offloaded connections: QP events (hw.c irdma_process_aeq -> cm.c irdma_cm_disconn_true)

    @Override
    public void qpEvent(int qpn, QpEvent event) {
        enter();
        try {
            CmNode n = byQp.get(qpn);
            if (n == null || n.destroyed) {
                return;
            }
            if (event == QpEvent.ESTABLISHED) {
                if (n.awaitingEstablished) {
                    established(n);
                }
                return;
            }
            if (n.awaitingEstablished) {
                if (n.active && event == QpEvent.FIN_RECEIVED) {
                    // cm.c irdma_cm_event_connected waits for the RTS AE and reports CONNECT_REPLY (status 0)
                    // whether it came or not: the RTR is out, the connection is the peer's too. The peer's FIN can
                    // overtake the RTS AE (the GEN_RTS_AE WQE waits behind the RTR's acknowledgment, which the
                    // FIN may share a batch with); the reply goes first, then the FIN as on any connection.
                    established(n);
                } else {
                    // the connection ended before the RTS AE: the open fails (the consumer never had it)
                    establishFailed(n, event == QpEvent.CONNECTION_RESET ? CmReason.PEER_RESET
                            : CmReason.TERMINATED);
                    return;
                }
            }
            switch (event) {
                case FIN_RECEIVED -> {
                    if (n.closeEntry) {
                        return;
                    }
                    // the QP goes to CLOSING (it answers with its own FIN) and the consumer hears DISCONNECT
                    port.closeQp(qpn, false);
                    post(n, CmEventType.DISCONNECT, CmStatus.OK);
                    armQpCloseBackstop(n);
                }
                case CLOSE_COMPLETE -> qpClosed(n, false, CmReason.NONE);
                case TERMINATED -> {
                    // cm.c irdma_cm_disconn_true with term_flags: DISCONNECT (status 0) and CLOSE
                    post(n, CmEventType.DISCONNECT, CmStatus.OK, CmReason.TERMINATED);
                    qpClosed(n, false, CmReason.TERMINATED);
                }
                case ESTABLISHED -> {
                }
                case RESET_SENT -> qpClosed(n, false, CmReason.LOCAL_ABORT);
                case CONNECTION_RESET -> {
                    if (n.closeEntry && n.closeEntryForQp) {
                        // a close is under way already (cm.c close_timer_started): the backstop finishes it
                        return;
                    }
                    qpClosed(n, true, CmReason.PEER_RESET);
                }
            }
        } finally {
            leave();
        }
    }

    /** DISCONNECT (reset) and CLOSE upcalls, then irdma_cm_close on the node, which releases it. */
    private void qpClosed(CmNode n, boolean reset, CmReason reason) {
        if (n.closeEntry) {
            n.closeEntry = false;
            n.closeTimer.cancel();
        }
        CmEventHandler h = n.handler;
        if (h != null) {
            if (reset) {
                post(n, CmEventType.DISCONNECT, CmStatus.CONNECTION_RESET, reason);
            }
            post(n, CmEventType.CLOSE, CmStatus.OK, reason);
            n.handler = null;
        }
        close(n);
    }

    /** cm.c irdma_cm_close. */
    private void close(CmNode n) {
        switch (n.state) {
            case SYN_RCVD, SYN_SENT, ONE_SIDE_ESTABLISHED, ESTABLISHED, ACCEPTING, MPAREQ_SENT, MPAREQ_RCVD,
                    LISTENING -> {
                clearSendEntry(n);
                sendReset(n);
            }
            case CLOSE_WAIT -> {
                n.state = CmState.LAST_ACK;
                sendFin(n);
            }
            case FIN_WAIT1, FIN_WAIT2, LAST_ACK, TIME_WAIT, CLOSING -> {
                // cm.c answers -EINVAL: the close is already under way
            }
            default -> endCloseEntryAndRelease(n);
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Open errors and events

    /** cm.c irdma_active_open_err: the connect failed; CONNECT_REPLY with -ECONNRESET follows. */
    private void activeOpenError(CmNode n, boolean reset, CmReason reason) {
        n.failure = reason;
        clearSendEntry(n);
        connectErrors++;
        if (reset) {
            retain(n);
            sendReset(n);
        }
        n.state = CmState.CLOSED;
        post(n, Work.ABORTED);
    }

    /**
     * cm.c irdma_passive_open_err: the passive node is dropped, with or without a reset to the peer. The refusal
     * listener hears why ({@code mpa}: the irdma_parse_mpa rule, for BAD_MPA).
     */
    private void passiveOpenError(CmNode n, boolean reset, CmReason reason, MpaRejection mpa) {
        clearSendEntry(n);
        passiveErrors++;
        if (passiveRefusals != null) {
            passiveRefusals.accept(new PassiveRefusal(n.local(), n.remote(), reason, mpa, reset));
        }
        n.state = CmState.CLOSED;
        if (reset) {
            sendReset(n);
        } else {
            release(n);
        }
    }

    /** cm.c irdma_create_event: queue CM work; it holds a reference until handled. No consumer, no event. */
    private void post(CmNode n, Work w) {
        if (n.handler == null) {
            return;
        }
        retain(n);
        work.addLast(new Pending(n, w, null, null, null, null));
    }

    /** An upcall made directly (cm.c irdma_send_cm_event), delivered in order after the current work. */
    private void post(CmNode n, CmEventType type, CmStatus status) {
        post(n, type, status, CmReason.NONE);
    }

    private void post(CmNode n, CmEventType type, CmStatus status, CmReason reason) {
        if (n.handler == null) {
            return;
        }
        retain(n);
        work.addLast(new Pending(n, null, type, status, reason, n.handler));
    }

    private void enter() {
        depth++;
    }

    private void leave() {
        if (depth == 1) {
            while (!work.isEmpty()) {
                Pending p = work.pollFirst();
                try {
                    handle(p);
                } catch (RuntimeException e) {
                    LOG.warn("CM event consumer threw on {}", p.node, e);
                } finally {
                    release(p.node);
                }
            }
        }
        depth--;
    }

    /** cm.c irdma_cm_event_handler. */
    private void handle(Pending p) {
        CmNode n = p.node;
        if (p.work == null) {
            upcall(p.handler, n, p.type, p.status, p.reason, false);
            return;
        }
        CmEventHandler h = n.handler;
        if (h == null) {
            return;
        }
        switch (p.work) {
            case MPA_REQUEST -> upcall(h, n, CmEventType.CONNECT_REQUEST, CmStatus.OK, CmReason.NONE, true);
            case CONNECTED -> {
                if (n.state == CmState.OFFLOADED && !n.destroyed) {
                    connected(n, h);
                }
            }
            case MPA_REJECT -> {
                if (n.state != CmState.OFFLOADED) {
                    upcall(h, n, CmEventType.CONNECT_REPLY, CmStatus.CONNECTION_REFUSED, CmReason.PEER_REJECTED,
                            true);
                }
            }
            case REPLY -> {
                if (n.state == CmState.OFFLOADED && !n.destroyed) {
                    upcall(h, n, CmEventType.CONNECT_REPLY, CmStatus.OK, CmReason.NONE, true);
                }
            }
            case ABORTED -> {
                // cm.c irdma_event_connect_error: only an active open has a QP waiting for the reply
                if (n.state != CmState.OFFLOADED && n.active) {
                    n.handler = null;
                    upcall(h, n, CmEventType.CONNECT_REPLY, CmStatus.CONNECTION_RESET, n.failure, false);
                    release(n);
                }
            }
        }
    }

    /** cm.c irdma_cm_event_connected: hand the connection to the QP, the QP sends the RTR, CONNECT_REPLY. */
    private void connected(CmNode n, CmEventHandler h) {
        int qpn = port.offload(tcpContext(n), new MpaOutcome(n.mpaRevision, n.irdOrd.ird(), n.irdOrd.ord(),
                n.irdOrd.rdma0(), true, null), n.consumerQpn);
        if (qpn < 0) {
            n.handler = null;
            upcall(h, n, CmEventType.CONNECT_REPLY, CmStatus.TIMED_OUT, CmReason.LOCAL_ABORT, true);
            release(n);
            return;
        }
        n.qpn = qpn;
        n.qhashSet = false;
        byQp.put(qpn, n);
        n.accelerated = true;
        // cm.c irdma_cm_event_connected: the AH goes once the QP is in RTS (the device owns the four-tuple)
        freeAh(n);
        if (port.reportsEstablished()) {
            awaitEstablished(n);
            return;
        }
        upcall(h, n, CmEventType.CONNECT_REPLY, CmStatus.OK, CmReason.NONE, true);
    }

    /** The connection is the QP's; ESTABLISHED / CONNECT_REPLY wait for its RTS AE, for IRDMA_MAX_TIMEOUT. */
    private void awaitEstablished(CmNode n) {
        n.awaitingEstablished = true;
        n.establishTimer.scheduleIn(ESTABLISH_TIMEOUT_NANOS);
    }

    /** hw.c irdma_process_aeq, IRDMA_AE_LLP_CONNECTION_ESTABLISHED: the waiting accept / connect goes on. */
    private void established(CmNode n) {
        n.awaitingEstablished = false;
        n.establishTimer.cancel();
        if (n.active) {
            post(n, Work.REPLY);
        } else {
            post(n, CmEventType.ESTABLISHED, CmStatus.OK);
        }
    }

    /**
     * The RTS AE did not come within IRDMA_MAX_TIMEOUT. irdma_accept fails with -ECONNRESET; irdma_cm_event_connected
     * only logs a slow connection and reports CONNECT_REPLY anyway.
     */
    void establishTimerExpired(CmNode n) {
        enter();
        try {
            if (!n.awaitingEstablished || n.destroyed) {
                return;
            }
            if (n.active) {
                LOG.debug("slow connection, no RTS AE: {}", n);
                n.awaitingEstablished = false;
                post(n, Work.REPLY);
            } else {
                establishFailed(n, CmReason.ESTABLISH_TIMEOUT);
            }
        } finally {
            leave();
        }
    }

    /** An offloaded connection that never became established: the open fails, the QP's connection is reset. */
    private void establishFailed(CmNode n, CmReason reason) {
        n.awaitingEstablished = false;
        n.establishTimer.cancel();
        n.failure = reason;
        if (n.active) {
            connectErrors++;
            post(n, CmEventType.CONNECT_REPLY, CmStatus.CONNECTION_RESET, reason);
        } else {
            passiveErrors++;
            post(n, CmEventType.ESTABLISHED, CmStatus.CONNECTION_RESET, reason);
        }
        n.handler = null;
        port.closeQp(n.qpn, true);
        close(n);
    }

    private void upcall(CmEventHandler h, CmNode n, CmEventType type, CmStatus status, CmReason reason,
                        boolean withPrivateData) {
        byte[] pd = withPrivateData ? n.privateDataCopy() : new byte[0];
        h.onEvent(new CmEvent(type, status, reason, n, pd, n.irdOrd.ird(), n.irdOrd.ord(), scheduler.now()));
    }

    /** cm.c irdma_init_tcp_ctx. */
    private TcpOffloadContext tcpContext(CmNode n) {
        return new TcpOffloadContext(n.ipv4, n.key.localHi, n.key.localLo, n.key.localPort,
                n.key.remoteHi, n.key.remoteLo, n.key.remotePort, n.localMac, n.remoteMac,
                n.vlanId, n.userPriority, n.vlanId < 4096, DEFAULT_TTL, n.tos,
                n.locSeq, n.locSeq, n.locSeq, n.rcvNxt,
                n.sndWnd, n.maxSndWnd, n.rcvWnd << n.rcvWscale, n.sndWscale, n.rcvWscale,
                n.mss, 2L * n.mss, n.rcvNxt, n.locSeq, 6, 0x3fff_ffffL, 8, n.loopback);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Nodes and listeners

    /** cm.c irdma_make_cm_node; null when the neighbour does not resolve. */
    private CmNode makeNode(FourTuple key, boolean ipv4, boolean active, CmListener listener, int tos, int priority) {
        CmNode n = new CmNode(this, key, ipv4, active, listener);
        n.vlanId = key.vlanId;
        n.tos = tos;
        n.userPriority = priority;
        n.mpaRevision = defaultMpaRevision;
        n.irdOrd.set(port.maxIrd(), port.maxOrd());
        n.localMac = port.macAddress();
        n.rcvWscale = DEFAULT_RCV_WND_SCALE;
        n.rcvWnd = DEFAULT_RCV_WND_SCALED >> n.rcvWscale;
        // secure_tcp_seq: an unpredictable initial sequence number per connection
        n.locSeq = isn.nextInt() & 0xffff_ffffL;
        n.mss = port.mtu() - (ipv4 ? MTU_TO_MSS_IPV4 : MTU_TO_MSS_IPV6);
        n.loopback = isLoopback(ipv4, key);
        long mac = n.loopback ? port.macAddress() : port.resolveNeighbour(ipv4, key.remoteHi, key.remoteLo);
        if (mac < 0) {
            return null;
        }
        n.remoteMac = mac;
        nodes.put(key, n);
        nodesCreated++;
        return n;
    }

    /** cm.c irdma_ipv4_is_lpb / irdma_ipv6_is_lpb. */
    private static boolean isLoopback(boolean ipv4, FourTuple k) {
        if (ipv4) {
            return ((int) k.remoteLo >>> 24) == 127 || k.localLo == k.remoteLo;
        }
        return (k.localHi == k.remoteHi && k.localLo == k.remoteLo) || (k.remoteHi == 0 && k.remoteLo == 1);
    }

    /** Takes a reference on the node: it lives at least until the matching {@link #release}. */
    private static void retain(CmNode n) {
        n.references++;
    }

    /** irdma_rem_ref_cm_node: drop one reference; the last one destroys the node (irdma_destroy_connection). */
    private void release(CmNode n) {
        if (n.destroyed) {
            return;
        }
        if (--n.references > 0) {
            return;
        }
        n.destroyed = true;
        nodes.remove(n.key);
        nodesDestroyed++;
        if (!n.accelerated && n.acceptPending) {
            n.listener.pendingAccepts--;
            n.acceptPending = false;
        }
        n.closeEntry = false;
        n.closeTimer.cancel();
        n.awaitingEstablished = false;
        n.establishTimer.cancel();
        n.sendEntry = false;
        n.retransmitTimer.cancel();
        if (n.listener != null) {
            releaseListener(n.listener, true);
        } else if (n.acceleratedPortSet) {
            port.deleteAcceleratedPort(n.key.localPort);
            n.acceleratedPortSet = false;
        }
        if (n.qhashSet) {
            port.deleteQhash(n.connectionQhash);
            n.qhashSet = false;
        }
        if (n.qpn >= 0) {
            byQp.remove(n.qpn);
            port.destroyQp(n.qpn);
        }
        // cm.c irdma_rem_ref_cm_node ends with cm_free_ah
        freeAh(n);
        if (n.state != CmState.OFFLOADED) {
            n.state = CmState.CLOSED;
        }
        LOG.trace("node destroyed {}", n);
    }

    /** irdma_dec_refcnt_listen: the last reference removes the listener and its quad hash entries. */
    private void releaseListener(CmListener l, boolean deleteAcceleratedPort) {
        if (--l.references > 0) {
            return;
        }
        listeners.remove(l);
        l.removed = true;
        if (deleteAcceleratedPort && l.acceleratedPortSet) {
            port.deleteAcceleratedPort(l.port);
            l.acceleratedPortSet = false;
        }
        for (CmListener child : l.children) {
            if (child.qhash != null) {
                port.deleteQhash(child.qhash);
                child.qhash = null;
            }
        }
        l.children.clear();
        if (l.qhash != null) {
            port.deleteQhash(l.qhash);
            l.qhash = null;
        }
    }

    /**
     * cm.c irdma_find_listener, active listeners for a SYN ({@code either}: also destroyed ones, as
     * irdma_make_listen_node looks). A listener on the exact address and VLAN is preferred to a wildcard one.
     */
    private CmListener findListener(boolean ipv4, long hi, long lo, int port, int vlan, boolean either) {
        CmListener wildcard = null;
        for (CmListener l : listeners) {
            if (l.ipv4 != ipv4 || l.port != port || !(either || l.active)) {
                continue;
            }
            if (l.wildcard) {
                if (wildcard == null) {
                    wildcard = l;
                }
            } else if (l.addressHi == hi && l.addressLo == lo && l.vlanId == vlan) {
                return l;
            }
        }
        return wildcard;
    }

    private boolean addListenerQhash(CmListener l) {
        Qhash q = new Qhash(Qhash.Kind.LISTENER_SYN, l.ipv4, l.addressHi, l.addressLo, l.port, 0, 0, 0,
                l.vlanId, l.userPriority);
        if (!port.addQhash(q)) {
            return false;
        }
        l.qhash = q;
        return true;
    }

    /** cm.c irdma_add_mqh_4 / _6: one child listener and quad hash entry per local address of the family. */
    private boolean addChildListeners(CmListener parent) {
        for (LocalAddress a : port.localAddresses()) {
            if (a.ipv4() != parent.ipv4) {
                continue;
            }
            CmListener child = new CmListener(this, a.ipv4(), a.addressHi(), a.addressLo(), parent.port, false);
            child.vlanId = a.vlanId();
            child.userPriority = parent.userPriority;
            // cm.c quirk kept: the parent takes the VLAN of the last child it made
            parent.vlanId = a.vlanId();
            if (addListenerQhash(child)) {
                parent.children.add(child);
            }
        }
        return true;
    }

    private Qhash connectionQhash(CmNode n) {
        return new Qhash(Qhash.Kind.CONNECTION, n.ipv4, n.key.localHi, n.key.localLo, n.key.localPort,
                n.key.remoteHi, n.key.remoteLo, n.key.remotePort, n.vlanId, n.userPriority);
    }

    /** irdma_get_vlan_ipv4 / irdma_get_vlan_mac_ipv6: the VLAN of the interface holding the address. */
    private int vlanOf(boolean ipv4, long hi, long lo) {
        for (LocalAddress a : port.localAddresses()) {
            if (a.matches(ipv4, hi, lo)) {
                return a.vlanId();
            }
        }
        return CmNode.NO_VLAN;
    }

    private void checkMtu(boolean ipv4) {
        if (port.mtu() < (ipv4 ? MIN_MTU_IPV4 : MIN_MTU_IPV6)) {
            throw new IllegalStateException("MTU " + port.mtu() + " below the minimum for the family");
        }
    }

    /** rt_tos2priority (include/net/route.h, ip_tos2prio): the 802.1p priority for a TOS. */
    static int priorityOfTos(int tos) {
        int index = (tos & 0x1e) >> 1;
        return switch (index >> 2) {
            case 0 -> 0;
            case 1 -> 2;
            case 2 -> 6;
            default -> 4;
        };
    }
}
