package dev.irdmaemu.bridge.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.reg.RegisterFile;
import dev.irdmaemu.model.trace.JsonLinesTraceSink;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The timeline's filters over a small trace written by the model's own {@link JsonLinesTraceSink}, its register
 * accesses by a real {@link RegisterFile}: one event a microsecond, a CQP op that fails at 9 µs, an AE after it.
 */
class TraceTimelineTest {
    private static final long CQPTAIL = Gen2Register.CQPTAIL.offset();
    private static final long CQPDB = Gen2Register.CQPDB.offset();
    private static final long WQEALLOC = Gen2Register.WQEALLOC.offset();

    /** The synthetic trace; its events, one per line, in time order (µs): see the comments. */
    static String syntheticTrace() {
        SimScheduler s = new SimScheduler(1);
        StringBuilder out = new StringBuilder();
        Trace t = new Trace(s).enableAll(new JsonLinesTraceSink(out));
        RegisterFile regs = new RegisterFile(t);
        regs.define("CQPTAIL", CQPTAIL, 1, 0, null, null, null, null);
        regs.define("CQPDB", CQPDB, 1, 0, null, null, "cqp_doorbell", (e, v) -> { });
        regs.define("WQEALLOC", WQEALLOC, 1, 0, null, null, "wqe_alloc", (e, v) -> { });
        regs.define("GLINT_DYN_CTL", Gen2Register.GLINT_DYN_CTL.offset(), 2048, 4, null, null, "dyn_ctl_arm",
                (e, v) -> { });
        s.runFor(1_000);
        regs.write32(CQPDB, 1);                                                   // 1 µs
        s.runFor(1_000);
        cqp(t, "CREATE_CQ", 0, false).num("cq", 1).emit();                        // 2 µs
        s.runFor(1_000);
        regs.write32(Gen2Register.GLINT_DYN_CTL.at(3), 0x1b);                    // 3 µs
        s.runFor(1_000);
        aq(t, 0x0001, "get_ver", "OK").emit();                                    // 4 µs
        s.runFor(1_000);
        cqp(t, "CREATE_QP", 1, false).num("qp", 3).num("qp_type", 1).emit();     // 5 µs
        s.runFor(1_000);
        regs.write32(WQEALLOC, 3);                                                // 6 µs
        s.runFor(1_000);
        t.start(TraceKind.CEQE).num("ceq", 0).num("idx", 0).num("cq", 1).flag("valid", true).emit(); // 7 µs
        s.runFor(1_000);
        t.start(TraceKind.MSIX).num("vector", 3).emit();                          // 8 µs
        regs.write32(CQPDB, 3);                                                   // 8 µs
        regs.read32(CQPTAIL);                                                     // 8 µs
        s.runFor(1_000);
        cqp(t, "MODIFY_QP", 2, true).num("qp", 3).emit();                         // 9 µs: the error
        s.runFor(1_000);
        t.start(TraceKind.AEQE).hex("ae", 0x50a).num("id", 3).num("source", 5).num("iwstate", 2)
                .num("tcpstate", 5).num("wqe", 0).num("q2", 0).hex("ctx", 0).flag("queued", true).emit(); // 10 µs
        s.runFor(1_000);
        aq(t, 0x0701, "nvm_read", "EINVAL").emit();                               // 11 µs
        return out.toString();
    }

    private static TraceEvent cqp(Trace t, String op, int wqe, boolean error) {
        TraceEvent e = t.start(error ? TraceKind.CQP_ERROR : TraceKind.CQP_OP);
        return e.text("op", op).num("wqe", wqe).text("result", error ? "QP_STATE_INVALID" : "NONE")
                .hex("major", error ? 0xffff : 0).hex("minor", error ? 0x8029 : 0).num("ret", 0)
                .num("latency_ns", 2600);
    }

    private static TraceEvent aq(Trace t, int opcode, String op, String retval) {
        return t.start(TraceKind.AQ).text("q", "fw").text("dir", "cmd").hex("opcode", opcode).text("op", op)
                .text("retval", retval).num("datalen", 0).num("reply_len", 0).num("idx", 0).hex("flags", 0x2000)
                .hex("param0", 0).hex("param1", 0);
    }

    private record Result(TraceTimeline.Outcome outcome, List<String> lines) {
    }

    private static Result run(TraceQuery q, String before, int context) throws Exception {
        List<String> lines = new ArrayList<>();
        TraceTimeline tl = new TraceTimeline(q, before == null ? null : EventMatch.parse(before), context, null);
        TraceTimeline.Outcome o = tl.run(new StringReader(syntheticTrace()), l -> lines.add(l.toString()));
        return new Result(o, lines);
    }

    private static List<String> lines(TraceQuery q) throws Exception {
        Result r = run(q, null, 0);
        assertEquals(TraceTimeline.Outcome.DONE, r.outcome());
        return r.lines();
    }

