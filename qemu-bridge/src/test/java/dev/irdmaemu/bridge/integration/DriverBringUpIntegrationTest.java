package dev.irdmaemu.bridge.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.model.ModelNode;
import dev.irdmaemu.cm.LocalAddress;
import dev.irdmaemu.driver.CqpException;
import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.fw.cqp.RdmaFeatureBuffer;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.hmc.SegmentDescriptor;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.fw.reg.Bits;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.model.hmc.HmcLimits;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceKind;
import dev.irdmaemu.model.ws.WorkSchedulerTree;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * The driver layer brings the model up from reset in irdma.ko 7.3's gen2 probe order, as the model's trace shows
 * it op by op: hw.c irdma_ctrl_init_hw (CQP by CCQPHIGH/LOW; ctrl.c irdma_get_rdma_features; irdma_hmc_setup:
 * Query FPM, Commit FPM, then irdma_create_hmc_objs: Update PE SDs and Static HMC pages allocated; CCQ, CEQ 0,
 * AEQ), then irdma_rt_init_hw (ILQ: CQ 1, puda.c irdma_puda_qp_create -> ws.c irdma_ws_add: root, VSI node,
 * leaf, leaf enabled, QP 1; IEQ: CQ 2, QP 2, no WS op since UP 0 is valid by then).
 */
class DriverBringUpIntegrationTest {
    private static final long MAC = 0x02_00_00_00_00_0aL;

    private static ModelNode node(RecordingTraceSink sink) {
        SimScheduler s = new SimScheduler(3);
        return new ModelNode(s, new Link(s), new Trace(s).enableAll(sink), MAC,
                List.of(LocalAddress.untagged("192.0.2.1")), FaultProfile.NONE, d -> { });
    }

    @Test
    void bringUpIssuesTheProbeSequenceOpByOp() {
        RecordingTraceSink sink = new RecordingTraceSink();
        try (ModelNode n = node(sink)) {
            assertTrue(n.driver.isUp());
            var create = sink.of(TraceKind.CQP_CREATE);
            assertEquals(1, create.size(), "one CQP create through CCQPHIGH/LOW");
            assertEquals("NONE", create.get(0).get("result"), "CqpFault.NONE: created");
            assertEquals(IrdmaDriver.CQP_ENTRIES, Integer.parseInt(create.get(0).get("sq_size")));
            var ops = sink.of(TraceKind.CQP_OP);
            assertEquals(0, sink.of(TraceKind.CQP_ERROR).size(), "no op failed");
            // hw.c irdma_create_hmc_objs: per object type, its new direct SDs, 11 per Update PE SDs
            int sdOps = expectedSdUpdates(n);
            assertTrue(sdOps >= 2, "the HMC needs more than 11 SDs, so more than one op: " + sdOps);
            List<String> expected = new java.util.ArrayList<>(List.of(
                    "QUERY_RDMA_FEATURES len=272", "QUERY_FPM_VAL hmc_fn=0", "COMMIT_FPM_VAL hmc_fn=0"));
            for (int i = 0; i < sdOps; i++) {
                expected.add("UPDATE_PE_SDS hmc_fn=0");
            }
            expected.addAll(List.of(
                    "SHMC_PAGES_ALLOCATED hmc_fn=0",
                    "CREATE_CQ cq=0", "CREATE_CEQ ceq=0", "CREATE_AEQ",
                    "CREATE_CQ cq=1",
                    "WORK_SCHED_NODE op=0 node=0 parent=0 leaf=false enable=true tc=0 vsi=0 weight=1",
                    "WORK_SCHED_NODE op=0 node=1 parent=0 leaf=false enable=true tc=0 vsi=0 weight=1",
                    "WORK_SCHED_NODE op=0 node=2 parent=1 leaf=true enable=false tc=0 vsi=0 weight=100",
                    "WORK_SCHED_NODE op=1 node=2 parent=1 leaf=true enable=true tc=0 vsi=0 weight=100",
                    "CREATE_QP qp=1", "CREATE_CQ cq=2", "CREATE_QP qp=2"));
            List<String> actual = ops.stream().map(DriverBringUpIntegrationTest::describe).toList();
            assertEquals(expected, actual);
            // the CQP create precedes every op; each op's WQE index follows the previous one
            assertTrue(create.get(0).timeNanos() <= ops.get(0).timeNanos());
            for (int i = 0; i < ops.size(); i++) {
                assertEquals(i, Integer.parseInt(ops.get(i).get("wqe")), "WQE index of op " + i);
            }
            // PUDA QPs are UDA QPs (type 2) created RTS (puda.c irdma_puda_qp_create)
            var qp1 = ops.get(12 + sdOps);
            assertEquals("2", qp1.get("qp_type"));
            assertEquals("2", qp1.get("next_state"));
            assertEquals(15 + sdOps, n.driver.cqp().opsPosted());
            assertEquals(15 + sdOps, n.device.cqp().completedOps());
            // the leaf's add answered its qs_handle in op_ret_val; the driver keeps it as vsi->qos[0].qs_handle
            assertEquals(String.valueOf(n.driver.workScheduler().qsHandle()), ops.get(10 + sdOps).get("ret"));
            assertTrue(n.device.hmc().count(dev.irdmaemu.fw.hmc.HmcObjectType.QP) >= 3);
            // the interrupts are routed and armed: CEQ 0 and the AEQ exist
            assertTrue(n.device.ceq(0).live());
        }
    }

