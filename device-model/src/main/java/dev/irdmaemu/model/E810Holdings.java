package dev.irdmaemu.model;

import dev.irdmaemu.model.hmc.HmcLimits;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * What an E810 physical function holds at one moment on behalf of its drivers: every object irdma or ice created
 * through the device and has not destroyed, counted by {@link Kind}. A driver that unloads cleanly leaves the
 * counts of its side at zero: {@code rmmod irdma} destroys its QPs, CQs, STags, quad-hash entries, APBVT ports,
 * ARP entries, AHs, work-scheduler nodes, RDMA qsets, EQs, SDs and the CQP (irdma's main.c irdma_remove -> hw.c
 * irdma_ctrl_deinit_hw / irdma_rt_deinit_hw); {@code rmmod ice} frees its VSIs, Tx queues and Rx queues and ends
 * with a PF reset (ice_main.c ice_deinit_dev -> ice_reset(ICE_RESET_PFR)). A snapshot: nothing here follows the
 * function after it was taken. (Gen2 has no SRQs: irdma only creates them on gen3, so they are not counted.)
 */
public final class E810Holdings {
    /** Which driver's objects a {@link Kind} counts. */
    public enum Side {
        /** Made by irdma through the CQP, its registers, or ice's AQ on its behalf (RDMA qsets). */
        RDMA,
        /** Made by ice for its own LAN use. */
        LAN
    }

    /** One kind of object the function holds. */
    public enum Kind {
        /** The control QP, created (1) or not (0): CCQPHIGH/CCQPLOW and CQPDB (ctrl.c irdma_sc_cqp_create). */
        CQP(Side.RDMA, "cqp"),
        /** Live CEQs (CREATE_CEQ). */
        CEQS(Side.RDMA, "ceqs"),
        /** The AEQ, created (1) or not (0) (CREATE_AEQ). */
        AEQ(Side.RDMA, "aeq"),
        /** Live CQs, the CCQ and the PUDA CQs included. */
        CQS(Side.RDMA, "cqs"),
        /** Live QPs, the PUDA (ILQ/IEQ) QPs included. */
        QPS(Side.RDMA, "qps"),
        /** STags allocated or registered (ALLOC_STAG, REG_MR, MW). */
        STAGS(Side.RDMA, "stags"),
        /** Quad-hash entries, established and listening (MANAGE_QHASH_TABLE_ENTRY). */
        QHASH(Side.RDMA, "qhash"),
        /** Local TCP ports in the APBVT (MANAGE_APBVT_ENTRY). */
        APBVT_PORTS(Side.RDMA, "apbvt"),
        /** ARP cache entries (MANAGE_ARP_CACHE). */
        ARP_ENTRIES(Side.RDMA, "arp"),
        /** Address handles (CREATE_AH). */
        ADDRESS_HANDLES(Side.RDMA, "ahs"),
        /** Work-scheduler nodes (WORK_SCHED_NODE add). */
        WS_NODES(Side.RDMA, "ws_nodes"),
        /** RDMA qsets ice added for irdma through the AQ (add_rdma_qset; ice_common.c ice_add_rdma_qset). */
        RDMA_QSETS(Side.RDMA, "qsets"),
        /** HMC segment descriptors made valid (UPDATE_PE_SDS) and not cleared. */
        HMC_SDS(Side.RDMA, "hmc_sds"),
        /** Offloaded iWARP engines (one per QP in RTS with its TCP connection). */
        IWARP_ENGINES(Side.RDMA, "engines"),
        /** Timers the RDMA block has armed on the scheduler (interrupt moderation, WQE allocation, ...). */
        RDMA_TIMERS(Side.RDMA, "timers"),
        /** VSIs (add_vsi, free_vsi). */
        VSIS(Side.LAN, "vsis"),
        /** LAN Tx queues (add_txqs, dis_txqs). */
        TX_QUEUES(Side.LAN, "txqs"),
        /** LAN Rx queues enabled (QRX_CTRL.QENA_REQ). */
        RX_QUEUES(Side.LAN, "rxqs"),
        /** Switch lookup rules (add_sw_rules). */
        SWITCH_RULES(Side.LAN, "rules");

        private final Side side;
        private final String label;

        Kind(Side side, String label) {
            this.side = side;
            this.label = label;
        }

