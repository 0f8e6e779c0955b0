package dev.irdmaemu.model.roce;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.fw.roce.PathMtu;
import dev.irdmaemu.model.mr.MemoryRegions;
import dev.irdmaemu.model.port.ArpTable;
import dev.irdmaemu.model.qp.CqTable;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.roce.rc.RcEngine;
import dev.irdmaemu.model.roce.rc.RcEvents;
import dev.irdmaemu.model.roce.rc.RcPath;
import dev.irdmaemu.model.roce.rc.RcWire;
import dev.irdmaemu.model.trace.Trace;

/**
 * One RC QP of the RoCEv2 block between Create QP and Destroy QP: its transport engine ({@link RcEngine}), the path
 * the engine reads ({@link RcPath}, refilled from the RoCE context at every load, as irdma rewrites the whole
 * context before each Modify QP: verbs.c irdma_modify_qp_roce, ctrl.c irdma_sc_qp_setctx_roce_gen_2), its RQ
 * ({@link RcReceiveRing}), its CQE writer ({@link RcCompletionWriter}) and the memory its engine reaches
 * ({@link RcQpMemory}: STags, and a kernel QP's STag-0 SGEs at their physical address). Made at Create QP (the
 * control path), released at Destroy QP.
 */
final class RcQp {
    /** The retransmit timeout: not in the gen2 context (RoCE facts §8), the device's choice (about 67 ms). */
    static final long RETRANSMIT_TIMEOUT_NANOS = 4_096L * (1 << 14);
    /** The RNR NAK timer code this QP's responder advertises (IBA Table 45: 0.01 ms), not in the gen2 context. */
    static final int RNR_TIMER_CODE = 1;

    private final RcPath path = new RcPath();
    private final RcEngine engine;
    private final RcReceiveRing rq;
    private final RcCompletionWriter completions;
    private final RcQpMemory local;
    /** An SQ WQE was refused with an AE: nothing more is fetched until the QP changes state. */
    private boolean sqStopped;

    RcQp(QueuePair qp, HostMemory memory, MemoryRegions regions, CqTable cqs, Trace trace, RcEvents events,
         RcWire wire) {
        this.rq = new RcReceiveRing(memory);
        this.completions = new RcCompletionWriter(memory, cqs, trace, qp.sqQuanta());
        this.local = new RcQpMemory(memory, regions);
        this.engine = new RcEngine(path, local, rq, completions, events, wire, Math.max(1, qp.sqQuanta()));
    }

    RcEngine engine() {
        return engine;
    }

    RcCompletionWriter completions() {
        return completions;
    }

    /** Refills the path from the RoCE context {@code q} just loaded for {@code qp}. */
    void configure(QueuePair qp, RoceQp q, ArpTable arp) {
        rq.bind(qp, q.rqWqeBytes);
        local.privileged(q.privileged);
        completions.bind(qp);
        long remoteMac = arp.valid(q.arpIndex) ? arp.mac(q.arpIndex) : 0;
        if (q.ipv4) {
            // verbs.c irdma_modify_qp_roce: an IPv4 address sits in the last word of the four
            path.ipv4(q.mac, remoteMac, q.localIp[3], q.destIp[3]);
        } else {
            path.addresses(q.mac, remoteMac, word(q.localIp[0], q.localIp[1]), word(q.localIp[2], q.localIp[3]),
                    word(q.destIp[0], q.destIp[1]), word(q.destIp[2], q.destIp[3]));
        }
        path.ip(q.tos, q.ttl, q.flowLabel, q.srcPort != 0 ? q.srcPort : 0xc000)
                .queuePairs(qp.id(), q.destQp, q.pKey)
                .mtu(PathMtu.ofBytes(q.pathMtu).orElse(PathMtu.MTU_1024))
                .psns(q.sendPsn, q.expectedPsn)
                .retries(q.retryCount, q.rnrRetry, RNR_TIMER_CODE, RETRANSMIT_TIMEOUT_NANOS)
                .reads(q.ord, QpContext.decodeIrd(q.irdCode).orElse(1))
                .vlan(q.insertVlan, q.vlanTag)
                .protectionDomain(q.pd);
    }

    private static long word(int hi, int lo) {
        return (long) hi << 32 | (lo & 0xffff_ffffL);
    }

    boolean sqStopped() {
        return sqStopped;
    }

    void stopSq() {
        sqStopped = true;
    }

    void resumeSq() {
        sqStopped = false;
    }

    void release() {
        engine.release();
    }
}
