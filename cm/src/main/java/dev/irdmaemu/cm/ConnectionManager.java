package dev.irdmaemu.cm;

import dev.irdmaemu.cm.mpa.MpaVerdict;
import dev.irdmaemu.driver.verbs.QpEvent;
import dev.irdmaemu.fw.sim.SimScheduler;
import java.util.Collection;
import java.util.function.Consumer;
import net.openhft.chronicle.bytes.BytesStore;

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
 *
 * <p>This class is the API; the work is split as cm.c's sections are: the node table ({@link CmNodeTable}), the
 * listeners ({@link CmListeners}), the consumer's calls on a connection ({@link ConnectionControl}), the receive
 * path of the handshake ({@link HandshakeReceiver}), the MPA exchange ({@link MpaExchange}), segment sending and
 * retransmission ({@link SegmentSender}), close timers ({@link CloseEntries}), address handles
 * ({@link AddressHandles}), offloaded connections and their QP events ({@link OffloadedConnections}), failed
 * opens ({@link OpenErrors}) and the ordered upcalls ({@link CmEvents}).
 */
public final class ConnectionManager implements CmHardwarePort.Receiver {
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

    private final CmHardwarePort port;
    private final SimScheduler scheduler;
    final CmNodeTable table;
    final CmEvents events;
    final CmListeners listeners;
    final SegmentSender sender;
    final CloseEntries closeEntries;
    final MpaExchange mpa;
    final AddressHandles ahs;
    final OffloadedConnections offloaded;
    final OpenErrors openErrors;
    final ConnectionControl control;
    final HandshakeReceiver receiver;

    public ConnectionManager(CmHardwarePort port) {
        this.port = port;
        this.scheduler = port.scheduler();
        this.table = new CmNodeTable(this, scheduler.random(0x1c5eedL ^ port.macAddress()));
        this.events = new CmEvents(this);
        this.listeners = new CmListeners(this);
        this.sender = new SegmentSender(this);
        this.closeEntries = new CloseEntries(this);
        this.mpa = new MpaExchange(this);
        this.ahs = new AddressHandles(this);
        this.offloaded = new OffloadedConnections(this);
        this.openErrors = new OpenErrors(this);
        this.control = new ConnectionControl(this);
        this.receiver = new HandshakeReceiver(this);
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
        table.defaultMpaRevision(revision);
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
        return listeners.listen(address, backlog, tos, handler);
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
        listeners.destroy(l);
    }

    /**
     * Starts an active open: creates the node, programs the connection's quad hash entry and accelerated port and
     * sends the SYN (cm.c irdma_connect, irdma_create_cm_node). Events go to {@code handler}.
     *
     * @throws IllegalStateException when the neighbour does not resolve, the four-tuple is in use or the device
     *                               refuses the quad hash entry
     */
    public CmNode connect(IpEndpoint local, IpEndpoint remote, ConnectParams params, CmEventHandler handler) {
        return control.connect(local, remote, params, handler);
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
        return control.accept(n, privateData, connectionHandler, qpn);
    }

    /**
     * Rejects an indicated connection with private data (cm.c irdma_reject, irdma_cm_reject): an MPA reply with
     * the R flag, sent with FIN.
     */
    public boolean reject(CmNode n, byte[] privateData) {
        return control.reject(n, privateData);
    }

    /**
     * Ends a connection. Offloaded: the QP closes gracefully (FIN) or abortively (RST) and DISCONNECT/CLOSE follow
     * (irdma_modify_qp to CLOSING or ERROR, irdma_cm_disconn_true). Still in setup: cm.c irdma_cm_close (a reset
     * for the setup states, a FIN from CLOSE_WAIT, release otherwise).
     */
    public void disconnect(CmNode n, boolean abortive) {
        control.disconnect(n, abortive);
    }

    /**
     * A local address went down (irdma_if_notify, ifdown): the listeners' quad hash entries for it are removed
     * (irdma_qhash_ctrl for wildcard listeners' children) and its connections are torn down.
     */
    public void addressRemoved(LocalAddress address) {
        listeners.addressRemoved(address);
    }