    @Test
    void theHmcIsBackedByDirectTwoMebibyteSdsAndCommitsThousandsOfQps() {
        RecordingTraceSink sink = new RecordingTraceSink();
        try (ModelNode n = node(sink)) {
            // irdma_cfg_fpm_val's own arithmetic, the model's answer: 4096 QPs, 8192 CQs, in one round
            var sizing = n.driver.hmc().fpmSizing();
            assertTrue(sizing.ok(), sizing.toString());
            assertEquals(4096, n.driver.hmc().committedCount(HmcObjectType.QP));
            assertEquals(8192, n.driver.hmc().committedCount(HmcObjectType.CQ));
            assertEquals(4096, n.device.hmc().count(HmcObjectType.QP));
            assertEquals(1, sizing.loops());
            for (HmcObjectType t : HmcObjectType.values()) {
                assertEquals(sizing.commitCount(t) == 0 && t == HmcObjectType.APBVT_ENTRY ? 1
                        : sizing.commitCount(t), n.device.hmc().count(t) == 0 && t == HmcObjectType.APBVT_ENTRY
                        ? 1 : n.device.hmc().count(t), "committed " + t);
            }
            // every SD the model was given is direct and 2 MiB aligned, and programmed once
            var sds = sink.of(TraceKind.HMC).stream().filter(e -> "sd_set".equals(e.get("action"))).toList();
            assertTrue(sds.size() > 11, "more SDs than one op carries: " + sds.size());
            java.util.Set<String> seen = new java.util.HashSet<>();
            for (var e : sds) {
                assertEquals("true", e.get("direct"), "SD " + e.get("sd"));
                long addr = Long.parseLong(e.get("addr").replace("0x", ""), 16);
                assertEquals(0, addr % SegmentDescriptor.DIRECT_BP_SIZE, "SD " + e.get("sd") + " at " + e.get("addr"));
                assertTrue(seen.add(e.get("sd")), "SD " + e.get("sd") + " programmed twice");
                assertEquals(addr, n.driver.hmc().sdAddress(Integer.parseInt(e.get("sd"))).orElseThrow());
            }
            // the PBLE object's first chunk is backed (pble.c add_pble_prm) and resolves on the model's side
            assertTrue(n.driver.hmc().pbleBackedCount() >= 512, "PBLEs backed: " + n.driver.hmc().pbleBackedCount());
            long pbleFpm = n.device.hmc().base(HmcObjectType.PBLE) + 8 * (n.driver.hmc().pbleBackedCount() - 1);
            assertEquals(n.driver.hmc().address(pbleFpm).orElseThrow(),
                    n.device.hmc().resolve(HmcObjectType.PBLE, n.driver.hmc().pbleBackedCount() - 1));
            // the host memory a node's HMC takes: every SD of the objects, 2 MiB each, fits the node's RAM
            long hmcBytes = n.driver.hmc().bytesAllocated();
            assertTrue(hmcBytes >= sds.size() * SegmentDescriptor.DIRECT_BP_SIZE);
            assertTrue(hmcBytes <= ModelNode.RAM_SIZE / 2, "HMC takes " + (hmcBytes >> 20) + " MiB");
            System.out.println("HMC backing: " + sds.size() + " direct SDs, " + (hmcBytes >> 20) + " MiB; " + sizing);
        }
    }

