package dev.irdmaemu.cm;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's address handle, through which its segments leave, and the connection's quad hash entry that follows
 * it on the passive side: created waited for (an active open) or posted (a SYN's node, whose SYN-ACK waits for the
 * create and then for the entry), freed once. After irdma cm.c irdma_cm_create_ah, irdma_cm_free_ah,
 * irdma_add_conn_est_qh, utils.c irdma_ilq_ah_cb and hw.c irdma_send_syn_cqp_callback.
 */
final class AddressHandles {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionManager.class);

    private final ConnectionManager cm;
    private final CmHardwarePort port;
    private long ahRefusals;
    private long connectionQhashRefusals;

    AddressHandles(ConnectionManager cm) {
        this.cm = cm;
        this.port = cm.port();
    }

    /** cm.c irdma_cm_create_ah(cm_node, true) for node {@code n}: valid on return; false when refused. */
    boolean create(CmNode n) {
        return taken(n, port.createAh(info(n)), true, "no AH for {}: {}");
    }

    /**
     * cm.c irdma_cm_create_ah(cm_node, false) for node {@code n}: the AH exists but is not valid until
     * {@link #created}; false when no AH could be posted.
     */
    boolean createNoWait(CmNode n) {
        return taken(n, port.createAh(info(n), (index, valid) -> created(n, index, valid)), false,
                "no AH posted for {}: {}");
    }

    /** The device's answer {@code r} for node {@code n}: its index and validity noted, or the refusal logged. */
    private static boolean taken(CmNode n, AhResult r, boolean valid, String refusal) {
        if (!(r instanceof AhResult.Created c)) {
            LOG.debug(refusal, n, ((AhResult.Refused) r).reason());
            return false;
        }
        n.ah = c.index();
        n.ahValid = valid;
        return true;
    }

    private static AhInfo info(CmNode n) {
        return new AhInfo(n.ipv4, n.key.localHi, n.key.localLo, n.key.remoteHi, n.key.remoteLo, n.localMac,
                n.remoteMac, n.tos, ConnectionManager.DEFAULT_TTL, n.vlanId, n.userPriority, n.loopback);
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
    private void created(CmNode n, int ah, boolean valid) {
        if (n.destroyed || n.ah != ah) {
            return;
        }
        n.ahValid = valid;
        if (!valid) {
            ahRefusals++;
        }
        if (n.sendEntry && n.sendAwaitsAh && n.state != CmState.SYN_RCVD) {
            heldSendCompleted(n, valid);
        }
        if (n.state != CmState.SYN_RCVD) {
            return;
        }
        n.connectionQhash = connectionQhash(n);
        CmNodeTable.retain(n);
        if (!port.addQhash(n.connectionQhash, added -> connectionQhashDone(n, added))) {
            cm.table.release(n);
            cm.openErrors.passive(n, false, CmReason.LOCAL_ABORT, null);
            return;
        }
        n.qhashSet = true;
    }

    /** The send entry held for the AH: it goes out now, or (refused) can never be formed and is dropped. */
    private void heldSendCompleted(CmNode n, boolean valid) {
        if (valid) {
            cm.sender.startSend(n);
            return;
        }
        // refused: the frame can never be formed; a node that was to close once it went out closes now
        boolean close = n.closeWhenComplete;
        cm.sender.clearSendEntry(n);
        if (close) {
            cm.table.release(n);
        }
    }

    /**
     * hw.c irdma_send_syn_cqp_callback: the established entry's add completed: the SYN-ACK (irdma_send_syn with
     * its ACK), whatever the op's answer (the kernel's callback does not look at it), then the callback's reference
     * goes. A node that left SYN_RCVD meanwhile (the peer's RST, a FIN, a timeout) has nothing to answer.
     */
    private void connectionQhashDone(CmNode n, boolean added) {
        cm.events.enter();
        try {
            if (!added) {
                connectionQhashRefusals++;
            }
            if (!n.destroyed && n.state == CmState.SYN_RCVD) {
                cm.sender.sendSyn(n, true);
            }
            cm.table.release(n);
        } finally {
            cm.events.leave();
        }
    }

    /** The quad hash entry of the node's four-tuple (IRDMA_QHASH_TYPE_TCP_ESTABLISHED). */
    static Qhash connectionQhash(CmNode n) {
        return new Qhash(Qhash.Kind.CONNECTION, n.ipv4, n.key.localHi, n.key.localLo, n.key.localPort,
                n.key.remoteHi, n.key.remoteLo, n.key.remotePort, n.vlanId, n.userPriority);
    }

    /** cm.c irdma_cm_free_ah: once per AH. */
    void free(CmNode n) {
        if (n.ah >= 0) {
            port.destroyAh(n.ah);
            n.ah = -1;
            n.ahValid = false;
        }
    }

    long refusals() {
        return ahRefusals;
    }

    long connectionQhashRefusals() {
        return connectionQhashRefusals;
    }
}
