package dev.irdmaemu.cm;

import dev.irdmaemu.fw.iwarp.MpaFrame;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CM's connection nodes: made for a four-tuple, found by it (and by QP once offloaded), reference counted,
 * destroyed with the last reference; and the addressing a new node takes from the device. After irdma cm.c
 * irdma_make_cm_node, irdma_find_node, irdma_add_hte_node, irdma_rem_ref_cm_node / irdma_destroy_connection,
 * irdma_ipv4_is_lpb / irdma_ipv6_is_lpb, and the VLAN look-ups irdma_get_vlan_ipv4 / irdma_get_vlan_mac_ipv6.
 * Finding a node allocates nothing (the receive path's look-up).
 */
final class CmNodeTable {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionManager.class);

    private final ConnectionManager cm;
    private final CmHardwarePort port;
    private final SplittableRandom isn;
    private final HashMap<FourTuple, CmNode> nodes = new HashMap<>();
    private final HashMap<Integer, CmNode> byQp = new HashMap<>();
    private int defaultMpaRevision = MpaFrame.REVISION_2;
    private long nodesCreated;
    private long nodesDestroyed;

    CmNodeTable(ConnectionManager cm, SplittableRandom isn) {
        this.cm = cm;
        this.port = cm.port();
        this.isn = isn;
    }

    /** The MPA revision new nodes start with (cm.h IRDMA_CM_DEFAULT_MPA_VER). */
    void defaultMpaRevision(int revision) {
        this.defaultMpaRevision = revision;
    }

    /** cm.c irdma_make_cm_node; null when the neighbour does not resolve. */
    CmNode makeNode(FourTuple key, boolean ipv4, boolean active, CmListener listener, int tos, int priority) {
        CmNode n = new CmNode(cm, key, ipv4, active, listener);
        n.vlanId = key.vlanId;
        n.tos = tos;
        n.userPriority = priority;
        n.mpaRevision = defaultMpaRevision;
        n.irdOrd.set(port.maxIrd(), port.maxOrd());
        n.localMac = port.macAddress();
        n.rcvWscale = ConnectionManager.DEFAULT_RCV_WND_SCALE;
        n.rcvWnd = ConnectionManager.DEFAULT_RCV_WND_SCALED >> n.rcvWscale;
        // secure_tcp_seq: an unpredictable initial sequence number per connection
        n.locSeq = isn.nextInt() & 0xffff_ffffL;
        n.mss = port.mtu() - (ipv4 ? ConnectionManager.MTU_TO_MSS_IPV4 : ConnectionManager.MTU_TO_MSS_IPV6);
        n.loopback = isLoopback(ipv4, key);
        if (n.loopback) {
            n.remoteMac = port.macAddress();
        } else {
            OptionalLong mac = port.neighbourMac(ipv4, key.remoteHi, key.remoteLo);
            if (mac.isEmpty()) {
                return null;
            }
            n.remoteMac = mac.getAsLong();
        }
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

    /** cm.c irdma_find_node: the node of a four-tuple, or null. */
    CmNode find(FourTuple key) {
        return nodes.get(key);
    }

    boolean contains(FourTuple key) {
        return nodes.containsKey(key);
    }

    /** The offloaded node of QP {@code qpn}, or null. */
    CmNode byQp(int qpn) {
        return byQp.get(qpn);
    }

    /** The node's connection is on QP {@code qpn} now. */
    void bindQp(CmNode n, int qpn) {
        n.qpn = qpn;
        byQp.put(qpn, n);
    }

    /** A snapshot of the nodes, to walk while nodes go. */
    List<CmNode> snapshot() {
        return new ArrayList<>(nodes.values());
    }

    /** Takes a reference on the node: it lives at least until the matching {@link #release}. */
    static void retain(CmNode n) {
        n.references++;
    }

    /** irdma_rem_ref_cm_node: drop one reference; the last one destroys the node (irdma_destroy_connection). */
    void release(CmNode n) {
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
        releaseDeviceState(n);
        if (n.state != CmState.OFFLOADED) {
            n.state = CmState.CLOSED;
        }
        LOG.trace("node destroyed {}", n);
    }

    /** What a destroyed node held of the device: its listener's reference or its port, qhash entry, QP and AH. */
    private void releaseDeviceState(CmNode n) {
        if (n.listener != null) {
            cm.listeners.release(n.listener, true);
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
        cm.ahs.free(n);
    }

    /** irdma_get_vlan_ipv4 / irdma_get_vlan_mac_ipv6: the VLAN of the interface holding the address. */
    int vlanOf(boolean ipv4, long hi, long lo) {
        for (LocalAddress a : port.localAddresses()) {
            if (a.matches(ipv4, hi, lo)) {
                return a.vlanId();
            }
        }
        return CmNode.NO_VLAN;
    }

    /**
     * A connection's or listener's user priority for TOS {@code tos} on local address {@code hi:lo}: rt_tos2priority,
     * through the egress QoS map of the VLAN sub-interface that holds the address, if it is on one (cm.c
     * irdma_iw_get_vlan_prio; an untagged address keeps the TOS's priority).
     */
    int userPriority(boolean ipv4, long hi, long lo, int tos) {
        int priority = priorityOfTos(tos);
        int vlan = vlanOf(ipv4, hi, lo);
        return vlan == CmNode.NO_VLAN ? priority : port.egressPriority(vlan, priority);
    }

    /** The device's MTU must carry the family's minimum (defs.h IRDMA_MIN_MTU_IPV4 / _IPV6). */
    void checkMtu(boolean ipv4) {
        if (port.mtu() < (ipv4 ? ConnectionManager.MIN_MTU_IPV4 : ConnectionManager.MIN_MTU_IPV6)) {
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

    int count() {
        return nodes.size();
    }

    Collection<CmNode> view() {
        return Collections.unmodifiableCollection(new ArrayList<>(nodes.values()));
    }

    /** Nodes that belong to a listener (not-yet-destroyed passive connections). */
    int listenerChildCount() {
        int c = 0;
        for (CmNode n : nodes.values()) {
            if (n.listener != null) {
                c++;
            }
        }
        return c;
    }

    long created() {
        return nodesCreated;
    }

    long destroyed() {
        return nodesDestroyed;
    }
}