    @Test
    void theProbeKeepsTheFirmwareVersionAndFeatureFlagsTheDeviceReported() {
        // ctrl.c irdma_get_rdma_features: feature_info[type] per entry; the model reports FW_INFO (count 3),
        // HW_VERSION_INFO and FTN_FLAGS with atomics clear
        RecordingTraceSink sink = new RecordingTraceSink();
        try (ModelNode n = node(sink)) {
            assertEquals(3, n.driver.features().count());
            long fw = n.driver.features().info(RdmaFeatureBuffer.FEATURE_FW_INFO);
            assertEquals(3, Bits.getInt(fw, RdmaFeatureBuffer.FEATURE_CNT));
            assertEquals(Bits.getInt(fw, RdmaFeatureBuffer.FW_VER_MAJOR), n.driver.features().fwMajorVersion());
            assertEquals(Bits.getInt(fw, RdmaFeatureBuffer.FW_VER_MINOR), n.driver.features().fwMinorVersion());
            assertEquals(1, n.driver.features().fwMajorVersion());
            assertEquals(RdmaFeatureBuffer.FTN_FLAGS,
                    Bits.getInt(n.driver.features().info(RdmaFeatureBuffer.FTN_FLAGS), RdmaFeatureBuffer.FEATURE_TYPE));
            assertEquals(0, n.driver.features().flags() & (RdmaFeatureBuffer.FLAG_ATOMICS_ALLOWED
                    | RdmaFeatureBuffer.FLAG_MANAGE_RSRC_VER2));
            assertFalse(n.driver.features().atomicsAllowed());
            assertTrue(n.driver.features().info(RdmaFeatureBuffer.HW_VERSION_INFO) != 0, "HW version entry kept");
            // asked again on demand, the same answer
            n.driver.features().query();
            assertEquals(3, n.driver.features().count());
        }
    }

    @Test
    void theProbeLeavesARootAVsiNodeAndOneEnabledLeafWhoseQsHandleTheQueuesCarry() {
        RecordingTraceSink sink = new RecordingTraceSink();
        try (ModelNode n = node(sink)) {
            WorkSchedulerTree ws = n.device.workScheduler();
            assertEquals(3, ws.liveCount(), "root, VSI node, one leaf");
            assertEquals(1, ws.qsHandlesInUse());
            assertEquals(OptionalInt.of(IrdmaDriver.WS_ROOT_NODE), ws.root());
            assertEquals(IrdmaDriver.WS_ROOT_NODE, ws.parent(0), "the root is its own parent");
            assertFalse(ws.leaf(0));
            assertTrue(ws.enabled(0));
            assertEquals(0, ws.parent(1));
            assertFalse(ws.leaf(1));
            assertTrue(ws.enabled(1));
            assertEquals(IrdmaDriver.VSI_NUM, ws.vsi(1));
            assertEquals(1, ws.parent(2));
            assertTrue(ws.leaf(2));
            assertTrue(ws.enabled(2), "modified to enabled after the add");
            assertEquals(1, ws.prioType(2), "IRDMA_PRIO_WEIGHTED_RR");
            int qs = ws.qsHandle(2);
            assertEquals(qs, n.driver.workScheduler().qsHandle());
            assertEquals(List.of(0, 1, 2), Arrays.stream(n.driver.workScheduler().nodes()).boxed().toList());
            // puda.c irdma_puda_qp_setctx: QSHANDLE in the ILQ's and the IEQ's context
            var creates = sink.of(TraceKind.CQP_OP).stream().filter(e -> "CREATE_QP".equals(e.get("op"))).toList();
            assertEquals(2, creates.size());
            QpContext ctx = new QpContext();
            for (var c : creates) {
                long pa = Long.parseLong(c.get("ctx").replace("0x", ""), 16);
                ctx.wrap(n.driver.store(), n.driver.offsetOf(pa), QpContext.SIZE);
                assertEquals(qs, ctx.qsHandle(), "QSHANDLE of QP " + c.get("qp"));
            }
            // the qhash WQEs carry it too (ctrl.c irdma_sc_manage_qhash_table_entry)
            sink.clear();
            n.driver.cqp().manageQhash(true, true, new int[] {0xc000_0201}, 4791, null, 0, false, -1, MAC, 1);
            assertEquals(String.valueOf(qs), sink.of(TraceKind.CQP_OP).get(0).get("qs_handle"));
            // ws.c irdma_remove_leaf: leaf, VSI node, root, bottom up
            sink.clear();
            n.driver.workScheduler().remove();
            var deletes = sink.of(TraceKind.CQP_OP).stream().map(e -> e.get("node_op") + ":" + e.get("node"))
                    .toList();
            assertEquals(List.of("2:2", "2:1", "2:0"), deletes);
            assertEquals(0, ws.liveCount());
            assertEquals(0, ws.qsHandlesInUse());
        }
    }

    /** hw.c iw_hmc_obj_types: the order irdma_create_hmc_objs walks the object types in. */
    private static final HmcObjectType[] CREATE_ORDER = {
        HmcObjectType.QP, HmcObjectType.CQ, HmcObjectType.SRQ, HmcObjectType.HTE, HmcObjectType.ARP,
        HmcObjectType.APBVT_ENTRY, HmcObjectType.MR, HmcObjectType.XF, HmcObjectType.XFFL, HmcObjectType.Q1,
        HmcObjectType.Q1FL, HmcObjectType.PBLE, HmcObjectType.TIMER, HmcObjectType.FSIMC, HmcObjectType.FSIAV,
        HmcObjectType.RRF, HmcObjectType.RRFFL, HmcObjectType.HDR, HmcObjectType.MD, HmcObjectType.OOISC,
        HmcObjectType.OOISCFFL,
    };

