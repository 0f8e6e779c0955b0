package dev.irdmaemu.cm;

import dev.irdmaemu.driver.verbs.MpaOutcome;
import dev.irdmaemu.fw.iwarp.MpaFrame;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a consumer asks of a connection, in iw_cm's shape: connect (the active open), accept and reject of an
 * indicated connection, disconnect, and the teardown of every connection on an address. After irdma cm.c
 * irdma_connect with irdma_create_cm_node, irdma_accept, irdma_reject with irdma_cm_reject, irdma_cm_close (a
 * node still in setup; an offloaded one closes through its QP, verbs.c irdma_modify_qp) and
 * irdma_cm_teardown_connections.
 */
final class ConnectionControl {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionManager.class);
    /** cm.h IRDMA_SEND_RESET_EVENT: accept or reject after a reset of an indicated connection. */
    private static final int PASSIVE_RESET_SEEN = 2;

    private final ConnectionManager cm;
    private final CmHardwarePort port;
    private long accepts;
    private long rejects;

    ConnectionControl(ConnectionManager cm) {
        this.cm = cm;
        this.port = cm.port();
    }

    /** cm.c irdma_connect, irdma_create_cm_node; see {@link ConnectionManager#connect}. */
    CmNode connect(IpEndpoint local, IpEndpoint remote, ConnectParams params, CmEventHandler handler) {
        Objects.requireNonNull(handler, "handler");
        cm.events.enter();
        try {
            if (local.ipv4() != remote.ipv4() || local.port() == 0 || remote.port() == 0) {
                throw new IllegalArgumentException("connect needs two ports of one family: " + local + " " + remote);
            }
            cm.table.checkMtu(local.ipv4());
            int vlan = cm.table.vlanOf(local.ipv4(), local.addressHi(), local.addressLo());
            FourTuple key = new FourTuple().set(local.addressHi(), local.addressLo(), local.port(),
                    remote.addressHi(), remote.addressLo(), remote.port(), vlan);
            if (cm.table.contains(key)) {
                throw new IllegalStateException("four-tuple in use: " + local + " " + remote);
            }
            CmNode n = cm.table.makeNode(key, local.ipv4(), true, null, params.tos(),
                    cm.table.userPriority(local.ipv4(), local.addressHi(), local.addressLo(), params.tos()));
            if (n == null) {
                cm.openErrors.countConnectError();
                throw new IllegalStateException("no neighbour for " + remote);
            }
            n.handler = handler;
            n.consumerQpn = params.qpn();
            n.rcvWscale = ConnectionManager.DEFAULT_RCV_WND_SCALE;
            n.mpaRevision = params.mpaRevision();
            n.irdOrd.record(params.ird(), params.ord(), port.maxIrd(), port.maxOrd());
            byte[] pd = params.privateData();
            System.arraycopy(pd, 0, n.privateData, 0, pd.length);
            n.privateDataLength = pd.length;
            programActiveOpen(n, local);
            n.state = CmState.SYN_SENT;
            cm.sender.sendSyn(n, false);
            LOG.debug("connect {}", n);
            return n;
        } finally {
            cm.events.leave();
        }
    }

    /**
     * cm.c irdma_connect: irdma_cm_create_ah (waited for), then the connection's qhash entry and the accelerated
     * port; when the device refuses one, the node goes and the connect fails.
     */
    private void programActiveOpen(CmNode n, IpEndpoint local) {
        if (!cm.ahs.create(n)) {
            failActiveOpen(n, "device refused the address handle for " + n);
        }
        n.connectionQhash = AddressHandles.connectionQhash(n);
        if (!port.addQhash(n.connectionQhash)) {
            failActiveOpen(n, "device refused the quad hash entry for " + n);
        }
        n.qhashSet = true;
        if (!port.addAcceleratedPort(local.port())) {
            failActiveOpen(n, "device refused accelerating port " + local.port());
        }
        n.acceleratedPortSet = true;
    }

    private void failActiveOpen(CmNode n, String why) {
        cm.openErrors.countConnectError();
        cm.table.release(n);
        throw new IllegalStateException(why);
    }

    /** cm.c irdma_accept; see {@link ConnectionManager#accept(CmNode, byte[], CmEventHandler, int)}. */
    boolean accept(CmNode n, byte[] privateData, CmEventHandler connectionHandler, int qpn) {
        cm.events.enter();
        try {
            if (n.destroyed || n.active) {
                return false;
            }
            if (privateData.length > ConnectParams.MAX_PRIVATE_DATA) {
                throw new IllegalArgumentException("private data of " + privateData.length + " bytes");
            }
            if (n.state == CmState.LISTENER_DESTROYED) {
                cm.table.release(n);
                return false;
            }
            if (++n.passiveState == PASSIVE_RESET_SEEN) {
                cm.table.release(n);
                return false;
            }
            byte[] lsmm = cm.mpa.acceptReply(n, privateData);
            n.consumerQpn = qpn;
            // cm.c irdma_accept: qhash_set cleared and the AH freed before irdma_modify_qp to RTS
            cm.ahs.free(n);
            OffloadResult r = port.offload(OffloadedConnections.tcpContext(n), new MpaOutcome(n.mpaRevision,
                    n.irdOrd.ird(), n.irdOrd.ord(), n.irdOrd.rdma0(), false, lsmm), qpn);
            if (!(r instanceof OffloadResult.Offloaded o)) {
                LOG.debug("offload of {} refused: {}", n, ((OffloadResult.Refused) r).reason());
                cm.table.release(n);
                return false;
            }
            accepted(n, connectionHandler, o.qpn());
            return true;
        } finally {
            cm.events.leave();
        }
    }

    /** cm.c irdma_cm_init_tsa_conn and the rest of irdma_accept: the QP owns the four-tuple now. */
    private void accepted(CmNode n, CmEventHandler connectionHandler, int qpn) {
        if (connectionHandler != null) {
            n.handler = connectionHandler;
        }
        n.state = CmState.OFFLOADED;
        n.qhashSet = false;
        cm.table.bindQp(n, qpn);
        if (port.reportsEstablished()) {
            cm.offloaded.awaitEstablished(n);
        } else {
            cm.events.post(n, CmEventType.ESTABLISHED, CmStatus.OK);
        }
        n.accelerated = true;
        if (n.acceptPending) {
            n.listener.pendingAccepts--;
            n.acceptPending = false;
        }
        accepts++;
    }

    /** cm.c irdma_reject, irdma_cm_reject; see {@link ConnectionManager#reject}. */
    boolean reject(CmNode n, byte[] privateData) {
        cm.events.enter();
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
            cm.sender.clearSendEntry(n);
            if (++n.passiveState == PASSIVE_RESET_SEEN) {
                n.state = CmState.CLOSED;
                cm.table.release(n);
                return true;
            }
            if (n.state == CmState.LISTENER_DESTROYED) {
                cm.table.release(n);
                return true;
            }
            cm.mpa.sendReject(n, privateData);
            return true;
        } finally {
            cm.events.leave();
        }
    }

    /** irdma_modify_qp to CLOSING / ERROR, or cm.c irdma_cm_close; see {@link ConnectionManager#disconnect}. */
    void disconnect(CmNode n, boolean abortive) {
        cm.events.enter();
        try {
            if (n.destroyed) {
                return;
            }
            if (n.state == CmState.OFFLOADED && n.qpn >= 0) {
                if (n.awaitingEstablished) {
                    // not reported up yet: the consumer gives it up before the RTS AE
                    cm.offloaded.establishFailed(n, CmReason.LOCAL_ABORT);
                    return;
                }
                port.closeQp(n.qpn, abortive);
                // verbs.c irdma_modify_qp to SQD or ERR starts the QP's close timer (the backstop)
                cm.closeEntries.armQpBackstop(n);
                return;
            }
            cm.offloaded.close(n);
        } finally {
            cm.events.leave();
        }
    }

    /** cm.c irdma_cm_teardown_connections: those on {@code address}, or (null) every one of the device. */
    void teardown(LocalAddress address) {
        cm.events.enter();
        try {
            List<CmNode> affected = new ArrayList<>();
            for (CmNode n : cm.table.snapshot()) {
                if (address == null
                        || (n.vlanId == address.vlanId() && address.matches(n.ipv4, n.key.localHi, n.key.localLo))) {
                    CmNodeTable.retain(n);
                    affected.add(n);
                }
            }
            for (CmNode n : affected) {
                if (n.state == CmState.OFFLOADED && n.qpn >= 0) {
                    port.closeQp(n.qpn, true);
                } else if (!n.state.closingOrLater() && n.state != CmState.MPAREJ_RCVD) {
                    if (n.active) {
                        cm.openErrors.active(n, true, CmReason.LOCAL_ABORT);
                    } else {
                        cm.openErrors.passive(n, true, CmReason.LOCAL_ABORT, null);
                    }
                }
                cm.table.release(n);
            }
        } finally {
            cm.events.leave();
        }
    }

    long accepts() {
        return accepts;
    }

    long rejects() {
        return rejects;
    }
}
