package dev.irdmaemu.cm;

/**
 * A node's close entry: the timer that ends it after TIME_WAIT, after the FIN_WAIT2 (and MPAREJ_RCVD) timeout,
 * or as the backstop of an offloaded connection's close. After irdma cm.c irdma_schedule_cm_timer (for a close),
 * irdma_handle_close_entry with rem_node set, the TIME_WAIT step of irdma_handle_fin_pkt, and the close timer
 * verbs.c irdma_modify_qp and hw.c (LLP_FIN_RECEIVED) start for a QP.
 */
final class CloseEntries {
    private final ConnectionManager cm;

    CloseEntries(ConnectionManager cm) {
        this.cm = cm;
    }

    /**
     * A close entry without QP that releases the node when it fires: TIME_WAIT's (cm.c irdma_handle_fin_pkt in
     * FIN_WAIT2 schedules one HZ/10 ahead) and the FIN_WAIT2 timeout. Re-arming replaces the earlier deadline.
     * The entry stands for the node's own reference; it takes none.
     */
    void arm(CmNode n, long delayNanos) {
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
    void endAndRelease(CmNode n) {
        cancel(n);
        cm.table.release(n);
    }

    /** Drops a close entry without QP (TIME_WAIT, the FIN timeout); a QP's backstop stays. */
    static void cancel(CmNode n) {
        if (n.closeEntry && !n.closeEntryForQp) {
            n.closeEntry = false;
            n.closeTimer.cancel();
        }
    }

    /** verbs.c irdma_modify_qp / hw.c LLP_FIN_RECEIVED: the close entry carrying the QP, a backstop for the close. */
    void armQpBackstop(CmNode n) {
        if (n.closeEntry) {
            return;
        }
        n.closeEntry = true;
        n.closeEntryForQp = true;
        n.closeTimer.scheduleIn(ConnectionManager.CLOSE_DELAY_NANOS);
    }

    /** cm.c irdma_handle_close_entry with rem_node set. */
    void expired(CmNode n) {
        cm.events.enter();
        try {
            if (!n.closeEntry) {
                return;
            }
            n.closeEntry = false;
            if (n.closeEntryForQp) {
                // the QP is forced closed: CLOSE to the consumer, then the node goes (irdma_cm_disconn_true)
                if (!n.destroyed) {
                    cm.offloaded.qpClosed(n, false, CmReason.CLOSE_TIMEOUT);
                }
            } else if (n.state == CmState.MPAREJ_RCVD) {
                // the rejecting peer never sent its FIN: reset it, and the node goes (sendReset releases)
                n.state = CmState.CLOSED;
                cm.sender.sendReset(n);
            } else {
                cm.table.release(n);
            }
        } finally {
            cm.events.leave();
        }
    }
}
