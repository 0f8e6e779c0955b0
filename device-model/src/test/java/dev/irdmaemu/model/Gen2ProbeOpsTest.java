package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.RdmaFeatureBuffer;
import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.TraceKind;
import dev.irdmaemu.model.ws.WorkSchedulerTree;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The three CQP ops of the gen2 probe that earlier drivers skipped: Query RDMA features (hw.c irdma_ctrl_init_hw,
 * right after the CQP), Static HMC pages allocated (end of irdma_create_hmc_objs) and Work scheduler node (ws.c
 * irdma_ws_add / irdma_remove_leaf): as the real driver's bring-up sent them (its trace and what it took from the
 * answers), then each again on its CQP with its happy path byte for byte and what a hostile driver gets instead.
 */
class Gen2ProbeOpsTest {
    /** A feature-buffer fill pattern: entries the model does not write keep it. */
    private static final long POISON = 0x5a5a_5a5a_5a5a_5a5aL;
    private static final int PRIO_WRR = 1; // type.h IRDMA_PRIO_WEIGHTED_RR
    private static final int VSI = 3;

    private final DriverNode d = new DriverNode();

    @AfterEach
    void close() {
        d.close();
    }

    /** The CQP ops of the bring-up, in order. */
    private List<String> probeOps() {
        return d.sink.of(TraceKind.CQP_OP).stream().map(e -> e.get("op")).toList();
    }

    @Test
    void theRealProbeQueriesFeaturesAndReportsTheStaticPagesBeforeTheCcqAndTookTheAnswers() {
        List<String> ops = probeOps();
        int ccq = ops.indexOf("CREATE_CQ");
        assertEquals(0, ops.indexOf("QUERY_RDMA_FEATURES"), "right after the CQP");
        assertTrue(ops.indexOf("SHMC_PAGES_ALLOCATED") > ops.lastIndexOf("UPDATE_PE_SDS"));
        assertTrue(ops.indexOf("SHMC_PAGES_ALLOCATED") < ccq, "polled through the registers, before the CCQ");
        assertTrue(d.sink.of(TraceKind.CQP_ERROR).isEmpty());
        // ctrl.c irdma_get_rdma_features: three entries, FW 1.0, gen 2, no atomics
        assertEquals(3, d.driver.features().count());
        assertEquals(1, d.driver.features().fwMajorVersion());
        assertEquals(0, d.driver.features().fwMinorVersion());
        assertEquals(2, d.driver.features().info(RdmaFeatureBuffer.HW_VERSION_INFO) & 0xffff);
        assertEquals(0, d.driver.features().flags()
                & (RdmaFeatureBuffer.FLAG_ATOMICS_ALLOWED | RdmaFeatureBuffer.FLAG_MANAGE_RSRC_VER2));
        assertFalse(d.driver.features().atomicsAllowed());
    }

    @Test
    void theRealProbeBuiltRootVsiNodeAndAnEnabledLeafWhoseQsHandleTheDriverKept() {
        // ws.c irdma_ws_add for the ILQ's user priority: root, VSI node, leaf added disabled, leaf enabled
        List<String> ops = probeOps();
        assertEquals(4, ops.stream().filter("WORK_SCHED_NODE"::equals).count());
        assertTrue(ops.indexOf("WORK_SCHED_NODE") < ops.indexOf("CREATE_QP"), "before the ILQ's QP");
        int[] nodes = d.driver.workScheduler().nodes();
        assertEquals(0, nodes[0]);
        assertEquals(OptionalInt.of(0), tree().root());
        assertEquals(3, tree().liveCount());
        assertTrue(tree().leaf(nodes[2]));
        assertTrue(tree().enabled(nodes[2]));
        assertEquals(tree().qsHandle(nodes[2]), d.driver.workScheduler().qsHandle());
        assertEquals(1, tree().qsHandlesInUse());
    }

    /** ws.c irdma_ws_remove through the driver: the tree its bring-up built goes, the test builds its own. */
    private void withoutTheDriversTree() {
        d.driver.workScheduler().remove();
        assertEquals(0, tree().liveCount());
        assertEquals(0, tree().qsHandlesInUse());
    }

    // --- Query RDMA features

    private long poisonedBuffer(int bytes) {
        long buf = d.alloc(bytes);
        for (int i = 0; i < bytes; i += 8) {
            d.store().writeLong(d.off(buf) + i, POISON);
        }
        return buf;
    }