    @Test
    void everyEventIsOneLineInTimeOrder() throws Exception {
        List<String> all = lines(new TraceQuery());
        assertEquals(13, all.size(), String.join("\n", all));
        assertEquals("  0.000001000 mmio  rdma  W PFPE_CQPDB 0x00000001 SQ_HEAD=1", all.get(0));
        assertEquals("  0.000003000 mmio  int   W GLINT_DYN_CTL[3] 0x0000001b INTENA=1 CLEARPBA=1 ITR_INDX=3",
                all.get(2));
        assertEquals("  0.000004000 aq    ice   fw cmd get_ver (0x1) SI retval=OK", all.get(3));
        assertEquals("  0.000005000 cqp   rdma  CREATE_QP wqe=1 qp=3 qp_type=1 → ok 2.6 µs", all.get(4));
        assertEquals("  0.000006000 mmio  rdma  W PFPE_WQEALLOC 0x00000003 QP_ID=3", all.get(5));
        assertEquals("  0.000007000 ceq   rdma  CEQE ceq 0 cq 1 idx=0 valid=true", all.get(6));
        assertEquals("  0.000008000 msix  pci   MSI-X vector 3", all.get(7));
        assertEquals("  0.000009000 cqp   rdma  MODIFY_QP wqe=2 qp=3 → ERROR QP_STATE_INVALID major=0xffff "
                + "minor=0x8029 2.6 µs  <== error", all.get(10));
        assertEquals("  0.000010000 ae    rdma  IRDMA_AE_LLP_TOO_MANY_RETRIES (0x50a) source=SQ qp=3 iwstate=2 "
                + "tcpstate=5 wqe=0 q2=0 ctx=0x0  <== error", all.get(11));
    }

    @Test
    void kindsSelectFamiliesOrEventNames() throws Exception {
        List<String> cqp = lines(new TraceQuery().kinds("cqp"));
        assertEquals(3, cqp.size());
        assertTrue(cqp.get(0).contains("CREATE_CQ") && cqp.get(2).contains("MODIFY_QP"), cqp.toString());
        assertEquals(6, lines(new TraceQuery().kinds("mmio,msix")).size());
        assertEquals(1, lines(new TraceQuery().kinds("ceqe")).size());
        assertEquals(2, lines(new TraceQuery().kinds("aq")).size());
        assertThrows(IllegalArgumentException.class, () -> new TraceQuery().kinds("cqp,no-such-kind!"));
    }

    @Test
    void registerGlobMatchesTheModelsOrTheKernelsName() throws Exception {
        assertEquals(3, lines(new TraceQuery().register("PFPE_CQP*")).size());
        assertEquals(3, lines(new TraceQuery().register("cqp*")).size(), "case-insensitive, the model's name");
        List<String> dyn = lines(new TraceQuery().register("GLINT_DYN_CTL"));
        assertEquals(1, dyn.size());
        assertTrue(dyn.get(0).endsWith("INTENA=1 CLEARPBA=1 ITR_INDX=3"), dyn.get(0));
        assertEquals(0, lines(new TraceQuery().register("PFINT_*")).size());
    }

    @Test
    void opcodeSelectsCqpOpsAndAdminQueueCommands() throws Exception {
        assertEquals(2, lines(new TraceQuery().opcode("CREATE_*")).size());
        assertEquals(1, lines(new TraceQuery().opcode("get_ver")).size());
        assertEquals(1, lines(new TraceQuery().opcode("0x0701")).size());
        assertEquals(1, lines(new TraceQuery().opcode("modify_qp")).size());
    }

    @Test
    void qpSelectsEverythingAboutOneQp() throws Exception {
        List<String> qp3 = lines(new TraceQuery().qp(3));
        assertEquals(4, qp3.size(), qp3.toString());
        assertTrue(qp3.get(0).contains("CREATE_QP"));
        assertTrue(qp3.get(1).contains("W PFPE_WQEALLOC"));
        assertTrue(qp3.get(2).contains("MODIFY_QP"));
        assertTrue(qp3.get(3).contains("IRDMA_AE_LLP_TOO_MANY_RETRIES"));
        assertEquals(0, lines(new TraceQuery().qp(4)).size());
    }

    @Test
    void timeWindowIsInclusive() throws Exception {
        List<String> w = lines(new TraceQuery().from(TraceQuery.parseTime("2us")).to(TraceQuery.parseTime("0.004ms")));
        assertEquals(3, w.size(), w.toString());
        assertTrue(w.get(0).startsWith("  0.000002000") && w.get(2).startsWith("  0.000004000"));
        assertEquals(8_000, TraceQuery.parseTime("8000"));
        assertEquals(1_500_000_000L, TraceQuery.parseTime("1.5s"));
        assertEquals(12_000, TraceQuery.parseTime("12µs"));
        assertThrows(IllegalArgumentException.class, () -> TraceQuery.parseTime("banana"));
    }