    /**
     * A local address came (back) up (irdma_if_notify, ifup): listeners on it get their quad hash entry again, and
     * a wildcard listener without a child for the address gets a new one (irdma_qhash_ctrl).
     */
    public void addressAdded(LocalAddress address) {
        listeners.addressAdded(address);
    }

    /**
     * Tears down every connection on a local address (cm.c irdma_cm_teardown_connections): offloaded ones by moving
     * the QP to error (the device resets the connection, CLOSE follows), ones still in setup by failing the open
     * with a reset (the active side's consumer gets CONNECT_REPLY -ECONNRESET).
     */
    public void teardownConnections(LocalAddress address) {
        control.teardown(address);
    }

    /** Tears down every connection of the device (irdma_cm_teardown_connections with disconnect_all). */
    public void teardownAllConnections() {
        control.teardown(null);
    }

    // ------------------------------------------------------------------------------------------------------------
    // What the device delivers

    /** A frame the quad hash steered to the ILQ (cm.c irdma_receive_ilq); allocates nothing for a known node. */
    @Override
    public void receive(BytesStore<?, ?> frame, long offset, int length) {
        receiver.receive(frame, offset, length);
    }

    /** An AE of an offloaded connection's QP (hw.c irdma_process_aeq, cm.c irdma_cm_disconn_true). */
    @Override
    public void qpEvent(int qpn, QpEvent event) {
        offloaded.qpEvent(qpn, event);
    }

    /**
     * cm.c irdma_parse_mpa on {@code length} bytes at {@code offset} for node {@code n}, without acting on the
     * verdict. Package-visible so the rules can be checked one by one.
     */
    MpaVerdict parseMpa(CmNode n, BytesStore<?, ?> store, long offset, int length) {
        return mpa.parse(n, store, offset, length);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Observation

    /** Connection nodes that exist (not yet destroyed). */
    public int nodeCount() {
        return table.count();
    }

    public Collection<CmNode> nodes() {
        return table.view();
    }

    /** Listeners in the table, including destroyed ones that still have children. */
    public int listenerCount() {
        return listeners.count();
    }

    /** Nodes that belong to a listener (not-yet-destroyed passive connections). */
    public int listenerChildNodeCount() {
        return table.listenerChildCount();
    }

    public long nodesCreated() {
        return table.created();
    }

    public long nodesDestroyed() {
        return table.destroyed();
    }

    public long retransmissions() {
        return sender.retransmissions();
    }

    public long backlogDrops() {
        return receiver.backlogDrops();
    }

    /** Frames the ILQ delivered that failed the Ethernet/IP/TCP checks (checksums included) and were dropped. */
    public long framesRefused() {
        return receiver.framesRefused();
    }

    /** Accepts that went through (cm.c stats_accepts). */
    public long accepts() {
        return control.accepts();
    }

    /** Rejects asked for (cm.c stats_rejects). */
    public long rejects() {
        return control.rejects();
    }

    /** CM segments not sent because the node had no AH (cm.c irdma_form_ah_cm_frame: "AH invalid"). */
    public long framesWithoutAh() {
        return sender.framesWithoutAh();
    }

    public long connectErrors() {
        return openErrors.connectErrors();
    }

    /**
     * Who hears each connection refused on the passive side before it reached a listener (cm.c
     * irdma_passive_open_err: an MPA request irdma_parse_mpa refuses, a full backlog, bad TCP options, a reset
     * during the set-up), with the endpoints and the reason: irdma makes no upcall for these, so this is where a
     * trace or a test learns why (null: nobody). Called on the CM's thread; one listener, replaced by the next.
     */
    public ConnectionManager onPassiveRefusal(Consumer<PassiveRefusal> listener) {
        openErrors.onPassiveRefusal(listener);
        return this;
    }

    public long passiveErrors() {
        return openErrors.passiveErrors();
    }

    /** Established qhash entries of passive nodes that the device refused (their SYN-ACK went out regardless). */
    public long connectionQhashRefusals() {
        return ahs.connectionQhashRefusals();
    }

    /** Address handles the device answered "not valid" after a create without waiting. */
    public long ahRefusals() {
        return ahs.refusals();
    }
}