    private DriverNode.Completion queryFeatures(long buf, int len) {
        return d.op("QUERY_RDMA_FEATURES", (o, v) -> CqpWqeWriter.queryRdmaFeatures(d.store(), o, buf, len, v));
    }

    @Test
    void queryRdmaFeaturesWritesFwInfoHwVersionAndFlagsIntoTheDriversBuffer() {
        long buf = poisonedBuffer(RdmaFeatureBuffer.DRIVER_BUFFER_SIZE);
        DriverNode.Completion c = queryFeatures(buf, RdmaFeatureBuffer.DRIVER_BUFFER_SIZE);
        assertFalse(c.error());
        assertEquals(0, c.opReturn());
        long at = d.off(buf);
        // type 0 (IRDMA_FEATURE_FW_INFO) in 63:48, count 3 in 47:32, FW 1.0 in 31:16 / 15:0
        assertEquals(0x0000_0003_0001_0000L, d.store().readLong(at));
        // type 1 (IRDMA_HW_VERSION_INFO), IRDMA_GEN_2
        assertEquals(0x0001_0000_0000_0002L, d.store().readLong(at + 8));
        // type 32 (IRDMA_FTN_FLAGS), atomics (bit 0) and IRDMA_MANAGE_RSRC_VER2 (bit 2) clear
        assertEquals(0x0020_0000_0000_0000L, d.store().readLong(at + 16));
        for (int i = 24; i < RdmaFeatureBuffer.DRIVER_BUFFER_SIZE; i += 8) {
            assertEquals(POISON, d.store().readLong(at + i), "byte " + i + " untouched");
        }
        RdmaFeatureBuffer f = new RdmaFeatureBuffer().wrap(d.store(), at, RdmaFeatureBuffer.DRIVER_BUFFER_SIZE);
        // what ctrl.c irdma_get_rdma_features takes from it: count >= 2, no retry, atomics off
        assertTrue(f.count() >= 2 && f.count() <= RdmaFeatureBuffer.MAX_FEATURES);
        assertEquals(RdmaFeatureBuffer.FTN_FLAGS, f.type(2));
        assertEquals(0, f.info(2) & (RdmaFeatureBuffer.FLAG_ATOMICS_ALLOWED | RdmaFeatureBuffer.FLAG_MANAGE_RSRC_VER2));
        RecordingTraceSink.Recorded t = lastOp();
        assertEquals("QUERY_RDMA_FEATURES", t.get("op"));
        assertEquals(String.valueOf(RdmaFeatureBuffer.DRIVER_BUFFER_SIZE), t.get("len"));
    }

    @Test
    void aBufferOfOneEntryGetsTheCountSoTheDriverCanRetry() {
        long buf = poisonedBuffer(16);
        assertFalse(queryFeatures(buf, 8).error());
        assertEquals(0x0000_0003_0001_0000L, d.store().readLong(d.off(buf)));
        assertEquals(POISON, d.store().readLong(d.off(buf) + 8), "nothing beyond the declared length");
    }

    @Test
    void featureBufferOutsideMemoryOrOfABadLengthIsAnErrorCompletion() {
        DriverNode.Completion c = queryFeatures(DriverNode.UNMAPPED, RdmaFeatureBuffer.DRIVER_BUFFER_SIZE);
        assertTrue(c.error());
        assertEquals(CqpFault.DMA_FAULT.major(), c.major());
        assertEquals(CqpFault.DMA_FAULT.minor(), c.minor());
        // a buffer that starts in memory and runs past its end
        long end = DriverNode.RAM_BASE + DriverNode.RAM_SIZE;
        assertEquals(CqpFault.DMA_FAULT.minor(), queryFeatures(end - 64, 272).minor());
        long buf = poisonedBuffer(RdmaFeatureBuffer.DRIVER_BUFFER_SIZE);
        assertEquals(CqpFault.INVALID_FIELD.minor(), queryFeatures(buf, 0).minor());
        assertEquals(CqpFault.INVALID_FIELD.minor(), queryFeatures(buf, 12).minor());
        // 4 GiB - 8: whole quadwords, but no mapped region holds it
        assertEquals(CqpFault.DMA_FAULT.minor(), queryFeatures(buf, 0xffff_fff8).minor());
        assertEquals(POISON, d.store().readLong(d.off(buf)), "a refused query writes nothing");
        assertEquals("QUERY_RDMA_FEATURES", d.sink.of(TraceKind.CQP_ERROR).get(0).get("op"));
        d.driver.cqp().nop();
    }

