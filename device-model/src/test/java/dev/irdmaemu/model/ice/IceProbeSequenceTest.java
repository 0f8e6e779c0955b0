package dev.irdmaemu.model.ice;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.DisableTxqItem;
import dev.irdmaemu.fw.aq.RdmaQsetGroup;
import dev.irdmaemu.fw.aq.RssCommand;
import dev.irdmaemu.fw.aq.SchedElement;
import dev.irdmaemu.fw.aq.SchedGroup;
import dev.irdmaemu.fw.aq.SchedResources;
import dev.irdmaemu.fw.aq.SwitchConfigElement;
import dev.irdmaemu.fw.aq.SwitchRule;
import dev.irdmaemu.fw.aq.TxQueueContext;
import dev.irdmaemu.fw.aq.TxQueueGroup;
import dev.irdmaemu.fw.aq.VsiCommand;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The scheduler, switch, VSI, RSS, Tx queue and RDMA qset commands in the order ice.ko sends them at probe
 * (e810-probe-facts.md §1.3 A and D, then E's switch rules, interface up and irdma's qset), each reply parsed the
 * way ice parses it (ice_switch.c ice_get_initial_sw_cfg, ice_sched.c ice_sched_query_res_alloc /
 * ice_sched_init_port / ice_sched_add_elems / ice_sched_query_elem, ice_common.c ice_aq_add_lan_txq /
 * ice_ena_vsi_rdma_qset / ice_dis_vsi_rdma_qset).
 */
class IceProbeSequenceTest {
    private AqBench bench;
    private final SchedElement element = new SchedElement();
    private final SchedGroup group = new SchedGroup();
    private int[] maxChildren;
    private int layers;

