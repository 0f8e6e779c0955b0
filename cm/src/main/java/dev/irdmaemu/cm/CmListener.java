package dev.irdmaemu.cm;

import java.util.ArrayList;
import java.util.List;

/**
 * A listen on an address (or the wildcard) and port (irdma's {@code struct irdma_cm_listener}). A wildcard listen
 * programs one quad hash entry per local address, each as a child listener (cm.c irdma_add_mqh). The listener lives
 * on after {@link ConnectionManager#destroyListener} until its last child node is gone (irdma_dec_refcnt_listen),
 * but matches no new SYN once destroyed.
 */
public final class CmListener {
    final ConnectionManager cm;
    final boolean ipv4;
    final long addressHi;
    final long addressLo;
    final int port;
    final boolean wildcard;
    int vlanId;
    int userPriority;
    int tos;
    int backlog;
    CmEventHandler handler;
    boolean active = true;
    int references = 1;
    int pendingAccepts;
    Qhash qhash;
    boolean acceleratedPortSet;
    final List<CmListener> children = new ArrayList<>();
    boolean removed;

    CmListener(ConnectionManager cm, boolean ipv4, long addressHi, long addressLo, int port, boolean wildcard) {
        this.cm = cm;
        this.ipv4 = ipv4;
        this.addressHi = addressHi;
        this.addressLo = addressLo;
        this.port = port;
        this.wildcard = wildcard;
    }

    public IpEndpoint address() {
        return new IpEndpoint(ipv4, addressHi, addressLo, port);
    }

    public int backlog() {
        return backlog;
    }

    /** Connections indicated (SYN received) and not yet accepted (cm.c {@code pend_accepts_cnt}). */
    public int pendingAccepts() {
        return pendingAccepts;
    }

    /** One per local address for a wildcard listen; empty otherwise. */
    public int childListenerCount() {
        return children.size();
    }

    /** False once destroyed: no new connection is created for it. */
    public boolean isActive() {
        return active;
    }

    /** True when it is also gone from the listener table (no child node holds it any more). */
    public boolean isRemoved() {
        return removed;
    }

    @Override
    public String toString() {
        return "listener " + address() + (vlanId != CmNode.NO_VLAN ? " vlan " + vlanId : "") + (active ? "" : " (destroyed)");
    }
}
