package dev.irdmaemu.bridge.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.model.ModelNode;
import dev.irdmaemu.cm.LocalAddress;
import dev.irdmaemu.cm.driver.CqpException;
import dev.irdmaemu.cm.driver.IrdmaDriver;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The driver layer brings the model up from reset in irdma's probe order (hw.c irdma_ctrl_init_hw: CQP, HMC (Query FPM, Commit FPM, Update PE SDs), CCQ, CEQ 0, AEQ; then irdma_rt_init_hw: ILQ CQ 1 / QP 1, IEQ CQ 2 /
 * QP 2), as the model's trace shows it op by op.
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
            List<String> expected = List.of(
                    "QUERY_FPM_VAL", "COMMIT_FPM_VAL", "UPDATE_PE_SDS",
                    "CREATE_CQ cq=0", "CREATE_CEQ ceq=0", "CREATE_AEQ",
                    "CREATE_CQ cq=1", "CREATE_QP qp=1", "CREATE_CQ cq=2", "CREATE_QP qp=2");
            List<String> actual = ops.stream().map(DriverBringUpIntegrationTest::describe).toList();
            assertEquals(expected, actual);
            // the CQP create precedes every op; each op's WQE index follows the previous one
            assertTrue(create.get(0).timeNanos() <= ops.get(0).timeNanos());
            for (int i = 0; i < ops.size(); i++) {
                assertEquals(i, Integer.parseInt(ops.get(i).get("wqe")), "WQE index of op " + i);
            }
            // PUDA QPs are UDA QPs (type 2) created RTS (puda.c irdma_puda_qp_create)
            var qp1 = ops.get(7);
            assertEquals("2", qp1.get("qp_type"));
            assertEquals("2", qp1.get("next_state"));
            assertEquals(10, n.driver.opsPosted());
            assertEquals(10, n.device.cqp().completedOps());
            assertTrue(n.device.hmc().count(dev.irdmaemu.fw.hmc.HmcObjectType.QP) >= 3);
            // the interrupts are routed and armed: CEQ 0 and the AEQ exist
            assertTrue(n.device.ceq(0).live());
        }
    }

    @Test
    void theGen2FeatureQueryIsAnsweredOnDemandThoughTheProbeDoesNotSendItYet() {
        // irdma_get_rdma_features runs between CQP create and HMC setup on gen2; the model answers it (FW info,
        // HW version, function flags), and the driver's probe takes it up in a later step of issue 14
        RecordingTraceSink sink = new RecordingTraceSink();
        try (ModelNode n = node(sink)) {
            n.driver.queryRdmaFeatures();
            assertEquals(3, n.driver.featureCount());
            var last = sink.of(TraceKind.CQP_OP);
            assertEquals("QUERY_RDMA_FEATURES", last.get(last.size() - 1).get("op"));
        }
    }

    private static String describe(RecordingTraceSink.Recorded e) {
        String op = e.get("op");
        return switch (op) {
            case "CREATE_CQ" -> op + " cq=" + e.get("cq");
            case "CREATE_QP" -> op + " qp=" + e.get("qp");
            case "CREATE_CEQ" -> op + " ceq=" + e.get("ceq");
            default -> op;
        };
    }

    @Test
    void onDemandOpsAndAnErrorCompletionBecomeACqpException() {
        RecordingTraceSink sink = new RecordingTraceSink();
        try (ModelNode n = node(sink)) {
            sink.clear();
            n.driver.manageApbvt(4791, true);
            n.driver.nop();
            var ops = sink.of(TraceKind.CQP_OP);
            assertEquals("MANAGE_APBVT", ops.get(0).get("op"));
            assertEquals("NOP", ops.get(1).get("op"));
            assertTrue(n.device.apbvt().contains(4791));
            // a qhash delete of an entry that does not exist: the model's NO_SUCH_OBJECT, through the CCQ
            CqpException e = assertThrows(CqpException.class, () -> n.driver.manageQhash(false, true,
                    new int[] {0xc000_0201}, 4791, new int[] {0xc000_0202}, 50000, true, -1, MAC, 1));
            assertEquals(CqpException.Kind.OP_ERROR, e.kind());
            assertEquals("MANAGE_QUAD_HASH_TABLE_ENTRY", e.op());
            var err = sink.of(TraceKind.CQP_ERROR);
            assertEquals(1, err.size());
            assertEquals(Integer.parseInt(err.get(0).get("major").replace("0x", ""), 16), e.major());
            assertEquals(Integer.parseInt(err.get(0).get("minor").replace("0x", ""), 16), e.minor());
            assertTrue(e.major() != 0);
            // the driver stays usable after an error completion
            n.driver.nop();
        }
    }
}
