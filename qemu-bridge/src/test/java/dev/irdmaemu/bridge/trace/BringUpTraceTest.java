package dev.irdmaemu.bridge.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.model.ModelNode;
import dev.irdmaemu.cm.LocalAddress;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.model.trace.JsonLinesTraceSink;
import dev.irdmaemu.model.trace.Trace;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A real trace, produced in-process: the Java driver layer brings the model's RDMA block up as irdma's gen2 probe
 * does (no QEMU), the trace goes through {@link JsonLinesTraceSink}, and {@code irdma-emu trace --kind cqp} shows
 * the bring-up's CQP ops decoded, in order, each completed; the register accesses around them are named and
 * decoded; there is no error.
 */
class BringUpTraceTest {
    private static final Pattern OP = Pattern.compile("^\\s*\\d+\\.\\d{9} cqp\\s+rdma\\s+(\\S+)(.*)$");

    private static String bringUpTrace() {
        SimScheduler s = new SimScheduler(3);
        StringBuilder json = new StringBuilder();
        try (ModelNode n = new ModelNode(s, new Link(s), new Trace(s).enableAll(new JsonLinesTraceSink(json)),
                0x02_00_00_00_00_0aL, List.of(LocalAddress.untagged("192.0.2.1")), FaultProfile.NONE, d -> { })) {
            assertTrue(n.driver.isUp());
        }
        return json.toString();
    }

    private static List<String> run(String trace, TraceQuery q, String before) throws Exception {
        List<String> lines = new ArrayList<>();
        new TraceTimeline(q, before == null ? null : EventMatch.parse(before), 5, null)
                .run(new StringReader(trace), l -> lines.add(l.toString()));
        return lines;
    }

    @Test
    void theBringUpsCqpOpsAppearDecodedInOrder() throws Exception {
        String trace = bringUpTrace();
        List<String> ops = new ArrayList<>();
        for (String l : run(trace, new TraceQuery().kinds("cqp").opcode("*"), null)) {
            Matcher m = OP.matcher(l);
            assertTrue(m.matches(), l);
            assertTrue(m.group(2).contains(" → ok "), "completed without error: " + l);
            String op = m.group(1);
            if (!op.equals("UPDATE_PE_SDS") || ops.isEmpty() || !ops.get(ops.size() - 1).equals(op)) {
                ops.add(op + (op.startsWith("CREATE_Q") || op.startsWith("CREATE_C") && !op.equals("CREATE_CEQ")
                        ? " " + m.group(2).replaceAll(".*?((qp|cq)=\\d+).*", "$1") : ""));
            }
        }
        // hw.c irdma_ctrl_init_hw then irdma_rt_init_hw (as DriverBringUpIntegrationTest reads them off the
        // recording sink), here off the JSON lines: consecutive Update PE SDs folded into one; then, since the node
        // is closed before the trace is read, irdma_rt_deinit_hw and irdma_ctrl_deinit_hw (IEQ, ILQ with the WS
        // tree, AEQ, CEQ 0, CCQ, the HMC's SDs), as DriverTearDownIntegrationTest holds them
        assertEquals(List.of("QUERY_RDMA_FEATURES", "QUERY_FPM_VAL", "COMMIT_FPM_VAL", "UPDATE_PE_SDS",
                "SHMC_PAGES_ALLOCATED", "CREATE_CQ cq=0", "CREATE_CEQ", "CREATE_AEQ", "CREATE_CQ cq=1",
                "WORK_SCHED_NODE", "WORK_SCHED_NODE", "WORK_SCHED_NODE", "WORK_SCHED_NODE", "CREATE_QP qp=1",
                "CREATE_CQ cq=2", "CREATE_QP qp=2",
                "DESTROY_QP", "DESTROY_CQ", "DESTROY_QP", "WORK_SCHED_NODE", "WORK_SCHED_NODE", "WORK_SCHED_NODE",
                "DESTROY_CQ", "DESTROY_AEQ", "DESTROY_CEQ", "DESTROY_CQ", "UPDATE_PE_SDS"), ops);
    }

    @Test
    void theRegistersAroundThemAreNamedAndDecoded() throws Exception {
        String trace = bringUpTrace();
        List<String> cqpRegs = run(trace, new TraceQuery().register("PFPE_CQP*"), null);
        assertTrue(cqpRegs.stream().anyMatch(l -> l.contains("W PFPE_CQPDB 0x00000001 SQ_HEAD=1")), cqpRegs.toString());
        assertTrue(cqpRegs.stream().anyMatch(l -> l.contains("R PFPE_CQPTAIL 0x00000001 WQTAIL=1")),
                cqpRegs.toString());
        List<String> ctx = run(trace, new TraceQuery().register("PFPE_CCQP*"), null);
        assertTrue(ctx.stream().anyMatch(l -> l.contains("R PFPE_CCQPSTATUS 0x00000001 CCQP_DONE=1")), ctx.toString());
        // the doorbell write just before the first op: --before with context
        List<String> first = run(trace, new TraceQuery().kinds("mmio"), "cqp op=QUERY_RDMA_FEATURES");
        assertTrue(first.get(first.size() - 1).startsWith(">> "), first.toString());
        assertTrue(first.stream().anyMatch(l -> l.contains("W PFPE_CQPDB 0x00000001 SQ_HEAD=1")), first.toString());
        // a clean bring-up has no error to stop at
        assertEquals(List.of(), run(trace, new TraceQuery(), "error"));
    }
}