    @BeforeEach
    void probeA() {
        bench = new AqBench();
        // §1.3 A #8 get_sw_cfg: a PHYS_PORT element, req_desc 0 ends the loop.
        Bytes<?> sw = AqBench.buffer(2048);
        assertEquals(AqError.OK, bench.send(AqOpcode.GET_SW_CFG, sw));
        assertEquals(0, bench.desc.paramU16(SwitchConfigElement.PARAM_ELEMENT), "req_desc");
        assertEquals(1, bench.desc.paramU16(SwitchConfigElement.PARAM_NUM_ELEMS));
        SwitchConfigElement e = new SwitchConfigElement().wrap(sw, 0);
        assertEquals(SwitchConfigElement.TYPE_PHYS_PORT, e.type());
        assertEquals(0, e.number(), "lport");
        assertEquals(0, e.swid());

        // #9 query_sched_res: 9 logical layers, every layer but the leaves can have children. ice sends
        // sizeof(struct ice_aqc_query_txsched_res_resp): 32 generic bytes and 9 layers of 32 (a 24-byte layer once
        // left the deep layers' sibling sizes zero, and the real ice.ko crashed in ice_sched_add_node)
        assertEquals(32 + 9 * 32, SchedResources.SIZE);
        Bytes<?> res = AqBench.buffer(SchedResources.SIZE);
        assertEquals(AqError.OK, bench.send(AqOpcode.QUERY_SCHED_RES, res));
        SchedResources r = new SchedResources().wrap(res, 0, SchedResources.SIZE);
        layers = r.logicalLevels();
        assertEquals(9, layers);
        maxChildren = new int[layers];
        for (int i = 0; i < layers - 1; i++) {
            maxChildren[i] = r.maxSiblingGroup(i + 1);
            assertTrue(maxChildren[i] > 0, "layer " + i + " max children");
        }

        // #10 get_dflt_topo for lport 0 in a 4 KB buffer (ICE_AQ_MAX_BUF_LEN).
        Bytes<?> topo = AqBench.buffer(4096);
        assertEquals(AqError.OK, bench.send(AqOpcode.GET_DFLT_TOPO, d -> d.paramU8(SchedGroup.PARAM_TOPO_PORT, 0),
                topo));
        int branches = bench.desc.paramU8(SchedGroup.PARAM_TOPO_BRANCHES);
        assertTrue(branches >= 1 && branches <= 8, "num_branches " + branches);
        group.wrap(topo, 0, SchedGroup.TOPO_BRANCH_SIZE);
        int numElems = group.numElems();
        assertTrue(numElems >= 1 && numElems <= 9, "num_elems " + numElems);
        List<Long> teids = new ArrayList<>();
        List<Long> parents = new ArrayList<>();
        List<Integer> types = new ArrayList<>();
        int entryLayer = -1;
        for (int j = 0; j < numElems; j++) {
            element.wrap(topo, group.elementAt(j));
            teids.add(element.nodeTeid());
            parents.add(element.parentTeid());
            types.add(element.elemType());
            if (j > 0 && element.elemType() == SchedElement.TYPE_ENTRY_POINT) {
                entryLayer = j;
            }
        }
        assertEquals(SchedElement.TYPE_ROOT_PORT, (int) types.get(0));
        assertEquals(SchedElement.TYPE_TC, (int) types.get(1));
        assertEquals(TxScheduler.ENTRY_POINT_LAYER, entryLayer, "an ENTRY_POINT element sets sw_entry_point_layer");
        // ice adds the entry layer's first node under the TC node itself (ice_sched_add_vsi_support_nodes)
        assertEquals(SchedElement.TYPE_TC, (int) types.get(entryLayer - 1), "the entry point hangs off the TC");
        // #11 every default node after the root is queried by TEID (ice_sched_add_node), its parent known.
        for (int j = 1; j < numElems; j++) {
            Bytes<?> q = AqBench.buffer(SchedElement.SIZE);
            SchedElement qe = new SchedElement().wrap(q, 0).nodeTeid(teids.get(j));
            assertEquals(AqError.OK, bench.send(AqOpcode.GET_SCHED_ELEMS,
                    d -> d.paramU16(SchedGroup.PARAM_NUM_ELEM_REQ, 1), q));
            assertEquals(1, bench.desc.paramU16(SchedGroup.PARAM_NUM_ELEM_RESP));
            assertEquals(teids.get(j - 1), qe.parentTeid());
            assertEquals((int) types.get(j), qe.elemType());
        }
        // #12 ice_rm_dflt_leaf_node, then ice_sched_rm_dflt_nodes frees the entry point's subtree bottom-up.
        assertEquals(SchedElement.TYPE_LEAF, (int) types.get(numElems - 1));
        for (int j = numElems - 1; j >= entryLayer; j--) {
            assertEquals(AqError.OK, delete(parents.get(j), teids.get(j)), "delete default node " + j);
        }
        assertEquals(entryLayer, bench.fw.scheduler().size(), "root, TC and the SE above the entry layer stay");
    }

