package dev.irdmaemu.model.ice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Named.named;

import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.DisableTxqItem;
import dev.irdmaemu.fw.aq.PkgBuffer;
import dev.irdmaemu.fw.aq.RdmaQsetGroup;
import dev.irdmaemu.fw.aq.RssCommand;
import dev.irdmaemu.fw.aq.SchedElement;
import dev.irdmaemu.fw.aq.SchedGroup;
import dev.irdmaemu.fw.aq.SchedResources;
import dev.irdmaemu.fw.aq.SwitchRule;
import dev.irdmaemu.fw.aq.TxQueueGroup;
import dev.irdmaemu.fw.aq.VsiCommand;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.function.ToIntFunction;
import java.util.stream.Stream;
import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A driver that lies: TEIDs that do not exist, parents that are leaves or at the wrong layer, counts beyond the
 * buffer, buffers shorter than the count says, package buffers with lying section counts and offsets, VSI numbers out
 * of range. Each command is answered with the libie AQ error named in the table, never an exception, and leaves the
 * firmware's state exactly as it was.
 */
class HostileAqCommandsTest {

    /** The firmware after probe-like setup: the default tree, the PF VSI, Tx queue 5 and RDMA qset 17. */
    static final class Fixture {
        final AqBench bench = new AqBench();
        final long[] layer = new long[TxScheduler.LAYERS];
        final long tc;
        final long leaf;
        final long qgroup;
        final int vsi;

        Fixture() {
            TxScheduler.Node n = bench.fw.scheduler().root();
            for (int l = 0; l < TxScheduler.LAYERS; l++) {
                layer[l] = n.teid();
                final int parent = n.teid();
                n = bench.fw.scheduler().nodes().stream().filter(c -> c.parentTeid() == parent && c.teid() != parent)
                        .findFirst().orElse(null);
            }
            tc = layer[1];
            qgroup = layer[TxScheduler.QGROUP_LAYER];
            leaf = layer[TxScheduler.LEAF_LAYER];
            Bytes<?> ctx = AqBench.buffer(VsiCommand.PROPS_SIZE);
            assertEquals(AqError.OK, bench.send(AqOpcode.ADD_VSI, ctx));
            vsi = bench.desc.paramU16(VsiCommand.RESP_VSI_NUM);
            Bytes<?> txq = AqBench.buffer(TxQueueGroup.HEADER + TxQueueGroup.ENTRY_SIZE);
            new TxQueueGroup().wrap(txq, 0, txq.writeLimit()).header(qgroup, 1).txqId(0, 5);
            assertEquals(AqError.OK, bench.send(AqOpcode.ADD_TXQS, d -> d.paramU8(0, 1), txq));
            Bytes<?> qs = AqBench.buffer(RdmaQsetGroup.HEADER + RdmaQsetGroup.ENTRY_SIZE);
            new RdmaQsetGroup().wrap(qs, 0, qs.writeLimit()).header(qgroup, 1).qsetId(0, 17);
            assertEquals(AqError.OK, bench.send(AqOpcode.ADD_RDMA_QSET, d -> d.paramU8(0, 1), qs));
        }

        /** Everything a refused command must leave alone. */
        String snapshot() {
            TreeSet<String> nodes = new TreeSet<>();
            for (TxScheduler.Node n : bench.fw.scheduler().nodes()) {
                nodes.add(n.teid() + "<" + n.parentTeid() + "@" + n.layer() + ":" + n.childCount());
            }
            return nodes + " vsis=" + bench.fw.vsis().allocated() + " txqs=" + bench.fw.txQueues().queueCount()
                    + " qsets=" + bench.fw.txQueues().qsetCount() + " rules=" + bench.fw.switchRules().lookupRuleCount()
                    + " pkg=" + bench.fw.ddp().packageDownloaded() + " lut=" + (bench.fw.vsis().rssLut(vsi) != null);
        }
    }

    record Case(int expected, ToIntFunction<Fixture> command) {
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("lies")
    void eachLieGetsItsAqErrorAndChangesNothing(Case c) {
        Fixture f = new Fixture();
        String before = f.snapshot();
        int code = c.command().applyAsInt(f);
        assertEquals(c.expected(), code);
        assertEquals(before, f.snapshot());
    }

