package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.fw.cqp.CqpCompletion;
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
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The model brought up from reset by the real driver's probe (hw.c irdma_ctrl_init_hw, then irdma_rt_init_hw) and
 * the CM's first listen, through MMIO and host memory only; the trace shows the CQP op sequence, held here against
 * the kernel's order.
 */
class BringUpTest {
    static final int LOCAL = IpAddress.ipv4(192, 0, 2, 1);
    static final int REMOTE = IpAddress.ipv4(192, 0, 2, 2);
    static final long MAC_LOCAL = DriverNode.DEFAULT_MAC;
    static final long MAC_REMOTE = 0x02_00_00_00_00_02L;
    /** The port the CM listens on in these tests. */
    static final int LISTEN_PORT = 20000;

    private DriverNode d;

    @AfterEach
    void close() {
        if (d != null) {
            d.close();
        }
    }

    /**
     * The CM's first listen on {@code n} (cm.c irdma_cm_listen / irdma_manage_qhash): the port into the APBVT,
     * then a SYN quad-hash entry for {@link #LOCAL}:{@link #LISTEN_PORT} steering to the ILQ. Answers {@code n}.
     */
    static DriverNode listen(DriverNode n) {
        n.driver.cqp().manageApbvt(LISTEN_PORT, true);
        n.driver.cqp().manageQhash(true, true, new int[] {LOCAL}, LISTEN_PORT, new int[1], 0, false, -1,
                n.driver.macAddress(), IrdmaDriver.ILQ_QP);
        return n;
    }

    /** A node the real driver brought up, listening (MAC {@link #MAC_LOCAL}, address {@link #LOCAL}). */
    static DriverNode listening() {
        return listen(new DriverNode());
    }

    /** The CQP ops of the trace, in order; consecutive Update PE SDs stand as one (one per batch of SDs). */
    private static List<String> ops(DriverNode n) {
        List<String> ops = new ArrayList<>();
        for (var e : n.sink.of(TraceKind.CQP_OP)) {
            String op = e.get("op");
            if (!op.equals("UPDATE_PE_SDS") || !ops.get(ops.size() - 1).equals(op)) {
                ops.add(op);
            }
        }
        return ops;
    }

    /**
     * hw.c irdma_ctrl_init_hw (gen2): the feature query right after the CQP, the HMC (Query FPM, Commit FPM, the SDs,
     * Static HMC pages allocated), the CCQ, CEQ 0, the AEQ; then irdma_rt_init_hw: the ILQ's CQ, the work-scheduler
     * tree for its user priority (root, VSI node, leaf added disabled, then enabled: ws.c irdma_ws_add), the ILQ's
     * QP, the IEQ's CQ and QP; then the CM's listen (APBVT, quad hash).
     */
    static final List<String> PROBE_AND_LISTEN = List.of("QUERY_RDMA_FEATURES", "QUERY_FPM_VAL", "COMMIT_FPM_VAL",
            "UPDATE_PE_SDS", "SHMC_PAGES_ALLOCATED", "CREATE_CQ", "CREATE_CEQ", "CREATE_AEQ", "CREATE_CQ",
            "WORK_SCHED_NODE", "WORK_SCHED_NODE", "WORK_SCHED_NODE", "WORK_SCHED_NODE", "CREATE_QP", "CREATE_CQ",
            "CREATE_QP", "MANAGE_APBVT", "MANAGE_QUAD_HASH_TABLE_ENTRY");

    @Test
    void probeSequenceAsIrdmaDoesIt() {
        d = listening();
        // ctrl.c irdma_wait_pe_ready, irdma_sc_dev_init: what the probe read first
        assertEquals(0x80, d.reg(Gen2Register.GLPE_CPUSTATUS0));
        assertEquals(0x80, d.reg(Gen2Register.GLPE_CPUSTATUS1));
        assertEquals(0x80, d.reg(Gen2Register.GLPE_CPUSTATUS2));
        assertEquals(Gen2Registers.PE_DB_SIZE_8M, (d.reg(Gen2Register.GLPCI_LBARCTRL) >>> 4) & 3);
        int status = d.reg(Gen2Register.CCQPSTATUS);
        assertTrue(Gen2Registers.ccqpDone(status));
        assertFalse(Gen2Registers.ccqpError(status));
        assertEquals(PROBE_AND_LISTEN, ops(d));
        assertTrue(d.sink.of(TraceKind.CQP_ERROR).isEmpty(), () -> d.sink.of(TraceKind.CQP_ERROR).toString());
        // the HMC committed as irdma_cfg_fpm_val sized it: more than 128 QPs, as the device reports them
        assertEquals(d.driver.hmc().committedCount(HmcObjectType.QP), d.dev.hmc().count(HmcObjectType.QP));
        assertTrue(d.driver.hmc().committedCount(HmcObjectType.QP) > 128);
        // hw.c irdma_create_ccq: CQ 0's own completion is the first CQE of the CCQ, for the WQE after the ops polled
        // through PFPE_CQPTAIL, with the CQP's completion context
        int ccqCreate = d.sink.of(TraceKind.CQP_OP).stream().map(e -> e.get("op")).toList().indexOf("CREATE_CQ");
        CqpCompletion first = new CqpCompletion().wrap(d.store(), d.off(d.dev.cqs().ccq().ringAddress()));
        assertTrue(first.valid());
        assertFalse(first.error());
        assertEquals(ccqCreate, first.wqeIndex());
        assertEquals(IrdmaDriver.CQP_COMPLETION_CONTEXT, first.completionContext());
        assertEquals(QpState.RTS, d.dev.qps().get(IrdmaDriver.ILQ_QP).state());
        assertEquals(QpState.RTS, d.dev.qps().get(IrdmaDriver.IEQ_QP).state());
        assertEquals(1, d.dev.quadHash().listenCount());
        assertTrue(d.dev.apbvt().contains(LISTEN_PORT));
        assertEquals(1, d.sink.of(TraceKind.CQP_CREATE).size());
        assertTrue(d.dev.cqp().stats().summary().contains("CREATE_QP"));
        String summary = d.dev.summary();
        int opCount = d.sink.of(TraceKind.CQP_OP).size();
        assertTrue(summary.contains("CQP: up, " + opCount + " ops, 0 failed"), summary);
        assertTrue(summary.contains("qhash 0 established / 1 listen, APBVT ports 1"), summary);
    }

