package dev.irdmaemu.cm;

import dev.irdmaemu.cm.mpa.IrdOrd;
import dev.irdmaemu.driver.verbs.Rdma0;
import dev.irdmaemu.fw.sim.SimTimer;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * One connection, active or passive (irdma's {@code struct irdma_cm_node}): its four-tuple, the software TCP state
 * of the setup phase, the MPA state, its retransmission and close timers. Public for reading; everything that
 * changes it goes through the {@link ConnectionManager}.
 *
 * <p>Lifetime follows cm.c's reference counting, because when a node disappears is observable (its quad hash entry
 * goes, and the device answers later segments with a reset): the connection itself holds one reference, a pending
 * retransmission one, a queued event one, the frame being processed one. The node is destroyed when the last is
 * dropped (irdma_rem_ref_cm_node).
 */
public final class CmNode {
    /** irdma: a {@code vlan_id} of VLAN_N_VID or above means untagged; cm.c uses 0xffff. */
    public static final int NO_VLAN = 0xffff;
    /** Largest frame the CM builds: tagged Ethernet, IPv6, TCP with options, MPA v2 header, 512 bytes of data. */
    static final int FRAME_CAPACITY = 18 + 40 + 60 + 24 + 512;

    final ConnectionManager cm;
    final FourTuple key;
    final boolean ipv4;
    final boolean active;
    final CmListener listener;
    CmEventHandler handler;
    CmState state = CmState.INITED;
    int references = 1;
    boolean destroyed;
    CmReason failure = CmReason.NONE;

    // addressing (cm.c irdma_make_cm_node)
    int vlanId;
    int userPriority;
    int tos;
    long localMac;
    long remoteMac;
    boolean loopback;

    // software TCP of the setup phase (struct irdma_cm_tcp_context)
    long locSeq;
    long locAck;
    long remAck;
    long rcvNxt;
    long sndWnd;
    long maxSndWnd;
    long rcvWnd;
    int mss;
    int sndWscale;
    int rcvWscale;

    // MPA (struct irdma_cm_node)
    int mpaRevision = 2;
    final IrdOrd irdOrd = new IrdOrd();
    final byte[] privateData = new byte[ConnectParams.MAX_PRIVATE_DATA];
    private BytesStore<?, ?> privateDataView;
    int privateDataLength;
    boolean ackReceived;
    boolean peerWantsMarkers;

    // bookkeeping with the device and the listener
    boolean qhashSet;
    boolean acceleratedPortSet;
    boolean acceptPending;
    boolean accelerated;
    int passiveState;
    int qpn = -1;
    /** The consumer's QP for the connection (iw_cm_conn_param.qpn), -1 for one of the port's. */
    int consumerQpn = -1;
    /** Offloaded, waiting for the QP's RTS AE before ESTABLISHED / CONNECT_REPLY (IRDMA_FEATURE_RTS_AE). */
    boolean awaitingEstablished;
    Qhash connectionQhash;

    // the send entry of cm.c irdma_schedule_cm_timer: one frame kept for retransmission
    final BytesStore<?, ?> sendFrame;
    int sendLength;
    int sendHeaderLength;
    /** The node's address handle (cm.c cm_node->ah), -1 when it has none. */
    int ah = -1;
    /** ah_info.ah_valid: the device took the AH (a passive node's is not until its create completes). */
    boolean ahValid;
    boolean sendEntry;
    /** The send entry's frame waits for the node's AH to become valid (created without waiting). */
    boolean sendAwaitsAh;
    boolean sendRetransmits;
    boolean closeWhenComplete;
    int retransLeft;
    int retriesLeft;
    final SimTimer retransmitTimer;
    // the close entry: TIME_WAIT (no QP) or the QP close backstop
    boolean closeEntry;
    boolean closeEntryForQp;
    final SimTimer closeTimer;
    /** irdma_accept / irdma_cm_event_connected: how long the RTS AE is waited for (IRDMA_MAX_TIMEOUT). */
    final SimTimer establishTimer;

    CmNode(ConnectionManager cm, FourTuple key, boolean ipv4, boolean active, CmListener listener) {
        this.cm = cm;
        this.key = key;
        this.ipv4 = ipv4;
        this.active = active;
        this.listener = listener;
        this.sendFrame = BytesStore.wrap(new byte[FRAME_CAPACITY]);
        this.retransmitTimer = cm.scheduler().newTimer("cm-rexmit", () -> cm.sender.retransmitTimerExpired(this));
        this.closeTimer = cm.scheduler().newTimer("cm-close", () -> cm.closeEntries.expired(this));
        this.establishTimer = cm.scheduler().newTimer("cm-establish",
                () -> cm.offloaded.establishTimerExpired(this));
    }

    public CmState state() {
        return state;
    }

    /** True for the node that called connect (cm.c {@code tcp_cntxt.client}). */
    public boolean isActive() {
        return active;
    }

    public IpEndpoint local() {
        return new IpEndpoint(ipv4, key.localHi, key.localLo, key.localPort);
    }

    public IpEndpoint remote() {
        return new IpEndpoint(ipv4, key.remoteHi, key.remoteLo, key.remotePort);
    }

    public int vlanId() {
        return vlanId;
    }

    public int mpaRevision() {
        return mpaRevision;
    }

    public int ird() {
        return irdOrd.ird();
    }

    public int ord() {
        return irdOrd.ord();
    }

    /** The zero-length operation negotiated for the RTR. */
    public Rdma0 rdma0() {
        return irdOrd.rdma0();
    }

    /** True between the offload and the QP's RTS AE (ESTABLISHED / CONNECT_REPLY not reported yet). */
    public boolean awaitingEstablished() {
        return awaitingEstablished;
    }

    /** The QP the connection was offloaded to, -1 before. */
    public int qpn() {
        return qpn;
    }

    public int mss() {
        return mss;
    }

    /** The node no longer exists in the CM (its last reference was dropped). */
    public boolean isDestroyed() {
        return destroyed;
    }

    /** The private data buffer as bytes the frame builders copy from (made on first use, once per node). */
    BytesStore<?, ?> privateDataStore() {
        if (privateDataView == null) {
            privateDataView = BytesStore.wrap(privateData);
        }
        return privateDataView;
    }

    byte[] privateDataCopy() {
        byte[] b = new byte[privateDataLength];
        System.arraycopy(privateData, 0, b, 0, privateDataLength);
        return b;
    }

    @Override
    public String toString() {
        return (active ? "active " : "passive ") + local() + "<->" + remote()
                + (vlanId != NO_VLAN ? " vlan " + vlanId : "") + " " + state + (destroyed ? " (destroyed)" : "");
    }
}