    static Stream<Arguments> lies() {
        List<Arguments> t = new ArrayList<>();
        // ---- scheduler
        t.add(lie("get_sched_elems: a TEID that does not exist", AqError.ENOENT,
                f -> getElems(f, 1, SchedElement.SIZE, 0xDEADL)));
        t.add(lie("get_sched_elems: 3 elements in a 24-byte buffer", AqError.EINVAL,
                f -> getElems(f, 3, SchedElement.SIZE, f.tc)));
        t.add(lie("get_sched_elems: no buffer", AqError.EINVAL,
                f -> f.bench.send(AqOpcode.GET_SCHED_ELEMS, d -> d.paramU16(0, 1), null)));
        t.add(lie("add_sched_elems: a parent that does not exist", AqError.ENOENT,
                f -> addElems(f, 1, 0x7777, 1, 1, SchedElement.TYPE_SE_GENERIC)));
        t.add(lie("add_sched_elems: the parent is a leaf", AqError.EINVAL,
                f -> addElems(f, 1, f.leaf, 1, 1, SchedElement.TYPE_SE_GENERIC)));
        t.add(lie("add_sched_elems: the parent is a queue group (queues go through add_txqs)", AqError.EINVAL,
                f -> addElems(f, 1, f.qgroup, 1, 1, SchedElement.TYPE_SE_GENERIC)));
        t.add(lie("add_sched_elems: num_elems 5 with room for 1", AqError.EINVAL,
                f -> addElems(f, 1, f.tc, 5, 1, SchedElement.TYPE_SE_GENERIC)));
        t.add(lie("add_sched_elems: 2 groups, 1 in the buffer", AqError.EINVAL,
                f -> addElems(f, 2, f.tc, 1, 1, SchedElement.TYPE_SE_GENERIC)));
        t.add(lie("add_sched_elems: a buffer shorter than the group header", AqError.EINVAL,
                f -> f.bench.send(AqOpcode.ADD_SCHED_ELEMS, d -> d.paramU16(0, 1), AqBench.buffer(4))));
        t.add(lie("add_sched_elems: a ROOT_PORT element", AqError.EINVAL,
                f -> addElems(f, 1, f.tc, 1, 1, SchedElement.TYPE_ROOT_PORT)));
        t.add(lie("add_sched_elems: more children than the layer's sibling group", AqError.ENOSPC,
                f -> addElems(f, 1, f.layer[0], 8, 8, SchedElement.TYPE_SE_GENERIC)));
        t.add(lie("delete_sched_elems: a TEID that does not exist", AqError.ENOENT,
                f -> deleteElems(f, f.tc, 1, 0x9999)));
        t.add(lie("delete_sched_elems: a real TEID under the wrong parent", AqError.ENOENT,
                f -> deleteElems(f, f.tc, 1, f.layer[4])));
        t.add(lie("delete_sched_elems: a node that still has children", AqError.EBUSY,
                f -> deleteElems(f, f.layer[2], 1, f.layer[3])));
        t.add(lie("delete_sched_elems: a TC node", AqError.EPERM, f -> deleteElems(f, f.layer[0], 1, f.tc)));
        t.add(lie("delete_sched_elems: a Tx queue leaf", AqError.EPERM,
                f -> deleteElems(f, f.qgroup, 1, f.bench.fw.txQueues().queue(5).teid())));
        t.add(lie("delete_sched_elems: num_elems 100 in a 12-byte buffer", AqError.EINVAL,
                f -> deleteElems(f, f.layer[7], 100, f.leaf)));
        t.add(lie("cfg_sched_elems: a TEID that does not exist", AqError.ENOENT,
                f -> f.bench.send(AqOpcode.CFG_SCHED_ELEMS, d -> d.paramU16(0, 1), elem(0x4242))));
        t.add(lie("move_sched_elems: a destination that does not exist", AqError.ENOENT, f -> {
            Bytes<?> b = AqBench.buffer(16);
            b.writeInt(0, (int) f.layer[2]);
            b.writeInt(4, 0x5151);
            b.writeShort(8, (short) 1);
            b.writeInt(12, (int) f.layer[3]);
            return f.bench.send(AqOpcode.MOVE_SCHED_ELEMS, d -> d.paramU16(0, 1), b);
        }));
        t.add(lie("suspend_sched_elems: a TEID that does not exist", AqError.ENOENT, f -> {
            Bytes<?> b = AqBench.buffer(4);
            b.writeInt(0, 0x6161);
            return f.bench.send(AqOpcode.SUSPEND_SCHED_ELEMS, d -> d.paramU16(0, 1), b);
        }));
        t.add(lie("get_dflt_topo: a port that is not this PF's", AqError.EINVAL,
                f -> f.bench.send(AqOpcode.GET_DFLT_TOPO, d -> d.paramU8(0, 3), AqBench.buffer(4096))));
        t.add(lie("get_dflt_topo: a buffer too short for one branch", AqError.ENOMEM,
                f -> f.bench.send(AqOpcode.GET_DFLT_TOPO, AqBench.buffer(100))));
        t.add(lie("query_sched_res: a buffer too short for the reply", AqError.ENOMEM,
                f -> f.bench.send(AqOpcode.QUERY_SCHED_RES, AqBench.buffer(SchedResources.SIZE - 1))));
        // ---- Tx queues and RDMA qsets
        t.add(lie("add_txqs: the parent is a VSI node, not a queue group", AqError.EINVAL,
                f -> addTxq(f, 1, f.layer[6], 1, 1, 6)));
        t.add(lie("add_txqs: a parent that does not exist", AqError.ENOENT, f -> addTxq(f, 1, 0x3131, 1, 1, 6)));
        t.add(lie("add_txqs: a queue beyond the PF's", AqError.EINVAL, f -> addTxq(f, 1, f.qgroup, 1, 1, 4000)));
        t.add(lie("add_txqs: num_txqs 3 with room for 1", AqError.EINVAL, f -> addTxq(f, 1, f.qgroup, 3, 1, 6)));
        t.add(lie("add_txqs: 2 groups, 1 in the buffer", AqError.EINVAL, f -> addTxq(f, 2, f.qgroup, 1, 1, 6)));
        t.add(lie("add_txqs: no groups", AqError.EINVAL, f -> addTxq(f, 0, f.qgroup, 1, 1, 6)));
        t.add(lie("add_txqs: a queue already enabled", AqError.EEXIST, f -> addTxq(f, 1, f.qgroup, 1, 1, 5)));
        t.add(lie("dis_txqs: a queue that is not enabled", AqError.ENOENT, f -> disTxq(f, f.qgroup, 9)));
        t.add(lie("dis_txqs: an enabled queue under the wrong parent", AqError.ENOENT, f -> disTxq(f, f.tc, 5)));
        t.add(lie("dis_txqs: an RDMA qset that does not exist", AqError.ENOENT,
                f -> disTxq(f, f.qgroup, 18 | DisableTxqItem.RDMA_QSET)));
        t.add(lie("dis_txqs: num_qs beyond the buffer", AqError.EINVAL, f -> {
            Bytes<?> b = AqBench.buffer(8);
            new DisableTxqItem().wrap(b, 0, 8).write(f.qgroup, 5);
            b.writeByte(4, (byte) 40);
            return f.bench.send(AqOpcode.DIS_TXQS, d -> d.paramU8(DisableTxqItem.PARAM_NUM_ENTRIES, 1), b);
        }));
        t.add(lie("dis_txqs: the second id of two lies (nothing stops)", AqError.ENOENT,
                f -> disTxq(f, f.qgroup, 5, 77)));
        t.add(lie("add_rdma_qset: the parent is a leaf", AqError.EINVAL, f -> addQset(f, f.leaf, 1, 1, 20)));
        t.add(lie("add_rdma_qset: num_qsets 1000 with room for 1", AqError.EINVAL,
                f -> addQset(f, f.qgroup, 1000, 1, 20)));
        t.add(lie("add_rdma_qset: a qs_handle beyond 10 bits", AqError.EINVAL,
                f -> addQset(f, f.qgroup, 1, 1, 2000)));
        t.add(lie("add_rdma_qset: a qs_handle that has a qset", AqError.EEXIST, f -> addQset(f, f.qgroup, 1, 1, 17)));
        // ---- VSIs and RSS
        t.add(lie("add_vsi: number 1000 (beyond 10 bits' pool of 768)", AqError.EINVAL,
                f -> addVsi(f, VsiCommand.VSI_IS_VALID | 1000 & 0x3FF, VsiCommand.PROPS_SIZE)));
        t.add(lie("add_vsi: number 900, beyond the pool", AqError.EINVAL,
                f -> addVsi(f, VsiCommand.VSI_IS_VALID | 900, VsiCommand.PROPS_SIZE)));
        t.add(lie("add_vsi: a number in use", AqError.EEXIST,
                f -> addVsi(f, VsiCommand.VSI_IS_VALID | f.vsi, VsiCommand.PROPS_SIZE)));
        t.add(lie("add_vsi: a context shorter than 128 bytes", AqError.EINVAL, f -> addVsi(f, 0, 64)));
        t.add(lie("update_vsi: VSI 900", AqError.ENOENT, f -> f.bench.send(AqOpcode.UPDATE_VSI,
                d -> d.paramU16(0, 900), AqBench.buffer(VsiCommand.PROPS_SIZE))));
        t.add(lie("get_vsi: VSI 1023", AqError.ENOENT, f -> f.bench.send(AqOpcode.GET_VSI,
                d -> d.paramU16(0, 1023), AqBench.buffer(VsiCommand.PROPS_SIZE))));
        t.add(lie("free_vsi: a VSI never added", AqError.ENOENT,
                f -> f.bench.send(AqOpcode.FREE_VSI, d -> d.paramU16(0, 5), AqBench.buffer(VsiCommand.PROPS_SIZE))));
        t.add(lie("set_rss_lut: vsi_id without ICE_AQC_RSS_VSI_VALID", AqError.ENOENT,
                f -> f.bench.send(AqOpcode.SET_RSS_LUT, d -> d.paramU16(0, f.vsi), AqBench.buffer(64))));
        t.add(lie("set_rss_lut: 100 bytes for a 64-entry table", AqError.EINVAL, f -> f.bench.send(
                AqOpcode.SET_RSS_LUT, d -> d.paramU16(0, f.vsi | RssCommand.VSI_VALID), AqBench.buffer(100))));
        t.add(lie("set_rss_key: a 30-byte key", AqError.EINVAL, f -> f.bench.send(
                AqOpcode.SET_RSS_KEY, d -> d.paramU16(0, f.vsi | RssCommand.VSI_VALID), AqBench.buffer(30))));
        // ---- switch
        t.add(lie("add_sw_rules: hdr_len reaches past the buffer", AqError.EINVAL, f -> {
            Bytes<?> b = AqBench.buffer(32);
            IceProbeSequenceTest.writeMacRule(b, 0, new byte[6], f.vsi);
            b.writeShort(14, (short) 4000);
            return f.bench.send(AqOpcode.ADD_SW_RULES, d -> d.paramU16(0, 1), b);
        }));
        t.add(lie("add_sw_rules: 3 rules, 1 in the buffer", AqError.EINVAL, f -> {
            Bytes<?> b = AqBench.buffer(32);
            IceProbeSequenceTest.writeMacRule(b, 0, new byte[6], f.vsi);
            return f.bench.send(AqOpcode.ADD_SW_RULES, d -> d.paramU16(0, 3), b);
        }));
        t.add(lie("add_sw_rules: rule type 9", AqError.EINVAL, f -> {
            Bytes<?> b = AqBench.buffer(32);
            IceProbeSequenceTest.writeMacRule(b, 0, new byte[6], f.vsi);
            b.writeShort(0, (short) 9);
            return f.bench.send(AqOpcode.ADD_SW_RULES, d -> d.paramU16(0, 1), b);
        }));
        t.add(lie("add_sw_rules: forward to a VSI that does not exist", AqError.ENOENT, f -> {
            Bytes<?> b = AqBench.buffer(32);
            IceProbeSequenceTest.writeMacRule(b, 0, new byte[6], 700);
            return f.bench.send(AqOpcode.ADD_SW_RULES, d -> d.paramU16(0, 1), b);
        }));
        t.add(lie("add_sw_rules: a VSI list index beyond 10 bits", AqError.EINVAL, f -> {
            Bytes<?> b = AqBench.buffer(10);
            b.writeShort(0, (short) SwitchRule.T_VSI_LIST_SET);
            b.writeShort(4, (short) 5000);
            b.writeShort(6, (short) 1);
            b.writeShort(8, (short) f.vsi);
            return f.bench.send(AqOpcode.ADD_SW_RULES, d -> d.paramU16(0, 1), b);
        }));
        t.add(lie("remove_sw_rules: an index never handed out", AqError.ENOENT, f -> {
            Bytes<?> b = AqBench.buffer(32);
            IceProbeSequenceTest.writeMacRule(b, 0, new byte[6], f.vsi);
            b.writeShort(12, (short) 333);
            return f.bench.send(AqOpcode.REMOVE_SW_RULES, d -> d.paramU16(0, 1), b);
        }));
        t.add(lie("get_sw_cfg: a 4-byte buffer", AqError.ENOMEM,
                f -> f.bench.send(AqOpcode.GET_SW_CFG, AqBench.buffer(4))));
        t.add(lie("get_sw_cfg: a first element past the end", AqError.EINVAL,
                f -> f.bench.send(AqOpcode.GET_SW_CFG, d -> d.paramU16(2, 7), AqBench.buffer(64))));
        t.add(lie("set_port_params: another switch's id", AqError.EINVAL,
                f -> f.bench.send(AqOpcode.SET_PORT_PARAMS, d -> d.paramU16(4, 0x8000 | 9), null)));
        t.add(lie("set_vlan_mode: an rdma_packet ice never sends", AqError.EINVAL, f -> {
            Bytes<?> b = AqBench.buffer(100);
            b.writeByte(66, (byte) 0x33);
            b.writeByte(69, (byte) 0x11);
            return f.bench.send(AqOpcode.SET_VLAN_MODE_PARAMETERS, b);
        }));
        // ---- DDP package buffers
        t.add(lie("download_pkg: a 100-byte buffer", AqError.EINVAL,
                f -> f.bench.send(AqOpcode.DOWNLOAD_PKG, AqBench.buffer(100))));
        t.add(lie("download_pkg: section_count 0", AqError.EINVAL, f -> pkg(f, b -> b.writeShort(0, (short) 0))));
        t.add(lie("download_pkg: section_count 600", AqError.EINVAL, f -> pkg(f, b -> b.writeShort(0, (short) 600))));
        t.add(lie("download_pkg: section_count 200 whose table passes data_end", AqError.EINVAL,
                f -> pkg(f, b -> b.writeShort(0, (short) 200))));
        t.add(lie("download_pkg: data_end 5", AqError.EINVAL, f -> pkg(f, b -> b.writeShort(2, (short) 5))));
        t.add(lie("download_pkg: data_end 5000", AqError.EINVAL, f -> pkg(f, b -> b.writeShort(2, (short) 5000))));
        t.add(lie("download_pkg: a section offset inside the header", AqError.EINVAL,
                f -> pkg(f, b -> b.writeShort(8, (short) 4))));
        t.add(lie("download_pkg: a section that runs past data_end", AqError.EINVAL,
                f -> pkg(f, b -> b.writeShort(10, (short) 4000))));
        t.add(lie("download_pkg: a section of size 0", AqError.EINVAL, f -> pkg(f, b -> b.writeShort(10, (short) 0))));
        t.add(lie("download_pkg: a metadata section shorter than its struct", AqError.EINVAL,
                f -> pkg(f, b -> b.writeShort(10, (short) 10))));
        t.add(lie("download_pkg: a metadata buffer (ICE_METADATA_BUF)", AqError.EINVAL,
                f -> pkg(f, b -> b.writeInt(4, 0x80000001))));
        t.add(lie("download_pkg: a LAST buffer, and no metadata section in the download", AqError.EINVAL,
                f -> pkgLast(f, b -> b.writeInt(4, 0x10))));
        t.add(lie("get_pkg_info_list: a 10-byte buffer", AqError.ENOMEM,
                f -> f.bench.send(AqOpcode.GET_PKG_INFO_LIST, AqBench.buffer(10))));
        t.add(lie("upload_section: not modelled (ice: no DVM)", AqError.ENOSYS,
                f -> f.bench.send(AqOpcode.UPLOAD_SECTION, AqBench.buffer(PkgBuffer.SIZE))));
        return t.stream();
    }

