package dev.irdmaemu.model.ice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.DisableTxqItem;
import dev.irdmaemu.fw.aq.RdmaQsetGroup;
import dev.irdmaemu.fw.aq.SchedElement;
import dev.irdmaemu.fw.aq.SchedGroup;
import dev.irdmaemu.fw.aq.TxQueueGroup;
import dev.irdmaemu.fw.aq.VsiCommand;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.openhft.chronicle.bytes.Bytes;

/**
 * Random sequences of add/delete sched elems, Tx queue and qset add/disable and VSI add/free, some well formed and
 * some lying (unknown TEIDs, wrong parents, overstated counts): no handler throws, every answer is OK or a libie AQ
 * error, and the tree stays a tree: each node's parent exists and lists it, layers step by one, no parent holds more
 * children than its layer allows, every node is reachable from the root (a delete leaves no orphan), and every
 * queue and qset the firmware remembers is a leaf of the tree.
 */
class SchedulerTreeProperties {

    private static final String[] KINDS = {"add sched", "delete sched", "add vsi", "free vsi", "add txq",
        "add qset", "dis txq/qset", "get sched"};

    /** One driver action: {@code kind} picks the command, the rest pick nodes, counts and ids. */
    record Op(int kind, int pick, int count, int id, boolean lie) {
    }

    @Provide
    Arbitrary<List<Op>> sequences() {
        Arbitrary<Op> op = Combinators.combine(Arbitraries.integers().between(0, 7),
                Arbitraries.integers().between(0, 1 << 20), Arbitraries.integers().between(0, 12),
                Arbitraries.integers().between(0, 1100), Arbitraries.of(false, false, false, true))
                .as(Op::new);
        return op.list().ofMinSize(1).ofMaxSize(60);
    }

    @Property(tries = 300)
    void randomSequencesNeverThrowAndKeepTheTreeWhole(@ForAll("sequences") List<Op> ops) {
        AqBench bench = new AqBench();
        for (Op op : ops) {
            int code = apply(bench, op);
            Statistics.collect(KINDS[op.kind()], code == AqError.OK ? "ok" : "refused");
            assertTrue(code == AqError.OK || code > 0 && code <= AqError.EBADBUF, "code " + code + " for " + op);
            checkTree(bench.fw);
        }
    }

    private static int apply(AqBench bench, Op op) {
        TxScheduler s = bench.fw.scheduler();
        List<TxScheduler.Node> nodes = new ArrayList<>(s.nodes());
        nodes.sort(Comparator.comparingInt(TxScheduler.Node::teid));
        TxScheduler.Node picked = nodes.get(op.pick() % nodes.size());
        long teid = op.lie() ? 0x100000L + op.pick() : picked.teid();
        switch (op.kind()) {
            case 0: { // add sched elems under a node
                int n = Math.max(1, op.count());
                int room = op.lie() ? Math.max(0, n - 1) : n;
                Bytes<?> b = AqBench.buffer(SchedGroup.HEADER + room * SchedElement.SIZE);
                SchedGroup g = new SchedGroup().wrap(b, 0, b.writeLimit()).header(picked.teid(), n);
                for (int i = 0; i < room; i++) {
                    new SchedElement().wrap(b, g.elementAt(i)).parentTeid(picked.teid())
                            .elemType(SchedElement.TYPE_SE_GENERIC);
                }
                return bench.send(AqOpcode.ADD_SCHED_ELEMS, d -> d.paramU16(SchedGroup.PARAM_NUM_ELEM_REQ, 1), b);
            }
            case 1: { // delete a node, under its parent (or under a lying one)
                Bytes<?> b = AqBench.buffer(SchedGroup.HEADER + 4);
                long parent = op.lie() ? op.id() : picked.parentTeid();
                new SchedGroup().wrap(b, 0, b.writeLimit()).header(parent, 1);
                b.writeInt(SchedGroup.HEADER, (int) picked.teid());
                return bench.send(AqOpcode.DELETE_SCHED_ELEMS, d -> d.paramU16(SchedGroup.PARAM_NUM_ELEM_REQ, 1), b);
            }
            case 2: { // add a VSI, by number or from the pool
                int req = op.lie() ? VsiCommand.VSI_IS_VALID | op.id() & 0x3FF : op.count() % 2 == 0 ? 0
                        : VsiCommand.VSI_IS_VALID | op.id() % VsiTable.DEFAULT_CAPACITY;
                return bench.send(AqOpcode.ADD_VSI, d -> d.paramU16(VsiCommand.PARAM_VSI_NUM, req),
                        AqBench.buffer(VsiCommand.PROPS_SIZE));
            }
            case 3: { // free a VSI in use (or, lying, any number)
                int num = op.id() & 0x3FF;
                if (!op.lie()) {
                    for (int i = 0; i < VsiTable.DEFAULT_CAPACITY; i++) {
                        int v = (num + i) % VsiTable.DEFAULT_CAPACITY;
                        if (bench.fw.vsis().exists(v)) {
                            num = v;
                            break;
                        }
                    }
                }
                final int vsi = num;
                return bench.send(AqOpcode.FREE_VSI, d -> d.paramU16(VsiCommand.PARAM_VSI_NUM, vsi),
                        AqBench.buffer(VsiCommand.PROPS_SIZE));
            }
            case 4: { // enable a Tx queue under a queue group (or, lying, any TEID)
                teid = op.lie() ? teid : qgroup(nodes, op.pick(), picked);
                Bytes<?> b = AqBench.buffer(TxQueueGroup.HEADER + TxQueueGroup.ENTRY_SIZE);
                new TxQueueGroup().wrap(b, 0, b.writeLimit()).header(teid, 1).txqId(0, op.id() % 300);
                return bench.send(AqOpcode.ADD_TXQS, d -> d.paramU8(0, 1), b);
            }
            case 5: { // add an RDMA qset under a queue group (or, lying, any TEID)
                teid = op.lie() ? teid : qgroup(nodes, op.pick(), picked);
                Bytes<?> b = AqBench.buffer(RdmaQsetGroup.HEADER + RdmaQsetGroup.ENTRY_SIZE);
                new RdmaQsetGroup().wrap(b, 0, b.writeLimit()).header(teid, 1).qsetId(0, op.id());
                return bench.send(AqOpcode.ADD_RDMA_QSET, d -> d.paramU8(0, 1), b);
            }
            case 6: { // disable an enabled queue or qset under its parent (or, lying, ids and parents at random)
                int id = op.count() % 2 == 0 ? op.id() % 300 : (op.id() & 0x3FF) | DisableTxqItem.RDMA_QSET;
                long parent = teid;
                List<TxQueues.TxQueue> qs = new ArrayList<>(bench.fw.txQueues().queues());
                List<TxQueues.Qset> sets = new ArrayList<>(bench.fw.txQueues().qsets());
                if (!op.lie() && op.count() % 2 == 0 && !qs.isEmpty()) {
                    TxQueues.TxQueue q = qs.get(op.pick() % qs.size());
                    id = q.id();
                    parent = q.parentTeid();
                } else if (!op.lie() && op.count() % 2 == 1 && !sets.isEmpty()) {
                    TxQueues.Qset q = sets.get(op.pick() % sets.size());
                    id = q.qsHandle() | DisableTxqItem.RDMA_QSET;
                    parent = q.parentTeid();
                }
                Bytes<?> b = AqBench.buffer(8);
                new DisableTxqItem().wrap(b, 0, 8).write(parent, id);
                return bench.send(AqOpcode.DIS_TXQS, d -> d.paramU8(DisableTxqItem.PARAM_NUM_ENTRIES, 1), b);
            }
            default: { // query a node
                Bytes<?> b = AqBench.buffer(SchedElement.SIZE);
                new SchedElement().wrap(b, 0).nodeTeid(teid);
                return bench.send(AqOpcode.GET_SCHED_ELEMS, d -> d.paramU16(SchedGroup.PARAM_NUM_ELEM_REQ, 1), b);
            }
        }
    }

