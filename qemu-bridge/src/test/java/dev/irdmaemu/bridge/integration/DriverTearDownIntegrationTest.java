package dev.irdmaemu.bridge.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.model.ModelNode;
import dev.irdmaemu.cm.LocalAddress;
import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.model.E810RdmaFunction;
import dev.irdmaemu.model.hmc.HmcLimits;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * {@link IrdmaDriver#tearDown()} runs irdma 7.3's remove path over what the bring-up made, op by op in the kernel's
 * order (icrdma_if.c icrdma_remove -> hw.c irdma_rt_deinit_hw: puda.c irdma_puda_dele_rsrc for the IEQ then the ILQ,
 * ws.c irdma_ws_remove after the last QP of the TC, ctrl.c irdma_vsi_stats_free; then hw.c irdma_ctrl_deinit_hw:
 * irdma_destroy_aeq, irdma_del_ceq_0, irdma_destroy_ccq, irdma_del_hmc_objects, irdma_destroy_cqp), and leaves the
 * model holding nothing of it (the counts qemu-bridge's E810Holdings takes of a function).
 */
class DriverTearDownIntegrationTest {
    private static final long MAC = 0x02_00_00_00_00_0bL;

    private static ModelNode node(RecordingTraceSink sink, Consumer<IrdmaDriver> before) {
        SimScheduler s = new SimScheduler(5);
        return new ModelNode(s, new Link(s), new Trace(s).enableAll(sink), MAC,
                List.of(LocalAddress.untagged("192.0.2.11")), FaultProfile.NONE, before);
    }

    private static String describe(RecordingTraceSink.Recorded e) {
        String op = e.get("op");
        return switch (op) {
            case "DESTROY_CQ" -> op + " cq=" + e.get("cq");
            case "DESTROY_QP" -> op + " qp=" + e.get("qp");
            case "DESTROY_CEQ" -> op + " ceq=" + e.get("ceq");
            case "UPDATE_PE_SDS" -> op + " hmc_fn=" + e.get("hmc_fn");
            case "WORK_SCHED_NODE" -> op + " op=" + e.get("node_op") + " node=" + e.get("node");
            default -> op;
        };
    }

    /** What the RDMA side of the function holds (E810Holdings' RDMA kinds, on the bare function). */
    private static String holdings(E810RdmaFunction f) {
        int ceqs = 0;
        for (int i = 0; i < HmcLimits.MAX_CEQS; i++) {
            ceqs += f.ceq(i).live() ? 1 : 0;
        }
        return "cqp=" + (f.cqp().created() ? 1 : 0) + " ceqs=" + ceqs + " aeq=" + (f.aeq().live() ? 1 : 0)
                + " cqs=" + f.cqs().liveCount() + " qps=" + f.qps().liveCount() + " stags=" + f.stags().liveCount()
                + " qhash=" + (f.quadHash().establishedCount() + f.quadHash().listenCount())
                + " apbvt=" + f.apbvt().size() + " arp=" + f.arp().validCount()
                + " ahs=" + f.addressHandles().liveCount() + " ws=" + f.workScheduler().liveCount()
                + " sds=" + f.hmc().validSds() + " engines=" + f.iwarp().liveEngines()
                + " timers=" + f.scheduler().pendingOwnedBy(f);
    }

    private static final String NOTHING = "cqp=0 ceqs=0 aeq=0 cqs=0 qps=0 stags=0 qhash=0 apbvt=0 arp=0 ahs=0 ws=0 "
            + "sds=0 engines=0 timers=0";

    @Test
    void tearDownIssuesTheRemovePathsOpsInTheKernelsOrderAndTheModelHoldsNothingAfter() {
        RecordingTraceSink sink = new RecordingTraceSink();
        ModelNode n = node(sink, d -> { });
        try {
            long sdsBefore = n.device.hmc().validSds();
            assertTrue(sdsBefore > 11, "more SDs than one Update PE SDs carries: " + sdsBefore);
            long hmcBytes = n.driver.hmc().bytesAllocated();
            sink.clear();
            n.driver.tearDown();
            List<String> expected = new ArrayList<>(List.of(
                    // irdma_rt_deinit_hw: IEQ (its QP, no WS change: the ILQ still uses the TC), its CQ
                    "DESTROY_QP qp=2", "DESTROY_CQ cq=2",
                    // ILQ: its QP, the WS tree bottom up (ws.c irdma_remove_leaf), its CQ
                    "DESTROY_QP qp=1",
                    "WORK_SCHED_NODE op=2 node=2", "WORK_SCHED_NODE op=2 node=1", "WORK_SCHED_NODE op=2 node=0",
                    "DESTROY_CQ cq=1",
                    // irdma_ctrl_deinit_hw: AEQ, CEQ 0, CCQ
                    "DESTROY_AEQ", "DESTROY_CEQ ceq=0", "DESTROY_CQ cq=0"));
            var ops = sink.of(TraceKind.CQP_OP);
            assertEquals(0, sink.of(TraceKind.CQP_ERROR).size(), "no op failed: " + sink.of(TraceKind.CQP_ERROR));
            List<String> actual = ops.stream().map(DriverTearDownIntegrationTest::describe).toList();
            // irdma_del_hmc_objects: Update PE SDs clearing every SD, at most 11 per op
            int sdOps = actual.size() - expected.size();
            for (int i = 0; i < sdOps; i++) {
                expected.add("UPDATE_PE_SDS hmc_fn=0");
            }
            assertEquals(expected, actual);
            assertTrue(sdOps >= (sdsBefore + 10) / 11, sdOps + " ops for " + sdsBefore + " SDs");
            var cleared = sink.of(TraceKind.HMC).stream().filter(e -> "sd_clear".equals(e.get("action"))).count();
            assertEquals(sdsBefore, cleared, "every SD the bring-up set is cleared once");
            // irdma_destroy_cqp, after every op
            var cqp = sink.of(TraceKind.CQP_CREATE);
            assertEquals(1, cqp.size());
            assertEquals("destroy", cqp.get(0).get("action"));
            assertTrue(cqp.get(0).timeNanos() >= ops.get(ops.size() - 1).timeNanos());

            assertEquals(NOTHING, holdings(n.device));
            assertEquals(0, n.driver.hmc().bytesAllocated(), "every SD page and the SD buffer freed (had " + hmcBytes
                    + ")");
            assertEquals(List.of(-1, -1, -1),
                    java.util.Arrays.stream(n.driver.workScheduler().nodes()).boxed().toList());
            assertFalse(n.driver.isUp());
            assertEquals(0, n.driver.scheduler().pendingBackgroundTimers(), "the stats timer is stopped");
            // a second teardown has nothing left to do
            sink.clear();
            n.driver.tearDown();
            assertEquals(0, sink.of(TraceKind.CQP_OP).size());
            assertEquals(0, sink.of(TraceKind.CQP_CREATE).size());
        } finally {
            n.close();
        }
    }

    @Test
    void aVirtualAeqAndAGrownPblePoolAreTornDownToNothingToo() {
        RecordingTraceSink sink = new RecordingTraceSink();
        ModelNode n = node(sink, IrdmaDriver::withVirtualAeq);
        try {
            assertTrue(n.driver.aeq().firstPbleIndex().isPresent());
            // more PBLEs than the first chunk holds: pble.c add_pble_prm backs another SD
            long backed = n.driver.hmc().pbleBackedCount();
            long sds = n.device.hmc().validSds();
            for (int i = 0; i < 4096 && n.driver.hmc().pbleBackedCount() == backed; i++) {
                assertTrue(n.driver.hmc().pbles().allocate(512, false) != null, "allocation " + i);
            }
            assertTrue(n.driver.hmc().pbleBackedCount() > backed, "the pool grew");
            assertTrue(n.device.hmc().validSds() >= sds, "a chunk in a valid direct SD, or a new SD");
            sink.clear();
            n.driver.tearDown();
            assertEquals(0, sink.of(TraceKind.CQP_ERROR).size(), "no op failed: " + sink.of(TraceKind.CQP_ERROR));
            assertEquals(NOTHING, holdings(n.device));
            assertEquals(0, n.driver.hmc().bytesAllocated());
        } finally {
            n.close();
        }
    }

    @Test
    void closingANodeTearsItsDriverDownThroughTheDevice() {
        RecordingTraceSink sink = new RecordingTraceSink();
        ModelNode n = node(sink, d -> { });
        E810RdmaFunction device = n.device;
        n.close();
        assertEquals(NOTHING, holdings(device));
        assertTrue(sink.of(TraceKind.CQP_OP).stream().anyMatch(e -> "DESTROY_CEQ".equals(e.get("op"))));
    }
}