    private static Arguments lie(String name, int expected, ToIntFunction<Fixture> command) {
        return Arguments.of(named(name, new Case(expected, command)));
    }

    // ---- buffers as the driver would build them, before the lie

    private static int getElems(Fixture f, int count, int bufSize, long teid) {
        Bytes<?> b = AqBench.buffer(bufSize);
        new SchedElement().wrap(b, 0).nodeTeid(teid);
        return f.bench.send(AqOpcode.GET_SCHED_ELEMS, d -> d.paramU16(SchedGroup.PARAM_NUM_ELEM_REQ, count), b);
    }

    private static Bytes<?> elem(long teid) {
        Bytes<?> b = AqBench.buffer(SchedElement.SIZE);
        new SchedElement().wrap(b, 0).nodeTeid(teid);
        return b;
    }

    private static int addElems(Fixture f, int groups, long parent, int claimed, int room, int type) {
        Bytes<?> b = AqBench.buffer(SchedGroup.HEADER + room * SchedElement.SIZE);
        SchedGroup g = new SchedGroup().wrap(b, 0, b.writeLimit()).header(parent, claimed);
        for (int i = 0; i < room; i++) {
            new SchedElement().wrap(b, g.elementAt(i)).parentTeid(parent).elemType(type);
        }
        return f.bench.send(AqOpcode.ADD_SCHED_ELEMS, d -> d.paramU16(SchedGroup.PARAM_NUM_ELEM_REQ, groups), b);
    }