    @Test
    void pfVsiSchedulerRssAndMacRules() {
        // §1.3 D #28 set_port_params with the switch id.
        assertEquals(AqError.OK, bench.send(AqOpcode.SET_PORT_PARAMS, d -> d.paramU16(4, 0x8000), null));
        // #29 add_vsi (PF VSI from the pool): number, used/free counts, the context echoed.
        int vsi = addPfVsi();
        assertEquals(0, vsi);
        // #30 the VSI's layers: entry layer .. VSI layer (6), then its queue group (7), each one add + query.
        long parent = firstNodeAt(TxScheduler.ENTRY_POINT_LAYER - 1);
        long qgroup = 0;
        for (int layer = TxScheduler.ENTRY_POINT_LAYER; layer <= TxScheduler.QGROUP_LAYER; layer++) {
            parent = addSchedNode(parent);
            qgroup = parent;
        }
        assertEquals(TxScheduler.QGROUP_LAYER, bench.fw.scheduler().node(qgroup).layer());
        // #31 RSS key and the 64-entry VSI LUT.
        Bytes<?> key = AqBench.buffer(RssCommand.EXTENDED_KEY_SIZE);
        for (int i = 0; i < RssCommand.EXTENDED_KEY_SIZE; i++) {
            key.writeByte(i, (byte) (i * 7));
        }
        assertEquals(AqError.OK, bench.send(AqOpcode.SET_RSS_KEY,
                d -> d.paramU16(RssCommand.PARAM_VSI_ID, vsi | RssCommand.VSI_VALID), key));
        Bytes<?> lut = AqBench.buffer(RssCommand.LUT_VSI_SIZE);
        for (int i = 0; i < lut.writeLimit(); i++) {
            lut.writeByte(i, (byte) (i % 4));
        }
        assertEquals(AqError.OK, bench.send(AqOpcode.SET_RSS_LUT,
                d -> d.paramU16(RssCommand.PARAM_VSI_ID, vsi | RssCommand.VSI_VALID), lut));
        Bytes<?> back = AqBench.buffer(RssCommand.LUT_VSI_SIZE);
        assertEquals(AqError.OK, bench.send(AqOpcode.GET_RSS_LUT,
                d -> d.paramU16(RssCommand.PARAM_VSI_ID, vsi | RssCommand.VSI_VALID), back));
        assertEquals(3, back.readByte(63));
        Bytes<?> keyBack = AqBench.buffer(RssCommand.EXTENDED_KEY_SIZE);
        assertEquals(AqError.OK, bench.send(AqOpcode.GET_RSS_KEY,
                d -> d.paramU16(RssCommand.PARAM_VSI_ID, vsi | RssCommand.VSI_VALID), keyBack));
        assertEquals((byte) (51 * 7), keyBack.readByte(51));

        // §1.3 E #37 ice_init_mac_fltr: a unicast and a broadcast rule forwarding to the PF VSI, in one buffer.
        Bytes<?> rules = AqBench.buffer(64);
        writeMacRule(rules, 0, new byte[] {0x02, 0, 0, 0, 0, 1}, vsi);
        writeMacRule(rules, 32, new byte[] {-1, -1, -1, -1, -1, -1}, vsi);
        assertEquals(AqError.OK, bench.send(AqOpcode.ADD_SW_RULES, d -> d.paramU16(0, 2), rules));
        SwitchRule r0 = new SwitchRule().wrap(rules, 0, 32);
        SwitchRule r1 = new SwitchRule().wrap(rules, 32, 32);
        assertNotEquals(r0.index(), r1.index(), "each rule gets its own lookup index");
        assertEquals(0, r0.status());
        assertEquals(2, bench.fw.switchRules().lookupRuleCount());
        // removing by the index the add returned
        Bytes<?> rm = AqBench.buffer(32);
        writeMacRule(rm, 0, new byte[] {-1, -1, -1, -1, -1, -1}, vsi);
        new SwitchRule().wrap(rm, 0, 32).index(r1.index());
        assertEquals(AqError.OK, bench.send(AqOpcode.REMOVE_SW_RULES, d -> d.paramU16(0, 1), rm));
        assertEquals(1, bench.fw.switchRules().lookupRuleCount());
        assertNotNull(bench.fw.switchRules().lookupRule(r0.index()));
    }

