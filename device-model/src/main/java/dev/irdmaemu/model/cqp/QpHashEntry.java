package dev.irdmaemu.model.cqp;

import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.model.port.QuadHashTable;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;

/**
 * A QP's own established entry in the quad-hash table, which the QP ops install and remove themselves rather than
 * through Manage Quad Hash Table Entry: the takeover at RTS (verbs.c irdma_modify_qp to IB_QPS_RTS sets
 * tcp_ctx_valid and hte_added) and IRDMA_CQPSQ_QP_REMOVEHASHENTRY (ctrl.c irdma_sc_qp_destroy, irdma_sc_qp_modify).
 */
final class QpHashEntry {
    /**
     * The QP's 4-tuple and VLAN in the quad-hash table's form (IPv4 in address word 3, IPv4-mapped; the VLAN as
     * {@link QuadHashTable#vlanKey} keys it: the QP's tag when it inserts one, else untagged).
     */
    private record Key(long localHi, long localLo, long remoteHi, long remoteLo, int vlan) {
        static Key of(QueuePair qp) {
            int vlan = QuadHashTable.vlanKey(qp.insertVlan(), qp.vlanTag() & 0xfff);
            if (qp.ipv4()) {
                return new Key(IpAddress.IPV4_MAPPED_HI, IpAddress.mappedLo(qp.localIp(3)), IpAddress.IPV4_MAPPED_HI,
                        IpAddress.mappedLo(qp.remoteIp(3)), vlan);
            }
            return new Key((long) qp.localIp(0) << 32 | (qp.localIp(1) & 0xffff_ffffL),
                    (long) qp.localIp(2) << 32 | (qp.localIp(3) & 0xffff_ffffL),
                    (long) qp.remoteIp(0) << 32 | (qp.remoteIp(1) & 0xffff_ffffL),
                    (long) qp.remoteIp(2) << 32 | (qp.remoteIp(3) & 0xffff_ffffL), vlan);
        }
    }

    private final QuadHashTable qhash;
    private final Trace trace;

    QpHashEntry(QuadHashTable qhash, Trace trace) {
        this.qhash = qhash;
        this.trace = trace;
    }

    /**
     * IRDMA_CQPSQ_QP_REMOVEHASHENTRY (ctrl.c irdma_sc_qp_destroy: irdma always sets it, verbs.c irdma_destroy_qp;
     * irdma_sc_qp_modify with the terminate path's hte flag): drop the established entry of the QP's own 4-tuple.
     */
    void remove(QueuePair qp) {
        Key k = Key.of(qp);
        QuadHashTable.Change c = qhash.remove(QuadHashTable.TYPE_ESTABLISHED, k.localHi(), k.localLo(),
                qp.localPort(), k.remoteHi(), k.remoteLo(), qp.remotePort(), k.vlan());
        trace(qp, k, "remove", c);
    }

    /**
     * The hash takeover at RTS (cm.c irdma_accept / irdma_cm_event_connected clear the CM node's qhash_set, so the
     * driver never deletes the ILQ-pointing established entry it added): the device installs the established entry
     * of the QP's 4-tuple, or re-points the existing one, to the QP, so the classifier steers the connection to it
     * from now on. A full table fails the op (TABLE_FULL) before the QP changes state. False when it failed.
     */
    boolean takeOver(QueuePair qp, CqpResult r) {
        Key k = Key.of(qp);
        QuadHashTable.Change c = qhash.put(QuadHashTable.TYPE_ESTABLISHED, k.localHi(), k.localLo(), qp.localPort(),
                k.remoteHi(), k.remoteLo(), qp.remotePort(), k.vlan(), qp.id(), false);
        if (c == QuadHashTable.Change.EXISTS) {
            c = qhash.put(QuadHashTable.TYPE_ESTABLISHED, k.localHi(), k.localLo(), qp.localPort(), k.remoteHi(),
                    k.remoteLo(), qp.remotePort(), k.vlan(), qp.id(), true);
        }
        trace(qp, k, "take_over", c);
        if (c != QuadHashTable.Change.OK) {
            r.fail(CqpFault.TABLE_FULL, "no room for the QP's established hash entry");
            return false;
        }
        return true;
    }

    private void trace(QueuePair qp, Key k, String what, QuadHashTable.Change c) {
        TraceEvent t = trace.start(TraceKind.QHASH);
        if (t != null) {
            t.text("op", what).text("by", "qp").num("qp", qp.id()).num("local_port", qp.localPort())
                    .num("remote_port", qp.remotePort()).num("vlan", k.vlan()).text("result", c.name()).emit();
        }
    }
}