    private static int deleteElems(Fixture f, long parent, int claimed, long teid) {
        Bytes<?> b = AqBench.buffer(SchedGroup.HEADER + 4);
        new SchedGroup().wrap(b, 0, b.writeLimit()).header(parent, claimed);
        b.writeInt(SchedGroup.HEADER, (int) teid);
        return f.bench.send(AqOpcode.DELETE_SCHED_ELEMS, d -> d.paramU16(SchedGroup.PARAM_NUM_ELEM_REQ, 1), b);
    }

    private static int addTxq(Fixture f, int groups, long parent, int claimed, int room, int id) {
        Bytes<?> b = AqBench.buffer(TxQueueGroup.HEADER + room * TxQueueGroup.ENTRY_SIZE);
        TxQueueGroup g = new TxQueueGroup().wrap(b, 0, b.writeLimit()).header(parent, claimed);
        for (int i = 0; i < room; i++) {
            g.txqId(i, id + i);
        }
        return f.bench.send(AqOpcode.ADD_TXQS, d -> d.paramU8(0, groups), b);
    }

    private static int disTxq(Fixture f, long parent, int... ids) {
        Bytes<?> b = AqBench.buffer(DisableTxqItem.HEADER + 2 * ids.length + (ids.length % 2 == 0 ? 2 : 0));
        new DisableTxqItem().wrap(b, 0, b.writeLimit()).write(parent, ids);
        return f.bench.send(AqOpcode.DIS_TXQS, d -> d.paramU8(DisableTxqItem.PARAM_NUM_ENTRIES, 1), b);
    }