    @Test
    void filtersCombine() throws Exception {
        assertEquals(1, lines(new TraceQuery().kinds("cqp").qp(3).from(6_000)).size());
        assertEquals(2, lines(new TraceQuery().kinds("mmio").register("*CQPDB")).size());
        assertEquals(1, lines(new TraceQuery().match(EventMatch.parse("reg=GLINT_DYN_CTL ITR_INDX=3"))).size());
        assertEquals(0, lines(new TraceQuery().match(EventMatch.parse("reg=GLINT_DYN_CTL INTENA=0"))).size());
    }

    @Test
    void beforeTheFirstCqpErrorShowsItsContext() throws Exception {
        Result r = run(new TraceQuery(), "cqp status!=0", 3);
        assertEquals(TraceTimeline.Outcome.TRIGGERED, r.outcome());
        assertEquals(4, r.lines().size(), String.join("\n", r.lines()));
        assertTrue(r.lines().get(0).startsWith("     0.000008000 msix"), r.lines().get(0));
        assertTrue(r.lines().get(1).contains("W PFPE_CQPDB 0x00000003 SQ_HEAD=3"));
        assertTrue(r.lines().get(2).contains("R PFPE_CQPTAIL"));
        assertTrue(r.lines().get(3).startsWith(">>   0.000009000 cqp") && r.lines().get(3).contains("MODIFY_QP"),
                r.lines().get(3));
        // the context counts only the events the filters take: the last three register accesses before it
        Result mmio = run(new TraceQuery().kinds("mmio"), "cqp status!=0", 3);
        assertEquals(4, mmio.lines().size());
        assertTrue(mmio.lines().get(0).contains("W PFPE_WQEALLOC"), mmio.lines().get(0));
        // fewer events than the context before it: all of them
        Result early = run(new TraceQuery(), "cqp op=CREATE_QP", 20);
        assertEquals(5, early.lines().size());
    }

    @Test
    void untilErrorAndOtherTriggers() throws Exception {
        Result first = run(new TraceQuery(), "error", 1);
        assertEquals(2, first.lines().size());
        assertTrue(first.lines().get(1).contains("MODIFY_QP"));
        Result aq = run(new TraceQuery(), "aq retval!=OK", 1);
        assertTrue(aq.lines().get(1).contains("nvm_read (0x701) SI retval=EINVAL"), aq.lines().get(1));
        Result ae = run(new TraceQuery(), "ae qp=3", 0);
        assertEquals(1, ae.lines().size());
        assertEquals(TraceTimeline.Outcome.NOT_TRIGGERED, run(new TraceQuery(), "ae qp=9", 5).outcome());
        assertEquals(List.of(), run(new TraceQuery(), "ae qp=9", 5).lines(), "nothing printed without a match");
        assertThrows(IllegalArgumentException.class, () -> EventMatch.parse("qp<three"));
        assertThrows(IllegalArgumentException.class, () -> EventMatch.parse("=3"));
        assertThrows(IllegalArgumentException.class, () -> EventMatch.parse("  "));
    }

    @Test
    void summaryCountsKindsOpcodesAndErrors() throws Exception {
        TraceSummary s = new TraceSummary();
        TraceTimeline tl = new TraceTimeline(new TraceQuery(), null, 0, s);
        assertEquals(TraceTimeline.Outcome.DONE, tl.run(new StringReader(syntheticTrace()), l -> { }));
        assertEquals(13, s.total());
        assertEquals(3, s.errors(), "the CQP error, the AE, the AQ EINVAL");
        assertEquals(5, s.count(EventKind.MMIO));
        assertEquals(3, s.count(EventKind.CQP));
        assertEquals(1, s.cqpOps("MODIFY_QP"));
        StringBuilder sb = new StringBuilder();
        s.print(sb);
        String text = sb.toString();
        assertTrue(text.contains("PFPE_CQPDB W"), text);
        assertTrue(text.matches("(?s).*nvm_read \\(0x701\\)\\s+1  errors 1.*"), text);
        assertTrue(text.matches("(?s).*MODIFY_QP\\s+1  errors 1.*"), text);
        assertTrue(text.contains("first errors"), text);
    }

    @Test
    void aConnectionsOrdinaryAesAreNotErrors() {
        for (int ordinary : new int[] {0x50e, 0x503, 0x501, 0x502, 0x601, 0x900, 0x901}) {
            TraceRecord r = TraceRecord.of(1, "aeqe", "ae", "0x" + Integer.toHexString(ordinary), "id", "3",
                    "queued", "true");
            assertFalse(EventDecoder.isError(r), Integer.toHexString(ordinary));
        }
        for (int abnormal : new int[] {0x50a, 0x505, 0x203, 0x704, 0x0fff}) {
            TraceRecord r = TraceRecord.of(1, "aeqe", "ae", "0x" + Integer.toHexString(abnormal), "id", "3",
                    "queued", "true");
            assertTrue(EventDecoder.isError(r), Integer.toHexString(abnormal));
        }
        assertTrue(EventDecoder.isError(TraceRecord.of(1, "aeqe", "ae", "0x50e", "id", "3", "queued", "false")),
                "an AE the AEQ could not take is lost: an error");
    }
}