    @Test
    void txQueueUpAndDown() {
        int vsi = addPfVsi();
        long qgroup = vsiBranch();
        // ice_vsi_cfg_txq: one group, one queue, its Tx context; the reply's q_teid is then queried.
        Bytes<?> add = AqBench.buffer(TxQueueGroup.HEADER + TxQueueGroup.ENTRY_SIZE);
        TxQueueGroup g = new TxQueueGroup().wrap(add, 0, add.writeLimit()).header(qgroup, 1).txqId(0, 5);
        new TxQueueContext().wrap(add, g.contextAt(0)).ringBase(0x12345680L).pfNum(0).sourceVsi(vsi)
                .queueInFunction(5).queueLength(512).legacyInterrupt(true);
        add.writeByte(g.infoAt(0) + 1, (byte) SchedElement.VALID_GENERIC);
        assertEquals(AqError.OK, bench.send(AqOpcode.ADD_TXQS, d -> d.paramU8(0, 1), add));
        long teid = g.queueTeid(0);
        assertNotEquals(0, teid);
        SchedElement leaf = query(teid);
        assertEquals(qgroup, leaf.parentTeid());
        assertEquals(SchedElement.TYPE_LEAF, leaf.elemType());
        TxQueueContext ctx = new TxQueueContext();
        assertTrue(bench.fw.txQueues().wrapContext(5, ctx));
        assertEquals(0x12345680L, ctx.ringBase());
        assertEquals(512, ctx.queueLength());
        assertEquals(vsi, ctx.sourceVsi());
        assertEquals(5, ctx.queueInFunction());
        assertTrue(ctx.legacyInterrupt());
        // A second enable of the same queue is refused and changes nothing.
        Bytes<?> again = AqBench.buffer(TxQueueGroup.HEADER + TxQueueGroup.ENTRY_SIZE);
        new TxQueueGroup().wrap(again, 0, again.writeLimit()).header(qgroup, 1).txqId(0, 5);
        assertEquals(AqError.EEXIST, bench.send(AqOpcode.ADD_TXQS, d -> d.paramU8(0, 1), again));
        // ice_dis_vsi_txq: parent + PF queue id, one id, 2 bytes of padding? (odd count: none).
        Bytes<?> dis = AqBench.buffer(8);
        new DisableTxqItem().wrap(dis, 0, 8).write(qgroup, 5);
        assertEquals(AqError.OK, bench.send(AqOpcode.DIS_TXQS, d -> d.paramU8(DisableTxqItem.PARAM_NUM_ENTRIES, 1),
                dis));
        assertFalse(bench.fw.txQueues().wrapContext(5, ctx));
        assertNull(bench.fw.scheduler().node(teid));
        assertEquals(AqError.ENOENT, queryCode(teid));
    }

    @Test
    void rdmaQsetAddQueryDelete() {
        addPfVsi();
        vsiBranch();
        // ice_cfg_vsi_rdma builds an RDMA queue group beside the LAN one (same VSI node), then
        // ice_ena_vsi_rdma_qset adds the qset with irdma's qs_handle as tx_qset_id.
        long vsiNode = firstNodeAt(TxScheduler.QGROUP_LAYER - 1);
        long rdmaGroup = addSchedNode(vsiNode);
        Bytes<?> add = AqBench.buffer(RdmaQsetGroup.HEADER + RdmaQsetGroup.ENTRY_SIZE);
        RdmaQsetGroup g = new RdmaQsetGroup().wrap(add, 0, add.writeLimit()).header(rdmaGroup, 1).qsetId(0, 17);
        add.writeByte(g.infoAt(0) + 1,
                (byte) (SchedElement.VALID_GENERIC | SchedElement.VALID_CIR | SchedElement.VALID_EIR));
        add.writeShort(g.infoAt(0) + 6, (short) 4);
        assertEquals(AqError.OK, bench.send(AqOpcode.ADD_RDMA_QSET, d -> d.paramU8(0, 1), add));
        long teid = g.qsetTeid(0);
        SchedElement leaf = query(teid);
        assertEquals(rdmaGroup, leaf.parentTeid());
        assertEquals(SchedElement.TYPE_LEAF, leaf.elemType());
        assertEquals(4, leaf.cirAlloc(), "the element the driver sent is kept");
        assertEquals(17, bench.fw.txQueues().qset(17).qsHandle(), "tx_qset_id recorded");
        // ice_dis_vsi_rdma_qset: dis_txqs, parent + qs_handle | RDMA_QSET, one id.
        Bytes<?> dis = AqBench.buffer(8);
        new DisableTxqItem().wrap(dis, 0, 8).write(rdmaGroup, 17 | DisableTxqItem.RDMA_QSET);
        assertEquals(AqError.OK, bench.send(AqOpcode.DIS_TXQS, d -> d.paramU8(DisableTxqItem.PARAM_NUM_ENTRIES, 1),
                dis));
        assertNull(bench.fw.txQueues().qset(17));
        assertEquals(AqError.ENOENT, queryCode(teid));
        // The now empty RDMA queue group can go (ice_free_sched_node on the qgroup).
        assertEquals(AqError.OK, delete(vsiNode, rdmaGroup));
    }

