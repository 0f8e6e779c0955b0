package dev.irdmaemu.model.cqp;

import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.model.hmc.HmcFunction;
import dev.irdmaemu.model.port.Apbvt;
import dev.irdmaemu.model.port.ArpTable;
import dev.irdmaemu.model.port.QuadHashTable;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;

/**
 * The CQP ops that fill the port's connection tables (ctrl.c irdma_sc_manage_qhash_table_entry,
 * irdma_sc_manage_apbvt_entry, irdma_sc_add_arp_cache_entry / irdma_sc_del_arp_cache_entry): the quad-hash table
 * that steers listening and established TCP connections to QPs, the accelerated port bit vector and the ARP cache
 * (model.port).
 */
final class PortTableOps {
    private final Trace trace;
    private final HmcFunction hmc;
    private final QuadHashTable qhash;
    private final Apbvt apbvt;
    private final ArpTable arp;

    PortTableOps(Trace trace, HmcFunction hmc, QuadHashTable qhash, Apbvt apbvt, ArpTable arp) {
        this.trace = trace;
        this.hmc = hmc;
        this.qhash = qhash;
        this.apbvt = apbvt;
        this.arp = arp;
    }

    private static long hi(CqpWqe w, boolean dest) {
        if (w.qhashIpv4()) {
            return IpAddress.IPV4_MAPPED_HI;
        }
        int a = dest ? w.qhashDestIp(0) : w.qhashSrcIp(0);
        int b = dest ? w.qhashDestIp(1) : w.qhashSrcIp(1);
        return (long) a << 32 | (b & 0xffff_ffffL);
    }

    private static long lo(CqpWqe w, boolean dest) {
        if (w.qhashIpv4()) {
            return IpAddress.mappedLo(dest ? w.qhashDestIp(0) : w.qhashSrcIp(0));
        }
        int a = dest ? w.qhashDestIp(2) : w.qhashSrcIp(2);
        int b = dest ? w.qhashDestIp(3) : w.qhashSrcIp(3);
        return (long) a << 32 | (b & 0xffff_ffffL);
    }

    void manageQhash(CqpWqe w, CqpResult r) {
        int type = w.qhashEntryType();
        if (type != QuadHashTable.TYPE_ESTABLISHED && type != QuadHashTable.TYPE_SYN) {
            r.fail(CqpFault.UNSUPPORTED_FIELD, "only TCP established and SYN entries are modelled");
            return;
        }
        int qpn = w.qhashQpNumber();
        long qpCount = hmc.count(HmcObjectType.QP);
        if (qpn >= qpCount) {
            r.fail(CqpFault.INDEX_OUT_OF_RANGE, "qhash QP number beyond the committed QP count");
            return;
        }
        int vlan = QuadHashTable.vlanKey(w.qhashVlanValid(), w.qhashVlanId());
        long lh = hi(w, true);
        long ll = lo(w, true);
        long rh = hi(w, false);
        long rl = lo(w, false);
        int manage = w.qhashManage();
        QuadHashTable.Change c = switch (manage) {
            case CqpWqe.QHASH_MANAGE_ADD -> qhash.put(type, lh, ll, w.qhashDestPort(), rh, rl, w.qhashSrcPort(), vlan,
                    qpn, false);
            case CqpWqe.QHASH_MANAGE_MODIFY -> qhash.put(type, lh, ll, w.qhashDestPort(), rh, rl, w.qhashSrcPort(),
                    vlan, qpn, true);
            default -> qhash.remove(type, lh, ll, w.qhashDestPort(), rh, rl, w.qhashSrcPort(), vlan);
        };
        TraceEvent t = trace.start(TraceKind.QHASH);
        if (t != null) {
            StringBuilder local = IpAddress.format(lh, ll, new StringBuilder());
            StringBuilder remote = IpAddress.format(rh, rl, new StringBuilder());
            t.text("action", manage == CqpWqe.QHASH_MANAGE_ADD ? "add"
                            : manage == CqpWqe.QHASH_MANAGE_MODIFY ? "modify" : "delete")
                    .text("type", type == QuadHashTable.TYPE_SYN ? "listen" : "established")
                    .text("local", local.toString()).num("local_port", w.qhashDestPort())
                    .text("remote", remote.toString()).num("remote_port", w.qhashSrcPort()).num("vlan", vlan)
                    .num("qp", qpn).text("result", c.name()).emit();
        }
        switch (c) {
            case OK -> r.ok();
            case EXISTS -> r.fail(CqpFault.OBJECT_IN_USE, "qhash entry exists");
            case NOT_FOUND -> r.fail(CqpFault.NO_SUCH_OBJECT, "no such qhash entry");
            case FULL -> r.fail(CqpFault.TABLE_FULL, "qhash table full");
        }
    }

    void manageApbvt(CqpWqe w, CqpResult r) {
        int port = w.apbvtPort();
        boolean changed = w.apbvtAdd() ? apbvt.add(port) : apbvt.remove(port);
        TraceEvent t = trace.start(TraceKind.QHASH);
        if (t != null) {
            t.text("action", w.apbvtAdd() ? "apbvt_add" : "apbvt_delete").num("local_port", port)
                    .flag("changed", changed).emit();
        }
        r.returnValue(changed ? 1 : 0);
    }

    void manageArp(CqpWqe w, CqpResult r) {
        int idx = w.arpIndex();
        if (!arp.inRange(idx)) {
            r.fail(CqpFault.INDEX_OUT_OF_RANGE, "ARP index beyond the committed ARP count");
        } else if (w.arpEntryValid()) {
            arp.set(idx, w.arpMac(), w.arpPermanent());
        } else {
            arp.clear(idx);
        }
    }

}
