package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.queue.Ceqe;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.trace.JsonLinesTraceSink;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.List;
import java.util.Map;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The model brought up from reset the way irdma's probe does it (hw.c irdma_ctrl_init_hw, then irdma_rt_init_hw
 * and the CM's first listen), through MMIO and host memory only; the trace shows the CQP op sequence.
 */
class BringUpTest {
    static final int LOCAL = IpAddress.ipv4(192, 0, 2, 1);
    static final int REMOTE = IpAddress.ipv4(192, 0, 2, 2);
    static final long MAC_LOCAL = 0x02_00_00_00_00_01L;
    static final long MAC_REMOTE = 0x02_00_00_00_00_02L;

    private final TestDriver d = new TestDriver();

    @AfterEach
    void close() {
        d.close();
    }

    /** Runs the whole bring-up; every step must succeed. */
    static TestDriver.Puda bringUp(TestDriver d) {
        return bringUp(d, TestDriver.SMALL);
    }

    /** The probe with the HMC object counts {@code counts} committed (irdma_cfg_fpm_val's choice). */
    static TestDriver.Puda bringUp(TestDriver d, Map<HmcObjectType, Long> counts) {
        // ctrl.c irdma_wait_pe_ready, irdma_sc_dev_init.
        assertEquals(0x80, d.reg(Gen2Register.GLPE_CPUSTATUS0));
        assertEquals(0x80, d.reg(Gen2Register.GLPE_CPUSTATUS1));
        assertEquals(0x80, d.reg(Gen2Register.GLPE_CPUSTATUS2));
        int lbar = d.reg(Gen2Register.GLPCI_LBARCTRL);
        assertEquals(Gen2Registers.PE_DB_SIZE_8M, (lbar >>> 4) & 3);
        // irdma_create_cqp: 2048 WQEs.
        int status = d.createCqp(2048);
        assertTrue(Gen2Registers.ccqpDone(status));
        assertFalse(Gen2Registers.ccqpError(status));
        // irdma_hmc_setup: Query FPM, Commit FPM, Update PE SDs, all polled through PFPE_CQPTAIL.
        assertFalse(d.queryAndCommit(counts).error());
        assertEquals(64, d.committedCount.get(HmcObjectType.QP));
        assertFalse(d.backHmcPaged().error());
        assertEquals(3, d.cqpTail());
        // irdma_create_ccq: CQ 0, then its own completion comes from the CCQ.
        TestDriver.Completion c = d.createCcq(64);
        assertFalse(c.error());
        assertEquals(3, c.wqeIndex());
        assertEquals(TestDriver.CQP_COMPLETION_CONTEXT, c.context());
        // irdma_setup_ceq_0 (+ icrdma_cfg_ceq, irdma_ena_intr), irdma_setup_aeq (+ irdma_cfg_aeq).
        d.write(Gen2Register.GLINT_CEQCTL, 0, Gen2Registers.ceqCtl(true, 1));
        d.write(Gen2Register.GLINT_DYN_CTL, 1, Gen2Registers.dynCtlEnable(0));
        assertFalse(d.createCeq(0, 64).error());
        d.write(Gen2Register.PFINT_AEQCTL, Gen2Registers.aeqCtl(true, 0));
        d.write(Gen2Register.GLINT_DYN_CTL, 0, Gen2Registers.dynCtlEnable(0));
        assertFalse(d.createAeq(64).error());
        // irdma_initialize_ilq / irdma_initialize_ieq: CQ then UDA QP, created in RTS.
        TestDriver.Puda ilq = d.createPuda(1, 16, 16, 1024, true);
        d.ieq = d.createPuda(2, 16, 16, 1024, true);
        // The CM's listen: APBVT for the port, a SYN quad-hash entry to the ILQ.
        assertFalse(d.apbvt(20000, true).error());
        assertFalse(d.qhashV4(CqpWqe.QHASH_MANAGE_ADD, LOCAL, 20000, 0, 0, -1, 1).error());
        return ilq;
    }

