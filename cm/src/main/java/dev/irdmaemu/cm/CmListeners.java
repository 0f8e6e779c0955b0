package dev.irdmaemu.cm;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CM's listeners: listen, the quad hash entries that steer SYNs (one per local address for a wildcard listen),
 * the look-up a SYN makes, destroy and the reference counting that keeps a destroyed listener while it has
 * children, and the entries' life across address changes. After irdma cm.c irdma_create_listen,
 * irdma_make_listen_node, irdma_find_listener, irdma_add_mqh_4 / irdma_add_mqh_6, irdma_cm_del_listen,
 * irdma_dec_refcnt_listen, and irdma_if_notify with irdma_qhash_ctrl.
 */
final class CmListeners {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionManager.class);

    private final ConnectionManager cm;
    private final CmHardwarePort port;
    private final List<CmListener> listeners = new ArrayList<>();

    CmListeners(ConnectionManager cm) {
        this.cm = cm;
        this.port = cm.port();
    }

    /** cm.c irdma_create_listen, irdma_make_listen_node; see {@link ConnectionManager#listen}. */
    CmListener listen(IpEndpoint address, int backlog, int tos, CmEventHandler handler) {
        Objects.requireNonNull(handler, "handler");
        cm.events.enter();
        try {
            cm.table.checkMtu(address.ipv4());
            boolean wildcard = address.isWildcard();
            int vlan = wildcard ? CmNode.NO_VLAN
                    : cm.table.vlanOf(address.ipv4(), address.addressHi(), address.addressLo());
            CmListener found = find(address.ipv4(), address.addressHi(), address.addressLo(), address.port(), vlan,
                    true);
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
                l = new CmListener(cm, address.ipv4(), address.addressHi(), address.addressLo(), address.port(),
                        wildcard);
                listeners.add(0, l);
            }
            l.handler = handler;
            l.vlanId = vlan;
            l.pendingAccepts = 0;
            l.backlog = backlog;
            l.active = true;
            l.tos = tos;
            l.userPriority = wildcard ? CmNodeTable.priorityOfTos(tos)
                    : cm.table.userPriority(address.ipv4(), address.addressHi(), address.addressLo(), tos);
            if (!reused) {
                program(l, address);
            }
            LOG.debug("listen {} backlog {}", l, backlog);
            return l;
        } finally {
            cm.events.leave();
        }
    }

    /** A new listener's quad hash entries and accelerated port; when the device refuses, the listener goes. */
    private void program(CmListener l, IpEndpoint address) {
        boolean ok = l.wildcard ? addChildListeners(l) : addQhash(l);
        if (ok) {
            ok = l.acceleratedPortSet = port.addAcceleratedPort(l.port);
        }
        if (!ok) {
            l.active = false;
            l.handler = null;
            release(l, true);
            throw new IllegalStateException("device refused the listen on " + address);
        }
    }

    /** cm.c irdma_cm_del_listen; see {@link ConnectionManager#destroyListener}. */
    void destroy(CmListener l) {
        cm.events.enter();
        try {
            if (!l.active) {
                return;
            }
            l.active = false;
            l.handler = null;
            List<CmNode> hanging = new ArrayList<>();
            for (CmNode n : cm.table.snapshot()) {
                if (n.listener == l && !n.accelerated) {
                    CmNodeTable.retain(n);
                    hanging.add(n);
                }
            }
            for (CmNode n : hanging) {
                if (n.state.closingOrLater()) {
                    cm.table.release(n);
                    continue;
                }
                cm.sender.clearSendEntry(n);
                cm.sender.sendReset(n);
                CmState old = n.state;
                n.state = CmState.LISTENER_DESTROYED;
                if (old != CmState.MPAREQ_RCVD) {
                    cm.table.release(n);
                }
            }
            release(l, true);
        } finally {
            cm.events.leave();
        }
    }

    /** irdma_dec_refcnt_listen: the last reference removes the listener and its quad hash entries. */
    void release(CmListener l, boolean deleteAcceleratedPort) {
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
     * Allocates nothing.
     */
    CmListener find(boolean ipv4, long hi, long lo, int port, int vlan, boolean either) {
        CmListener wildcard = null;
        for (int i = 0, size = listeners.size(); i < size; i++) {
            CmListener l = listeners.get(i);
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

    /** The listener's SYN entry in the quad hash (irdma_manage_qhash with IRDMA_QHASH_TYPE_TCP_SYN). */
    private boolean addQhash(CmListener l) {
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
            CmListener child = new CmListener(cm, a.ipv4(), a.addressHi(), a.addressLo(), parent.port, false);
            child.vlanId = a.vlanId();
            // cm.c irdma_add_mqh_4/_6: the child's priority through its address's VLAN egress map
            child.userPriority = a.vlanId() == CmNode.NO_VLAN ? parent.userPriority
                    : port.egressPriority(a.vlanId(), parent.userPriority);
            // cm.c quirk kept: the parent takes the VLAN of the last child it made
            parent.vlanId = a.vlanId();
            if (addQhash(child)) {
                parent.children.add(child);
            }
        }
        return true;
    }

    /** irdma_if_notify, ifdown; see {@link ConnectionManager#addressRemoved}. */
    void addressRemoved(LocalAddress address) {
        cm.events.enter();
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
            cm.control.teardown(address);
        } finally {
            cm.events.leave();
        }
    }

    /** irdma_if_notify, ifup (irdma_qhash_ctrl); see {@link ConnectionManager#addressAdded}. */
    void addressAdded(LocalAddress address) {
        cm.events.enter();
        try {
            for (CmListener l : listenersFor(address)) {
                if (l.wildcard) {
                    restoreChild(l, address);
                } else if (l.qhash == null) {
                    addQhash(l);
                }
            }
        } finally {
            cm.events.leave();
        }
    }

    /** A wildcard listener's child for {@code address}: made when missing, its entry added again when gone. */
    private void restoreChild(CmListener l, LocalAddress address) {
        CmListener child = null;
        for (CmListener c : l.children) {
            if (address.matches(c.ipv4, c.addressHi, c.addressLo)) {
                child = c;
            }
        }
        if (child == null) {
            child = new CmListener(cm, address.ipv4(), address.addressHi(), address.addressLo(), l.port, false);
            child.vlanId = address.vlanId();
            child.userPriority = address.vlanId() == CmNode.NO_VLAN ? l.userPriority
                    : port.egressPriority(address.vlanId(), l.userPriority);
            if (addQhash(child)) {
                l.children.add(child);
            }
        } else if (child.qhash == null) {
            addQhash(child);
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

    /** Listeners in the table, including destroyed ones that still have children. */
    int count() {
        return listeners.size();
    }
}