    private static long qgroup(List<TxScheduler.Node> nodes, int pick, TxScheduler.Node fallback) {
        List<TxScheduler.Node> groups = new ArrayList<>();
        for (TxScheduler.Node n : nodes) {
            if (n.layer() == TxScheduler.QGROUP_LAYER) {
                groups.add(n);
            }
        }
        return groups.isEmpty() ? fallback.teid() : groups.get(pick % groups.size()).teid();
    }

    private static void checkTree(IceSwitchAndScheduler fw) {
        TxScheduler s = fw.scheduler();
        TxScheduler.Node root = s.root();
        assertSame(root, s.node(root.teid()));
        for (TxScheduler.Node n : s.nodes()) {
            if (n == root) {
                continue;
            }
            TxScheduler.Node p = s.node(n.parentTeid());
            assertNotNull(p, "parent of 0x" + Integer.toHexString(n.teid()));
            assertTrue(p.children.contains(n), "parent lists its child");
            assertEquals(p.layer() + 1, n.layer());
            assertTrue(p.childCount() <= TxScheduler.maxSiblings(n.layer()));
            for (TxScheduler.Node c : n.children) {
                assertSame(c, s.node(c.teid()), "a listed child is in the tree");
            }
        }
        // reachability: no orphan
        Set<Integer> seen = new HashSet<>();
        Deque<TxScheduler.Node> todo = new ArrayDeque<>();
        todo.add(root);
        while (!todo.isEmpty()) {
            TxScheduler.Node n = todo.poll();
            assertTrue(seen.add(n.teid()), "a node reached twice");
            todo.addAll(n.children);
        }
        assertEquals(s.size(), seen.size(), "every node reachable from the root");
        assertTrue(fw.vsis().allocated() <= fw.vsis().capacity());
        for (TxScheduler.Node n : s.nodes()) {
            if (n.kind() != TxScheduler.Kind.SCHED) {
                assertEquals(TxScheduler.LEAF_LAYER, n.layer());
            }
        }
        int lan = 0;
        int rdma = 0;
        for (TxScheduler.Node n : s.nodes()) {
            lan += n.kind() == TxScheduler.Kind.LAN_QUEUE ? 1 : 0;
            rdma += n.kind() == TxScheduler.Kind.RDMA_QSET ? 1 : 0;
        }
        assertEquals(fw.txQueues().queueCount(), lan, "each enabled queue is one leaf");
        assertEquals(fw.txQueues().qsetCount(), rdma, "each qset is one leaf");
    }
}