    /**
     * The Update PE SDs ops irdma_create_hmc_objs issues for the model's committed layout, computed from the model's
     * side (hmc.c irdma_sc_create_hmc_obj: one new direct SD per SD of the type's range not yet valid; then
     * irdma_hmc_sd_grp: IRDMA_MAX_SD_ENTRIES = 11 per op). Also checks the model holds exactly those SDs, direct.
     */
    private static int expectedSdUpdates(ModelNode n) {
        var hmc = n.device.hmc();
        boolean[] valid = new boolean[HmcLimits.MAX_PE_SDS];
        int ops = 0;
        for (HmcObjectType t : CREATE_ORDER) {
            long count = hmc.count(t);
            if (t == HmcObjectType.PBLE || count == 0) {
                continue;
            }
            long from = hmc.base(t) / SegmentDescriptor.DIRECT_BP_SIZE;
            long to = (hmc.base(t) + count * hmc.objectSize(t) + SegmentDescriptor.DIRECT_BP_SIZE - 1)
                    / SegmentDescriptor.DIRECT_BP_SIZE;
            int added = 0;
            for (long sd = from; sd < to; sd++) {
                if (!valid[(int) sd]) {
                    valid[(int) sd] = true;
                    added++;
                }
            }
            ops += (added + 10) / 11;
        }
        for (int sd = 0; sd < HmcLimits.MAX_PE_SDS; sd++) {
            assertEquals(n.driver.hmc().sdValid(sd), hmc.sdValid(sd), "driver and model agree on SD " + sd);
            if (valid[sd]) {
                assertTrue(hmc.sdValid(sd) && n.driver.hmc().sdDirect(sd), "SD " + sd + " is a direct SD");
            }
        }
        return ops;
    }

    private static String describe(RecordingTraceSink.Recorded e) {
        String op = e.get("op");
        return switch (op) {
            case "CREATE_CQ" -> op + " cq=" + e.get("cq");
            case "CREATE_QP" -> op + " qp=" + e.get("qp");
            case "CREATE_CEQ" -> op + " ceq=" + e.get("ceq");
            case "QUERY_RDMA_FEATURES" -> op + " len=" + e.get("len");
            case "QUERY_FPM_VAL", "COMMIT_FPM_VAL", "UPDATE_PE_SDS", "SHMC_PAGES_ALLOCATED" ->
                    op + " hmc_fn=" + e.get("hmc_fn");
            case "WORK_SCHED_NODE" -> op + " op=" + e.get("node_op") + " node=" + e.get("node") + " parent="
                    + e.get("parent") + " leaf=" + e.get("leaf") + " enable=" + e.get("enable") + " tc="
                    + e.get("tc") + " vsi=" + e.get("vsi") + " weight=" + e.get("weight");
            default -> op;
        };
    }

    @Test
    void onDemandOpsAndAnErrorCompletionBecomeACqpException() {
        RecordingTraceSink sink = new RecordingTraceSink();
        try (ModelNode n = node(sink)) {
            sink.clear();
            n.driver.cqp().manageApbvt(4791, true);
            n.driver.cqp().nop();
            var ops = sink.of(TraceKind.CQP_OP);
            assertEquals("MANAGE_APBVT", ops.get(0).get("op"));
            assertEquals("NOP", ops.get(1).get("op"));
            assertTrue(n.device.apbvt().contains(4791));
            // a qhash delete of an entry that does not exist: the model's NO_SUCH_OBJECT, through the CCQ
            CqpException e = assertThrows(CqpException.class, () -> n.driver.cqp().manageQhash(false, true,
                    new int[] {0xc000_0201}, 4791, new int[] {0xc000_0202}, 50000, true, -1, MAC, 1));
            assertEquals(CqpException.Kind.OP_ERROR, e.kind());
            assertEquals("MANAGE_QUAD_HASH_TABLE_ENTRY", e.op());
            var err = sink.of(TraceKind.CQP_ERROR);
            assertEquals(1, err.size());
            assertEquals(Integer.parseInt(err.get(0).get("major").replace("0x", ""), 16), e.major());
            assertEquals(Integer.parseInt(err.get(0).get("minor").replace("0x", ""), 16), e.minor());
            assertTrue(e.major() != 0);
            // the driver stays usable after an error completion
            n.driver.cqp().nop();
        }
    }
}
