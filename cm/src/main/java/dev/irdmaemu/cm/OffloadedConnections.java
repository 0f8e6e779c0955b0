package dev.irdmaemu.cm;

import dev.irdmaemu.driver.verbs.MpaOutcome;
import dev.irdmaemu.driver.verbs.QpEvent;
import dev.irdmaemu.driver.verbs.TcpOffloadContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connections handed to a QP: the active side's offload once the MPA reply is in, the wait for the QP's RTS AE,
 * the QP's events (the peer's FIN, close complete, terminate, resets) as consumer upcalls, and the close of a node
 * (irdma_cm_close). After irdma cm.c irdma_cm_event_connected, irdma_init_tcp_ctx, irdma_cm_disconn_true,
 * irdma_cm_close, and what hw.c irdma_process_aeq makes of a QP's AEs (IRDMA_AE_LLP_CONNECTION_ESTABLISHED among
 * them); the passive side's offload is {@link ConnectionControl#accept} (irdma_accept).
 */
final class OffloadedConnections {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionManager.class);

    private final ConnectionManager cm;
    private final CmHardwarePort port;

    OffloadedConnections(ConnectionManager cm) {
        this.cm = cm;
        this.port = cm.port();
    }

    /** hw.c irdma_process_aeq to cm.c irdma_cm_disconn_true: an AE of the QP of an offloaded node. */
    void qpEvent(int qpn, QpEvent event) {
        cm.events.enter();
        try {
            CmNode n = cm.table.byQp(qpn);
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
            connectionEvent(n, qpn, event);
        } finally {
            cm.events.leave();
        }
    }

    /** An event of an established connection. */
    private void connectionEvent(CmNode n, int qpn, QpEvent event) {
        switch (event) {
            case FIN_RECEIVED -> {
                if (n.closeEntry) {
                    return;
                }
                // the QP goes to CLOSING (it answers with its own FIN) and the consumer hears DISCONNECT
                port.closeQp(qpn, false);
                cm.events.post(n, CmEventType.DISCONNECT, CmStatus.OK);
                cm.closeEntries.armQpBackstop(n);
            }
            case CLOSE_COMPLETE -> qpClosed(n, false, CmReason.NONE);
            case TERMINATED -> {
                // cm.c irdma_cm_disconn_true with term_flags: DISCONNECT (status 0) and CLOSE
                cm.events.post(n, CmEventType.DISCONNECT, CmStatus.OK, CmReason.TERMINATED);
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
    }

    /** DISCONNECT (reset) and CLOSE upcalls, then irdma_cm_close on the node, which releases it. */
    void qpClosed(CmNode n, boolean reset, CmReason reason) {
        if (n.closeEntry) {
            n.closeEntry = false;
            n.closeTimer.cancel();
        }
        CmEventHandler h = n.handler;
        if (h != null) {
            if (reset) {
                cm.events.post(n, CmEventType.DISCONNECT, CmStatus.CONNECTION_RESET, reason);
            }
            cm.events.post(n, CmEventType.CLOSE, CmStatus.OK, reason);
            n.handler = null;
        }
        close(n);
    }

    /** cm.c irdma_cm_close. */
    void close(CmNode n) {
        switch (n.state) {
            case SYN_RCVD, SYN_SENT, ONE_SIDE_ESTABLISHED, ESTABLISHED, ACCEPTING, MPAREQ_SENT, MPAREQ_RCVD,
                    LISTENING -> {
                cm.sender.clearSendEntry(n);
                cm.sender.sendReset(n);
            }
            case CLOSE_WAIT -> {
                n.state = CmState.LAST_ACK;
                cm.sender.sendFin(n);
            }
            case FIN_WAIT1, FIN_WAIT2, LAST_ACK, TIME_WAIT, CLOSING -> {
                // cm.c answers -EINVAL: the close is already under way
            }
            default -> cm.closeEntries.endAndRelease(n);
        }
    }

    /** cm.c irdma_cm_event_connected: hand the connection to the QP, the QP sends the RTR, CONNECT_REPLY. */
    void connected(CmNode n, CmEventHandler h) {
        OffloadResult r = port.offload(tcpContext(n), new MpaOutcome(n.mpaRevision, n.irdOrd.ird(),
                n.irdOrd.ord(), n.irdOrd.rdma0(), true, null), n.consumerQpn);
        if (!(r instanceof OffloadResult.Offloaded o)) {
            LOG.debug("offload of {} refused: {}", n, ((OffloadResult.Refused) r).reason());
            n.handler = null;
            cm.events.upcall(h, n, CmEventType.CONNECT_REPLY, CmStatus.TIMED_OUT, CmReason.LOCAL_ABORT, true);
            cm.table.release(n);
            return;
        }
        n.qhashSet = false;
        cm.table.bindQp(n, o.qpn());
        n.accelerated = true;
        // cm.c irdma_cm_event_connected: the AH goes once the QP is in RTS (the device owns the four-tuple)
        cm.ahs.free(n);
        if (port.reportsEstablished()) {
            awaitEstablished(n);
            return;
        }
        cm.events.upcall(h, n, CmEventType.CONNECT_REPLY, CmStatus.OK, CmReason.NONE, true);
    }

    /** The connection is the QP's; ESTABLISHED / CONNECT_REPLY wait for its RTS AE, for IRDMA_MAX_TIMEOUT. */
    void awaitEstablished(CmNode n) {
        n.awaitingEstablished = true;
        n.establishTimer.scheduleIn(ConnectionManager.ESTABLISH_TIMEOUT_NANOS);
    }

    /** hw.c irdma_process_aeq, IRDMA_AE_LLP_CONNECTION_ESTABLISHED: the waiting accept / connect goes on. */
    private void established(CmNode n) {
        n.awaitingEstablished = false;
        n.establishTimer.cancel();
        if (n.active) {
            cm.events.post(n, CmEvents.Work.REPLY);
        } else {
            cm.events.post(n, CmEventType.ESTABLISHED, CmStatus.OK);
        }
    }

    /**
     * The RTS AE did not come within IRDMA_MAX_TIMEOUT. irdma_accept fails with -ECONNRESET; irdma_cm_event_connected
     * only logs a slow connection and reports CONNECT_REPLY anyway.
     */
    void establishTimerExpired(CmNode n) {
        cm.events.enter();
        try {
            if (!n.awaitingEstablished || n.destroyed) {
                return;
            }
            if (n.active) {
                LOG.debug("slow connection, no RTS AE: {}", n);
                n.awaitingEstablished = false;
                cm.events.post(n, CmEvents.Work.REPLY);
            } else {
                establishFailed(n, CmReason.ESTABLISH_TIMEOUT);
            }
        } finally {
            cm.events.leave();
        }
    }

    /** An offloaded connection that never became established: the open fails, the QP's connection is reset. */
    void establishFailed(CmNode n, CmReason reason) {
        n.awaitingEstablished = false;
        n.establishTimer.cancel();
        n.failure = reason;
        if (n.active) {
            cm.openErrors.countConnectError();
            cm.events.post(n, CmEventType.CONNECT_REPLY, CmStatus.CONNECTION_RESET, reason);
        } else {
            cm.openErrors.countPassiveError();
            cm.events.post(n, CmEventType.ESTABLISHED, CmStatus.CONNECTION_RESET, reason);
        }
        n.handler = null;
        port.closeQp(n.qpn, true);
        close(n);
    }

    /** cm.c irdma_init_tcp_ctx. */
    static TcpOffloadContext tcpContext(CmNode n) {
        return new TcpOffloadContext(n.ipv4, n.key.localHi, n.key.localLo, n.key.localPort,
                n.key.remoteHi, n.key.remoteLo, n.key.remotePort, n.localMac, n.remoteMac,
                n.vlanId, n.userPriority, n.vlanId < 4096, ConnectionManager.DEFAULT_TTL, n.tos,
                n.locSeq, n.locSeq, n.locSeq, n.rcvNxt,
                n.sndWnd, n.maxSndWnd, n.rcvWnd << n.rcvWscale, n.sndWscale, n.rcvWscale,
                n.mss, 2L * n.mss, n.rcvNxt, n.locSeq, 6, 0x3fff_ffffL, 8, n.loopback);
    }
}