    // --- Static HMC pages allocated

    @Test
    void staticHmcPagesAllocatedCompletesForThisFunctionOnly() {
        DriverNode.Completion c = d.op("SHMC_PAGES_ALLOCATED",
                (o, v) -> CqpWqeWriter.staticHmcPagesAllocated(d.store(), o, 0, v));
        assertFalse(c.error());
        assertEquals(0, c.opReturn());
        assertEquals("SHMC_PAGES_ALLOCATED", lastOp().get("op"));
        assertEquals("0", lastOp().get("hmc_fn"));
        c = d.op("SHMC_PAGES_ALLOCATED", (o, v) -> CqpWqeWriter.staticHmcPagesAllocated(d.store(), o, 5, v));
        assertTrue(c.error());
        assertEquals(CqpFault.INVALID_FIELD.minor(), c.minor());
    }

    @Test
    void beforeTheCcqBothProbeOpsAnswerThroughTheRegisters() {
        // irdma_sc_query_rdma_features and the probe's static-pages op poll CQPTAIL (irdma_cqp_poll_registers)
        try (BareFunction early = new BareFunction()) {
            early.createCqp(64);
            long buf = early.alloc(RdmaFeatureBuffer.DRIVER_BUFFER_SIZE);
            early.post((o, v) -> CqpWqeWriter.queryRdmaFeatures(early.store(), o, buf, 272, v));
            assertFalse(early.cqpOpError());
            assertEquals(early.head, early.cqpTail());
            assertEquals(3, new RdmaFeatureBuffer().wrap(early.store(), early.off(buf), 272).count());
            early.post((o, v) -> CqpWqeWriter.staticHmcPagesAllocated(early.store(), o, 0, v));
            assertFalse(early.cqpOpError());
            early.post((o, v) -> CqpWqeWriter.staticHmcPagesAllocated(early.store(), o, 63, v));
            assertTrue(early.cqpOpError());
        }
    }

    // --- Work scheduler node

    private DriverNode.Completion ws(int op, int id, int parent, boolean leaf, boolean enable, int prio, int tc,
                                     int weight) {
        return d.op("WORK_SCHED_NODE", (o, v) -> CqpWqeWriter.workSchedNode(d.store(), o, op, id, parent, leaf,
                enable, prio, tc, VSI, weight, v));
    }

    private DriverNode.Completion addParent(int id, int parent) {
        return ws(CqpWqe.WS_NODE_OP_ADD, id, parent, false, true, PRIO_WRR, 0, 1);
    }

    private DriverNode.Completion addLeaf(int id, int parent, int tc) {
        return ws(CqpWqe.WS_NODE_OP_ADD, id, parent, true, false, PRIO_WRR, tc, 1);
    }

    private DriverNode.Completion delete(int id) {
        return ws(CqpWqe.WS_NODE_OP_DELETE, id, 0, false, false, 0, 0, 0);
    }

    private void assertFault(CqpFault f, DriverNode.Completion c) {
        assertTrue(c.error(), "expected " + f);
        assertEquals(f.major(), c.major());
        assertEquals(f.minor(), c.minor(), "expected " + f);
    }

    private WorkSchedulerTree tree() {
        return d.dev.workScheduler();
    }