    @Test
    void probeSequenceAsIrdmaDoesIt() {
        bringUp(d);
        List<String> ops = d.sink.of(TraceKind.CQP_OP).stream().map(e -> e.get("op")).toList();
        assertEquals(List.of("QUERY_FPM_VAL", "COMMIT_FPM_VAL", "UPDATE_PE_SDS", "CREATE_CQ", "CREATE_CEQ",
                "CREATE_AEQ", "CREATE_CQ", "CREATE_QP", "CREATE_CQ", "CREATE_QP", "MANAGE_APBVT",
                "MANAGE_QUAD_HASH_TABLE_ENTRY"), ops);
        assertTrue(d.sink.of(TraceKind.CQP_ERROR).isEmpty(), () -> d.sink.of(TraceKind.CQP_ERROR).toString());
        assertEquals(QpState.RTS, d.dev.qps().get(1).state());
        assertEquals(QpState.RTS, d.dev.qps().get(2).state());
        assertEquals(1, d.dev.quadHash().listenCount());
        assertTrue(d.dev.apbvt().contains(20000));
        assertEquals(1, d.sink.of(TraceKind.CQP_CREATE).size());
        assertTrue(d.dev.cqp().stats().summary().contains("CREATE_QP"));
        String summary = d.dev.summary();
        assertTrue(summary.contains("CQP: up, 12 ops, 0 failed"), summary);
        assertTrue(summary.contains("qhash 0 established / 1 listen, APBVT ports 1"), summary);
    }

    @Test
    void theBringUpTraceIsWritableAsJsonLines() {
        StringBuilder out = new StringBuilder();
        d.trace.enableAll(new JsonLinesTraceSink(out));
        bringUp(d);
        List<String> lines = out.toString().lines().toList();
        assertTrue(lines.stream().allMatch(l -> l.startsWith("{\"t\":") && l.endsWith("}")));
        List<String> ops = lines.stream().filter(l -> l.contains("\"ev\":\"cqp_op\"")).toList();
        assertEquals(12, ops.size());
        assertTrue(ops.get(0).contains("\"op\":\"QUERY_FPM_VAL\""), ops.get(0));
        assertTrue(ops.get(7).contains("\"qp\":1"), ops.get(7));
        assertTrue(lines.stream().anyMatch(l -> l.contains("\"ev\":\"reg_write\"") && l.contains("CCQPLOW")));
    }

    @Test
    void armedCcqRaisesCeqeAndTheRoutedVector() {
        bringUp(d);
        d.interrupts.clear();
        d.armCq(0, d.ccqShadow);
        assertFalse(d.nop().error());
        // CEQ 0 (vector 1 per GLINT_CEQCTL) got a CEQE naming CQ 0 with valid bit 1 (first pass).
        Ceqe e = new Ceqe().wrap(d.store(), d.off(d.dev.ceq(0).ringAddress()), 8);
        assertTrue(e.valid());
        assertEquals(0, e.cqIndex());
        assertEquals(List.of(1), d.interrupts);
        // The vector disarmed itself: another armed completion is pending until INTENA is written again.
        d.armCq(0, d.ccqShadow);
        assertFalse(d.nop().error());
        assertEquals(List.of(1), d.interrupts);
        assertTrue(d.dev.interrupts().pending(1));
        d.write(Gen2Register.GLINT_DYN_CTL, 1, Gen2Registers.dynCtlEnable(0));
        d.run();
        assertEquals(List.of(1, 1), d.interrupts);
        // An unarmed CQ raises nothing.
        assertFalse(d.nop().error());
        assertEquals(2, d.dev.ceq(0).posted());
    }

    @Test
    void synToTheListenerLandsInTheIlqWithTheFieldsPudaReads() {
        TestDriver.Puda ilq = bringUp(d);
        BytesStore<?, Void> frame = BytesStore.nativeStoreWithFixedCapacity(2048);
        TcpPacketBuilder b = new TcpPacketBuilder().ethernet(MAC_LOCAL, MAC_REMOTE).vlan(5, false, 100)
                .ipv4(REMOTE, LOCAL);
        b.tcp().ports(40000, 20000).sequenceNumber(0x1234_5678L).flags(TcpHeader.SYN).window(65535).mss(1460);
        int len = b.build(frame, 0);
        d.dev.port().receive(frame, 0, len);
        d.run();
        // Listen entry has no VLAN: a tagged SYN does not match it; APBVT marks the port, so it still reaches the ILQ.
        Cqe cqe = d.pollPuda(ilq);
        assertNotNull(cqe);
        assertEquals(1, cqe.qpId());
        assertEquals(0xD00D_0001L, cqe.completionContext());
        assertEquals(Cqe.QTYPE_RQ, cqe.queueType());
        assertTrue(cqe.ipv4());
        assertFalse(cqe.error());
        assertEquals(0, cqe.wqeIndex());
        frame.releaseLast();
    }
}