        public Side side() {
            return side;
        }

        /** The short name in {@link E810Holdings#toString()}. */
        public String label() {
            return label;
        }
    }

    private final int[] counts = new int[Kind.values().length];

    private E810Holdings() {
    }

    /** Counts what {@code pf} holds now; call it on the model's thread. */
    public static E810Holdings of(E810PhysicalFunction pf) {
        E810Holdings h = new E810Holdings();
        E810RdmaFunction rdma = pf.rdma();
        h.set(Kind.CQP, rdma.cqp().created() ? 1 : 0);
        int ceqs = 0;
        for (int i = 0; i < HmcLimits.MAX_CEQS; i++) {
            if (rdma.ceq(i).live()) {
                ceqs++;
            }
        }
        h.set(Kind.CEQS, ceqs);
        h.set(Kind.AEQ, rdma.aeq().live() ? 1 : 0);
        h.set(Kind.CQS, rdma.cqs().liveCount());
        h.set(Kind.QPS, rdma.qps().liveCount());
        h.set(Kind.STAGS, rdma.stags().liveCount());
        h.set(Kind.QHASH, rdma.quadHash().establishedCount() + rdma.quadHash().listenCount());
        h.set(Kind.APBVT_PORTS, rdma.apbvt().size());
        h.set(Kind.ARP_ENTRIES, rdma.arp().validCount());
        h.set(Kind.ADDRESS_HANDLES, rdma.addressHandles().liveCount());
        h.set(Kind.WS_NODES, rdma.workScheduler().liveCount());
        h.set(Kind.RDMA_QSETS, pf.switchAndScheduler().txQueues().qsetCount());
        h.set(Kind.HMC_SDS, rdma.hmc().validSds());
        h.set(Kind.IWARP_ENGINES, rdma.iwarp().liveEngines());
        h.set(Kind.RDMA_TIMERS, rdma.scheduler().pendingOwnedBy(rdma));
        h.set(Kind.VSIS, pf.switchAndScheduler().vsis().allocated());
        h.set(Kind.TX_QUEUES, pf.switchAndScheduler().txQueues().queueCount());
        h.set(Kind.RX_QUEUES, pf.lan().rx().enabledCount());
        h.set(Kind.SWITCH_RULES, pf.switchAndScheduler().switchRules().lookupRuleCount());
        return h;
    }

    private void set(Kind k, int n) {
        counts[k.ordinal()] = n;
    }

    public int count(Kind k) {
        return counts[k.ordinal()];
    }

    /** The sum over the kinds of {@code side}: zero when that driver's side holds nothing. */
    public int total(Side side) {
        int n = 0;
        for (Kind k : Kind.values()) {
            if (k.side() == side) {
                n += counts[k.ordinal()];
            }
        }
        return n;
    }

    /** The kinds of {@code side} with a count above zero, with their counts (empty: nothing held). */
    public Map<Kind, Integer> held(Side side) {
        Map<Kind, Integer> m = new EnumMap<>(Kind.class);
        for (Kind k : Kind.values()) {
            if (k.side() == side && counts[k.ordinal()] != 0) {
                m.put(k, counts[k.ordinal()]);
            }
        }
        return m;
    }

    /** The kinds whose counts differ between this snapshot and {@code other}, as "label a->b". */
    public String differences(E810Holdings other) {
        StringBuilder sb = new StringBuilder();
        for (Kind k : Kind.values()) {
            int a = counts[k.ordinal()];
            int b = other.counts[k.ordinal()];
            if (a != b) {
                sb.append(sb.length() == 0 ? "" : " ").append(k.label()).append(' ').append(a).append("->").append(b);
            }
        }
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof E810Holdings h && Arrays.equals(counts, h.counts);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(counts);
    }

    /** "rdma[cqp=1 ceqs=2 ...] lan[vsis=1 ...]": every kind, zero or not. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Side side : Side.values()) {
            sb.append(sb.length() == 0 ? "" : " ").append(side.name().toLowerCase(Locale.ROOT)).append('[');
            boolean first = true;
            for (Kind k : Kind.values()) {
                if (k.side() == side) {
                    sb.append(first ? "" : " ").append(k.label()).append('=').append(counts[k.ordinal()]);
                    first = false;
                }
            }
            sb.append(']');
        }
        return sb.toString();
    }
}