    @Test
    void irdmaFilterUpdateIsKeptAndGetAnswersIt() {
        int vsi = addPfVsi();
        // ice_rdma_update_vsi_filter: update_vsi with Q_OPT valid and PE_FLTR_EN in q_opt_flags (byte 80).
        Bytes<?> upd = AqBench.buffer(VsiCommand.PROPS_SIZE);
        upd.writeShort(0, (short) VsiCommand.PROP_Q_OPT_VALID);
        upd.writeByte(80, (byte) VsiCommand.Q_OPT_PE_FLTR_EN);
        assertEquals(AqError.OK, bench.send(AqOpcode.UPDATE_VSI, d -> d.paramU16(VsiCommand.PARAM_VSI_NUM, vsi), upd));
        assertEquals(VsiCommand.Q_OPT_PE_FLTR_EN, upd.readByte(80), "the driver's context comes back unchanged");
        assertEquals(VsiCommand.PROP_Q_OPT_VALID, upd.readShort(0));
        Bytes<?> got = AqBench.buffer(VsiCommand.PROPS_SIZE);
        assertEquals(AqError.OK, bench.send(AqOpcode.GET_VSI, d -> d.paramU16(VsiCommand.PARAM_VSI_NUM, vsi), got));
        VsiCommand ctx = new VsiCommand().wrap(got, 0, VsiCommand.PROPS_SIZE);
        assertEquals(VsiCommand.Q_OPT_PE_FLTR_EN, ctx.queueOptionFlags());
        assertEquals(VsiCommand.PROP_SW_VALID | VsiCommand.PROP_Q_OPT_VALID, ctx.validSections());
        // free_vsi returns the number to the pool.
        assertEquals(AqError.OK, bench.send(AqOpcode.FREE_VSI, d -> d.paramU16(VsiCommand.PARAM_VSI_NUM, vsi),
                AqBench.buffer(VsiCommand.PROPS_SIZE)));
        assertEquals(0, bench.desc.paramU16(VsiCommand.RESP_VSI_USED));
        assertEquals(AqError.ENOENT, bench.send(AqOpcode.GET_VSI, d -> d.paramU16(VsiCommand.PARAM_VSI_NUM, vsi),
                AqBench.buffer(VsiCommand.PROPS_SIZE)));
    }

    @Test
    void pfResetRestoresTheDefaultTreeAndDropsVsis() {
        addPfVsi();
        vsiBranch();
        bench.fw.resetPf();
        assertEquals(TxScheduler.LAYERS, bench.fw.scheduler().size());
        assertEquals(0, bench.fw.vsis().allocated());
    }

    // ---- the driver's side

    private int addPfVsi() {
        Bytes<?> ctx = AqBench.buffer(VsiCommand.PROPS_SIZE);
        ctx.writeShort(0, (short) (VsiCommand.PROP_SW_VALID | VsiCommand.PROP_Q_OPT_VALID));
        ctx.writeByte(2, (byte) 0);
        ctx.writeByte(100, (byte) 0x5A);
        byte[] sent = new byte[VsiCommand.PROPS_SIZE];
        for (int i = 0; i < sent.length; i++) {
            sent[i] = ctx.readByte(i);
        }
        assertEquals(AqError.OK, bench.send(AqOpcode.ADD_VSI,
                d -> d.paramU16(VsiCommand.PARAM_VSI_FLAGS, VsiCommand.TYPE_PF), ctx));
        int used = bench.desc.paramU16(VsiCommand.RESP_VSI_USED);
        int free = bench.desc.paramU16(VsiCommand.RESP_VSI_FREE);
        assertEquals(VsiTable.DEFAULT_CAPACITY, used + free);
        assertEquals(bench.fw.vsis().allocated(), used);
        assertEquals(VsiCommand.PROPS_SIZE, bench.desc.datalen());
        byte[] echoed = new byte[VsiCommand.PROPS_SIZE];
        for (int i = 0; i < echoed.length; i++) {
            echoed[i] = ctx.readByte(i);
        }
        assertArrayEquals(sent, echoed);
        return bench.desc.paramU16(VsiCommand.RESP_VSI_NUM) & VsiCommand.VSI_NUM_MASK;
    }

