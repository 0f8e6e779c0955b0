package dev.irdmaemu.cm;

import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CM's ordered event work and its upcalls to consumers, after irdma cm.c irdma_create_event (CM work queued
 * with a reference on the node), irdma_cm_event_handler (the work, by kind) and irdma_send_cm_event (an upcall
 * made directly). The CM has no thread: every entry point {@link #enter enters}, and the outermost
 * {@link #leave} delivers what it queued, in order, before it returns.
 */
final class CmEvents {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionManager.class);

    /** The kinds of CM work cm.c queues (irdma_cm_event_type as irdma_cm_event_handler switches on it). */
    enum Work { MPA_REQUEST, CONNECTED, MPA_REJECT, ABORTED, REPLY }

    /** One queued piece of work, or (with no {@code work}) an upcall made directly to {@code handler}. */
    private record Pending(CmNode node, Work work, CmEventType type, CmStatus status, CmReason reason,
                           CmEventHandler handler) {
    }

    private final ConnectionManager cm;
    private final ArrayDeque<Pending> work = new ArrayDeque<>();
    private int depth;

    CmEvents(ConnectionManager cm) {
        this.cm = cm;
    }

    /** cm.c irdma_create_event: queue CM work; it holds a reference until handled. No consumer, no event. */
    void post(CmNode n, Work w) {
        if (n.handler == null) {
            return;
        }
        CmNodeTable.retain(n);
        work.addLast(new Pending(n, w, null, null, null, null));
    }

    /** An upcall made directly (cm.c irdma_send_cm_event), delivered in order after the current work. */
    void post(CmNode n, CmEventType type, CmStatus status) {
        post(n, type, status, CmReason.NONE);
    }

    void post(CmNode n, CmEventType type, CmStatus status, CmReason reason) {
        if (n.handler == null) {
            return;
        }
        CmNodeTable.retain(n);
        work.addLast(new Pending(n, null, type, status, reason, n.handler));
    }

    /** An entry point of the CM begins. */
    void enter() {
        depth++;
    }

    /** An entry point ends; the outermost delivers the queued work, each piece giving up its reference. */
    void leave() {
        if (depth == 1) {
            while (!work.isEmpty()) {
                Pending p = work.pollFirst();
                try {
                    handle(p);
                } catch (RuntimeException e) {
                    LOG.warn("CM event consumer threw on {}", p.node, e);
                } finally {
                    cm.table.release(p.node);
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
                    cm.offloaded.connected(n, h);
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
                    cm.table.release(n);
                }
            }
        }
    }

    /** The consumer's upcall for {@code n}, with the private data the peer sent when {@code withPrivateData}. */
    void upcall(CmEventHandler h, CmNode n, CmEventType type, CmStatus status, CmReason reason,
                boolean withPrivateData) {
        byte[] pd = withPrivateData ? n.privateDataCopy() : new byte[0];
        h.onEvent(new CmEvent(type, status, reason, n, pd, n.irdOrd.ird(), n.irdOrd.ord(), cm.scheduler().now()));
    }
}
