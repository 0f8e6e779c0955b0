package dev.irdmaemu.model.port;

import dev.irdmaemu.fw.frame.TcpPacket;

/**
 * Decides where a received TCP segment goes, most specific first: an established quad-hash entry (the 4-tuple and
 * VLAN), then a listen entry (local address, port and VLAN), then the APBVT (a local port RDMA owns but no entry
 * names: the model hands it to the ILQ, the exception path of RDMA ports), else the LAN. The frame must have
 * passed {@link TcpPacket#validate()}. Allocation-free.
 */
public final class ReceiveClassifier {
    /** Where a frame goes. */
    public enum Route {
        /** An established entry names this QP. */
        QP_ESTABLISHED,
        /** A listen entry names this QP (normally the ILQ). */
        QP_LISTEN,
        /** No entry, but the APBVT marks the destination port. */
        APBVT,
        /** Nothing RDMA wants it. */
        LAN
    }

    private final QuadHashTable qhash;
    private final Apbvt apbvt;
    private int qpn = -1;

    public ReceiveClassifier(QuadHashTable qhash, Apbvt apbvt) {
        this.qhash = qhash;
        this.apbvt = apbvt;
    }

    /** Classifies a validated segment; for the QP routes {@link #qpn()} answers the target. */
    public Route classify(TcpPacket p) {
        int vlan = p.vlanId();
        int localPort = p.tcp().destinationPort();
        int remotePort = p.tcp().sourcePort();
        if (qhash.findEstablished(p.destinationHi(), p.destinationLo(), localPort, p.sourceHi(), p.sourceLo(),
                remotePort, vlan)) {
            qpn = qhash.foundQpn();
            return Route.QP_ESTABLISHED;
        }
        if (qhash.findListen(p.destinationHi(), p.destinationLo(), localPort, vlan)) {
            qpn = qhash.foundQpn();
            return Route.QP_LISTEN;
        }
        qpn = -1;
        return apbvt.contains(localPort) ? Route.APBVT : Route.LAN;
    }

    public int qpn() {
        return qpn;
    }
}