    /** The VSI's support, VSI and queue-group nodes; answers the queue group's TEID. */
    private long vsiBranch() {
        long parent = firstNodeAt(TxScheduler.ENTRY_POINT_LAYER - 1);
        for (int layer = TxScheduler.ENTRY_POINT_LAYER; layer <= TxScheduler.QGROUP_LAYER; layer++) {
            parent = addSchedNode(parent);
        }
        return parent;
    }

    private long firstNodeAt(int layer) {
        return bench.fw.scheduler().nodes().stream().filter(n -> n.layer() == layer)
                .mapToLong(TxScheduler.Node::teid).min().orElseThrow();
    }

    /** ice_sched_add_elems for one SE_GENERIC node, then ice_sched_add_node's query; answers the new TEID. */
    private long addSchedNode(long parent) {
        Bytes<?> buf = AqBench.buffer(SchedGroup.HEADER + SchedElement.SIZE);
        SchedGroup g = new SchedGroup().wrap(buf, 0, buf.writeLimit()).header(parent, 1);
        new SchedElement().wrap(buf, g.elementAt(0)).parentTeid(parent).elemType(SchedElement.TYPE_SE_GENERIC);
        assertEquals(AqError.OK, bench.send(AqOpcode.ADD_SCHED_ELEMS,
                d -> d.paramU16(SchedGroup.PARAM_NUM_ELEM_REQ, 1), buf));
        assertEquals(1, bench.desc.paramU16(SchedGroup.PARAM_NUM_ELEM_RESP), "num_groups_added");
        long teid = new SchedElement().wrap(buf, g.elementAt(0)).nodeTeid();
        SchedElement q = query(teid);
        assertEquals(parent, q.parentTeid());
        assertEquals(SchedElement.TYPE_SE_GENERIC, q.elemType());
        return teid;
    }

    private SchedElement query(long teid) {
        Bytes<?> q = AqBench.buffer(SchedElement.SIZE);
        SchedElement e = new SchedElement().wrap(q, 0).nodeTeid(teid);
        assertEquals(AqError.OK, bench.send(AqOpcode.GET_SCHED_ELEMS,
                d -> d.paramU16(SchedGroup.PARAM_NUM_ELEM_REQ, 1), q));
        assertEquals(1, bench.desc.paramU16(SchedGroup.PARAM_NUM_ELEM_RESP));
        assertEquals(teid, e.nodeTeid());
        return e;
    }

    private int queryCode(long teid) {
        Bytes<?> q = AqBench.buffer(SchedElement.SIZE);
        new SchedElement().wrap(q, 0).nodeTeid(teid);
        return bench.send(AqOpcode.GET_SCHED_ELEMS, d -> d.paramU16(SchedGroup.PARAM_NUM_ELEM_REQ, 1), q);
    }

    private int delete(long parent, long teid) {
        Bytes<?> buf = AqBench.buffer(SchedGroup.HEADER + 4);
        new SchedGroup().wrap(buf, 0, buf.writeLimit()).header(parent, 1);
        buf.writeInt(SchedGroup.HEADER, (int) teid);
        return bench.send(AqOpcode.DELETE_SCHED_ELEMS, d -> d.paramU16(SchedGroup.PARAM_NUM_ELEM_REQ, 1), buf);
    }

    /** ice_fill_sw_rule for a MAC forward-to-VSI rule: LKUP_RX, recipe 1 (MAC), a 16-byte dummy Ethernet header. */
    static void writeMacRule(Bytes<?> buf, long at, byte[] mac, int vsi) {
        buf.writeShort(at, (short) SwitchRule.T_LKUP_RX);
        buf.writeShort(at + 4, (short) 1);
        buf.writeShort(at + 6, (short) 0);
        buf.writeInt(at + 8, vsi << 4 | 1 << 17 | 1 << 3);
        buf.writeShort(at + 14, (short) 16);
        for (int i = 0; i < 6; i++) {
            buf.writeByte(at + 16 + i, mac[i]);
        }
    }
}