    @Test
    void wsAddBuildsRootVsiAndLeafAndTheLeafsCompletionCarriesItsQsHandle() {
        withoutTheDriversTree();
        // ws.c irdma_ws_add: root (node 0, its own parent), VSI node under it, leaf for TC 0, then enable the leaf
        DriverNode.Completion root = addParent(0, 0);
        assertFalse(root.error());
        assertEquals(0, root.opReturn());
        assertFalse(addParent(1, 0).error());
        DriverNode.Completion leaf = addLeaf(2, 1, 0);
        assertFalse(leaf.error());
        assertEquals(0, leaf.opReturn(), "the first qs_handle of the pool");
        assertEquals(0, tree().qsHandle(2));
        assertFalse(tree().enabled(2));
        RecordingTraceSink.Recorded t = lastOp();
        assertEquals("WORK_SCHED_NODE", t.get("op"));
        assertEquals("2", t.get("node"));
        assertEquals("1", t.get("parent"));
        assertEquals("0", t.get("ret"));
        DriverNode.Completion mod = ws(CqpWqe.WS_NODE_OP_MODIFY, 2, 1, true, true, PRIO_WRR, 0, 1);
        assertFalse(mod.error());
        assertTrue(tree().enabled(2));
        // a second leaf (another TC) gets the next, distinct handle
        DriverNode.Completion leaf2 = addLeaf(3, 1, 1);
        assertEquals(1, leaf2.opReturn());
        assertEquals(4, tree().liveCount());
        // irdma_remove_leaf: leaves, then the VSI node, then the root
        assertFalse(delete(3).error());
        assertFalse(delete(2).error());
        assertFalse(delete(1).error());
        assertFalse(delete(0).error());
        assertEquals(0, tree().liveCount());
        assertEquals(0, tree().qsHandlesInUse());
        assertEquals(OptionalInt.empty(), tree().root());
    }

    @Test
    void qsHandlesAreUniqueAndRecycledOnDelete() {
        withoutTheDriversTree();
        addParent(0, 0);
        addParent(1, 0);
        Set<Long> handles = new HashSet<>();
        for (int i = 0; i < 8; i++) {
            DriverNode.Completion c = addLeaf(10 + i, 1, i);
            assertFalse(c.error());
            assertTrue(handles.add(c.opReturn()), "qs_handle " + c.opReturn() + " handed out twice");
            assertTrue(c.opReturn() < WorkSchedulerTree.QS_HANDLES);
        }
        long freed = tree().qsHandle(13);
        assertFalse(delete(13).error());
        DriverNode.Completion again = addLeaf(13, 1, 3);
        assertEquals(freed, again.opReturn(), "the freed handle is the lowest free one");
        assertEquals(8, tree().qsHandlesInUse());
    }

    @Test
    void badNodeIdsMissingParentsDuplicatesAndOutOfRangeFieldsAreErrorCompletions() {
        withoutTheDriversTree();
        assertFault(CqpFault.NO_SUCH_OBJECT, addParent(1, 0)); // no root yet
        assertFault(CqpFault.INVALID_FIELD, ws(CqpWqe.WS_NODE_OP_ADD, 0, 0, true, true, PRIO_WRR, 0, 1)); // leaf root
        assertFalse(addParent(0, 0).error());
        assertFault(CqpFault.OBJECT_IN_USE, addParent(0, 0)); // duplicate id
        assertFault(CqpFault.OBJECT_IN_USE, addParent(7, 7)); // a second root
        assertFault(CqpFault.INDEX_OUT_OF_RANGE, addParent(WorkSchedulerTree.MAX_WS_NODES, 0));
        assertFault(CqpFault.INDEX_OUT_OF_RANGE, addParent(0x3fff, 0)); // the field's maximum
        assertFault(CqpFault.INDEX_OUT_OF_RANGE, addParent(5, 0x3fff));
        assertFault(CqpFault.NO_SUCH_OBJECT, addParent(5, 4)); // parent 4 does not exist
        assertFault(CqpFault.INVALID_FIELD, ws(CqpWqe.WS_NODE_OP_ADD, 5, 0, false, true, 0, 0, 1)); // prio type 0
        assertFault(CqpFault.INVALID_FIELD, ws(CqpWqe.WS_NODE_OP_ADD, 5, 0, false, true, PRIO_WRR, 0, 0)); // weight 0
        assertFault(CqpFault.INVALID_FIELD, ws(3, 5, 0, false, true, PRIO_WRR, 0, 1)); // node op 3
        assertFault(CqpFault.INVALID_FIELD, ws(15, 5, 0, false, true, PRIO_WRR, 0, 1));
        assertFalse(addParent(1, 0).error());
        assertFalse(addLeaf(2, 1, 0).error());
        assertFault(CqpFault.INVALID_FIELD, addLeaf(3, 2, 0)); // under a leaf
        assertFault(CqpFault.INVALID_FIELD, addParent(3, 2));
        assertFault(CqpFault.NO_SUCH_OBJECT, ws(CqpWqe.WS_NODE_OP_MODIFY, 9, 1, true, true, PRIO_WRR, 0, 1));
        // a modify may not move a node or change its type
        assertFault(CqpFault.INVALID_FIELD, ws(CqpWqe.WS_NODE_OP_MODIFY, 2, 0, true, true, PRIO_WRR, 0, 1));
        assertFault(CqpFault.INVALID_FIELD, ws(CqpWqe.WS_NODE_OP_MODIFY, 2, 1, false, true, PRIO_WRR, 0, 1));
        assertFalse(tree().enabled(2), "a refused modify changes nothing");
        // deleting a node with children is refused, and so is deleting nothing
        assertFault(CqpFault.OBJECT_IN_USE, delete(1));
        assertFault(CqpFault.OBJECT_IN_USE, delete(0));
        assertFault(CqpFault.NO_SUCH_OBJECT, delete(9));
        assertFault(CqpFault.INDEX_OUT_OF_RANGE, delete(0x3fff));
        assertEquals(3, tree().liveCount());
        assertEquals(1, tree().qsHandlesInUse());
        assertFalse(delete(2).error());
        assertFalse(delete(1).error());
        assertFalse(delete(0).error());
        assertEquals(0, tree().liveCount());
        assertEquals(0, tree().qsHandlesInUse());
        List<RecordingTraceSink.Recorded> errors = d.sink.of(TraceKind.CQP_ERROR);
        assertTrue(errors.stream().allMatch(e -> "WORK_SCHED_NODE".equals(e.get("op"))));
        d.driver.cqp().nop();
    }