    @Test
    void theBringUpTraceIsWritableAsJsonLines() {
        StringBuilder out = new StringBuilder();
        d = listen(new DriverNode(new JsonLinesTraceSink(out)));
        List<String> lines = out.toString().lines().toList();
        assertTrue(lines.stream().allMatch(l -> l.startsWith("{\"t\":") && l.endsWith("}")));
        List<String> ops = lines.stream().filter(l -> l.contains("\"ev\":\"cqp_op\"")).toList();
        assertEquals(d.sink.of(TraceKind.CQP_OP).size(), ops.size());
        assertTrue(ops.size() >= PROBE_AND_LISTEN.size());
        assertTrue(ops.get(0).contains("\"op\":\"QUERY_RDMA_FEATURES\""), ops.get(0));
        String ilqCreate = ops.stream().filter(l -> l.contains("\"op\":\"CREATE_QP\"")).findFirst().orElseThrow();
        assertTrue(ilqCreate.contains("\"qp\":1"), ilqCreate);
        assertTrue(lines.stream().anyMatch(l -> l.contains("\"ev\":\"reg_write\"") && l.contains("CCQPLOW")));
    }

    @Test
    void armedCcqRaisesCeqeAndTheRoutedVector() {
        d = listening();
        d.run();
        // the driver's remove path: from here on nothing answers the vectors, so the test sees them as raised
        d.driver.stopAnsweringInterrupts();
        d.recordInterrupts();
        // INTENA for CEQ 0's vector as irdma_ena_intr writes it; whatever was pending fires now, before the test
        d.write(Gen2Register.GLINT_DYN_CTL, IrdmaDriver.CEQ0_VECTOR, Gen2Registers.dynCtlEnable(0));
        d.run();
        d.interrupts.clear();
        long posted = d.dev.ceq(0).posted();
        d.driver.ringCqArm(IrdmaDriver.CCQ_ID);
        d.driver.cqp().nop();
        d.run();
        // CEQ 0 (vector 1 per GLINT_CEQCTL) got a CEQE naming CQ 0 with valid bit 1 (first pass).
        Ceqe e = new Ceqe().wrap(d.store(), d.off(d.dev.ceq(0).ringAddress() + posted * Ceqe.SIZE), Ceqe.SIZE);
        assertTrue(e.valid());
        assertEquals(0, e.cqIndex());
        assertEquals(List.of(IrdmaDriver.CEQ0_VECTOR), d.interrupts);
        // The vector disarmed itself: another armed completion is pending until INTENA is written again.
        d.driver.ringCqArm(IrdmaDriver.CCQ_ID);
        d.driver.cqp().nop();
        d.run();
        assertEquals(List.of(IrdmaDriver.CEQ0_VECTOR), d.interrupts);
        assertTrue(d.dev.interrupts().pending(IrdmaDriver.CEQ0_VECTOR));
        d.write(Gen2Register.GLINT_DYN_CTL, IrdmaDriver.CEQ0_VECTOR, Gen2Registers.dynCtlEnable(0));
        d.run();
        assertEquals(List.of(IrdmaDriver.CEQ0_VECTOR, IrdmaDriver.CEQ0_VECTOR), d.interrupts);
        // An unarmed CQ raises nothing.
        d.driver.cqp().nop();
        d.run();
        assertEquals(posted + 2, d.dev.ceq(0).posted());
    }

    @Test
    void synToTheListenerLandsInTheIlqWithTheFieldsPudaReads() {
        d = listening();
        PudaRings ilq = PudaRings.ilq(d);
        BytesStore<?, Void> frame = BytesStore.nativeStoreWithFixedCapacity(2048);
        TcpPacketBuilder b = new TcpPacketBuilder().ethernet(MAC_LOCAL, MAC_REMOTE).vlan(5, false, 100)
                .ipv4(REMOTE, LOCAL);
        b.tcp().ports(40000, LISTEN_PORT).sequenceNumber(0x1234_5678L).flags(TcpHeader.SYN).window(65535).mss(1460);
        int len = b.build(frame, 0);
        d.dev.port().receive(frame, 0, len);
        d.run();
        // Listen entry has no VLAN: a tagged SYN does not match it; APBVT marks the port, so it still reaches the ILQ.
        Cqe cqe = ilq.poll();
        assertNotNull(cqe);
        assertEquals(IrdmaDriver.ILQ_QP, cqe.qpId());
        assertEquals(d.dev.qps().get(IrdmaDriver.ILQ_QP).completionContext(), cqe.completionContext());
        assertEquals(Cqe.QTYPE_RQ, cqe.queueType());
        assertTrue(cqe.ipv4());
        assertFalse(cqe.error());
        assertEquals(0, cqe.wqeIndex());
        assertEquals(1, d.driver.puda().ilqReceived(), "the driver took it from its ILQ");
        frame.releaseLast();
    }
}