    private static int addQset(Fixture f, long parent, int claimed, int room, int handle) {
        Bytes<?> b = AqBench.buffer(RdmaQsetGroup.HEADER + room * RdmaQsetGroup.ENTRY_SIZE);
        RdmaQsetGroup g = new RdmaQsetGroup().wrap(b, 0, b.writeLimit()).header(parent, claimed);
        for (int i = 0; i < room; i++) {
            g.qsetId(i, handle + i);
        }
        return f.bench.send(AqOpcode.ADD_RDMA_QSET, d -> d.paramU8(0, 1), b);
    }

    private static int addVsi(Fixture f, int vsiNum, int size) {
        return f.bench.send(AqOpcode.ADD_VSI, d -> d.paramU16(VsiCommand.PARAM_VSI_NUM, vsiNum),
                AqBench.buffer(size));
    }

    /** A well-formed package buffer holding one metadata section, then {@code lie} applied to it. */
    private static int pkg(Fixture f, java.util.function.Consumer<Bytes<?>> lie) {
        Bytes<?> b = goodPkgBuffer();
        lie.accept(b);
        return f.bench.send(AqOpcode.DOWNLOAD_PKG, b);
    }

    private static int pkgLast(Fixture f, java.util.function.Consumer<Bytes<?>> lie) {
        Bytes<?> b = goodPkgBuffer();
        lie.accept(b);
        return f.bench.send(AqOpcode.DOWNLOAD_PKG, d -> d.paramU8(0, DdpPackageLoader.LAST_BUF), b);
    }

    static Bytes<?> goodPkgBuffer() {
        Bytes<?> b = AqBench.buffer(PkgBuffer.SIZE);
        b.writeShort(0, (short) 1);
        b.writeShort(2, (short) (12 + PkgBuffer.META_SIZE));
        b.writeInt(4, PkgBuffer.SID_METADATA);
        b.writeShort(8, (short) 12);
        b.writeShort(10, (short) PkgBuffer.META_SIZE);
        b.writeByte(12, (byte) 1);
        b.writeByte(13, (byte) 3);
        b.writeByte(14, (byte) 7);
        b.writeByte(16, (byte) 'X');
        return b;
    }
}