    @Test
    void aFullTreeAndAnEmptyQsHandlePoolAreTableFull() {
        WorkSchedulerTree small = new WorkSchedulerTree(3, 1);
        assertEquals(WorkSchedulerTree.Result.OK, small.add(0, 0, false, true, PRIO_WRR, 0, VSI, 1));
        assertEquals(WorkSchedulerTree.Result.OK, small.add(1, 0, false, true, PRIO_WRR, 0, VSI, 1));
        assertEquals(WorkSchedulerTree.Result.OK, small.add(2, 1, true, false, PRIO_WRR, 0, VSI, 1));
        assertEquals(OptionalInt.of(0), small.lastQsHandle());
        assertEquals(WorkSchedulerTree.Result.FULL, small.add(3, 1, false, true, PRIO_WRR, 0, VSI, 1));
        assertEquals(WorkSchedulerTree.Result.OK, small.delete(2));
        assertEquals(WorkSchedulerTree.Result.OK, small.add(3, 1, true, false, PRIO_WRR, 0, VSI, 1));
        WorkSchedulerTree noHandles = new WorkSchedulerTree(10, 1);
        noHandles.add(0, 0, false, true, PRIO_WRR, 0, VSI, 1);
        noHandles.add(1, 0, true, false, PRIO_WRR, 0, VSI, 1);
        assertEquals(WorkSchedulerTree.Result.FULL, noHandles.add(2, 0, true, false, PRIO_WRR, 1, VSI, 1));
        assertEquals(2, noHandles.liveCount());
        // through the CQP: the whole node id space (IRDMA_MAX_WS_NODES ids) fits; the tree is full after it
        withoutTheDriversTree();
        addParent(0, 0);
        for (int id = 1; id < WorkSchedulerTree.MAX_WS_NODES; id++) {
            assertFalse(addParent(id, 0).error(), "node " + id);
        }
        assertEquals(WorkSchedulerTree.MAX_WS_NODES, tree().liveCount());
        for (int id = WorkSchedulerTree.MAX_WS_NODES - 1; id >= 0; id--) {
            assertFalse(delete(id).error(), "delete " + id);
        }
        assertEquals(0, tree().liveCount());
    }

    @Test
    void theOpcodeTableCallsAllThreeModelled() {
        assertTrue(CqpOpcode.QUERY_RDMA_FEATURES.modelled());
        assertTrue(CqpOpcode.SHMC_PAGES_ALLOCATED.modelled());
        assertTrue(CqpOpcode.WORK_SCHED_NODE.modelled());
        assertNotEquals(0, CqpWqe.usedBits(CqpOpcode.WORK_SCHED_NODE, 3));
    }

    private RecordingTraceSink.Recorded lastOp() {
        List<RecordingTraceSink.Recorded> ops = d.sink.of(TraceKind.CQP_OP);
        return ops.get(ops.size() - 1);
    }
}
