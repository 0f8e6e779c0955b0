package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.QpFlushFields;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.qp.RoceQpContext;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.roce.RoceQp;
import dev.irdmaemu.model.roce.rc.RcEngine;
import dev.irdmaemu.model.roce.rc.RcState;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * RoCEv2 QPs through the CQP as irdma 7.3 drives them (verbs.c irdma_create_qp, irdma_modify_qp_roce,
 * irdma_destroy_qp; the context of ctrl.c irdma_sc_qp_setctx_roce_gen_2): a UD QP taken through INIT, RTR (ARP
 * index 0 valid, as QP1 does), RTS, SQD (and the suspend AE irdma waits for), back to RTS, ERROR, Flush WQEs and
 * Destroy; the context reloaded on every Modify QP without CACHEDVARVALID; an RC QP with its context checked and
 * its transport engine (model.roce.RcQueuePairs) following each load; and each hostile context field answered
 * with its CQP error.
 */
class RoceQpOpsTest {
    private static final int QKEY_GSI = 0x8001_0000;
    private final DriverNode node = new DriverNode();
    private final CqpOps d = new CqpOps(node);
    private final RoceQpContext ctx = new RoceQpContext();

    @BeforeEach
    void up() {
        assertFalse(d.createCq(3, 64, 0, true).error());
        assertFalse(d.createCq(4, 64, 0, true).error());
    }

    @AfterEach
    void close() {
        node.close();
    }

    /** A context as irdma_roce_fill_and_set_qpctx_info writes it for a kernel QP (SQ 32 quanta, RQ 32), then {@code edit}. */
    private long context(Consumer<RoceQpContext> edit) {
        long c = node.alloc(RoceQpContext.SIZE);
        long sq = node.alloc(32 * QueuePair.QUANTUM);
        long rq = node.alloc(32 * QueuePair.QUANTUM);
        ctx.wrap(node.store(), node.off(c), RoceQpContext.SIZE).writeDefaults(sq, rq, 3, 3, 3, 4, 1024, 0xC0FFEEL);
        ctx.putPdId(5).putMac(DriverNode.DEFAULT_MAC).putIpv4(true);
        edit.accept(ctx);
        return c;
    }

    private DriverNode.Completion create(int id, int type, Consumer<RoceQpContext> edit) {
        long c = context(edit);
        return d.createQp(id, type, QpState.IDLE.code(), false, at -> node.store().write(node.off(at), node.store(),
                node.off(c), RoceQpContext.SIZE));
    }

    /** Modify QP as irdma_hw_modify_qp posts it for RoCE: no TCP context, no CACHEDVARVALID. */
    private DriverNode.Completion modify(int id, int type, QpState next, boolean arpValid, long hostContext) {
        d.qpf.clear();
        d.qpf.qpId = id;
        d.qpf.qpType = type;
        d.qpf.hostContextAddress = hostContext;
        d.qpf.nextIwarpState = next.code();
        d.qpf.arpIndexValid = arpValid;
        d.qpf.cqNumValid = next == QpState.RTR || next == QpState.RTS;
        d.qpf.ordValid = next == QpState.RTS;
        return node.op("MODIFY_QP", (o, v) -> CqpWqeWriter.modifyQp(node.store(), o, d.qpf, v));
    }

    private List<RecordingTraceSink.Recorded> aes(int code) {
        return node.sink.of(TraceKind.AEQE).stream().filter(e -> e.get("ae").equals("0x" + Integer.toHexString(code)))
                .toList();
    }

    @Test
    void aUdQpGoesThroughInitRtrRtsSqdErrorFlushAndDestroy() {
        assertFalse(create(20, QueuePair.TYPE_ROCE_UD, c -> { }).error());
        QueuePair qp = node.dev.qps().get(20);
        assertEquals(QueuePair.Role.ROCE_UD, qp.role());
        assertEquals(QpState.IDLE, qp.state());
        assertEquals(node.dev.hmc().resolve(HmcObjectType.QP, 20), qp.contextAddress());
        // INIT: same state, context rewritten with the GSI Q_Key
        assertFalse(modify(20, 4, QpState.IDLE, false, context(c -> c.putQKey(QKEY_GSI))).error());
        RoceQp r = node.dev.roce().qp(20);
        assertEquals(QKEY_GSI, r.qKey(), "the context is reloaded though CACHEDVARVALID is clear");
        assertEquals(0xFFFF, r.pKey());
        // RTR with ARP index 0 (QP1's), RTS with SQ PSN 0
        assertFalse(modify(20, 4, QpState.RTR, true, context(c -> c.putQKey(QKEY_GSI))).error());
        assertFalse(modify(20, 4, QpState.RTS, true, context(c -> c.putQKey(QKEY_GSI).putSqPsn(0x12345))).error());
        assertEquals(QpState.RTS, qp.state());
        assertEquals(0x12345, r.sendPsn());
        // SQD: the device reports the SQ drained (irdma_wait_for_suspend waits 5 s for it)
        int suspends = aes(0x900).size();
        assertFalse(modify(20, 4, QpState.CLOSING, false, context(c -> { })).error());
        assertEquals(suspends + 1, aes(0x900).size(), "IRDMA_AE_QP_SUSPEND_COMPLETE");
        assertFalse(modify(20, 4, QpState.RTS, true, context(c -> { })).error());
        assertFalse(modify(20, 4, QpState.ERROR, false, context(c -> { })).error());
        assertEquals(QpState.ERROR, qp.state());
        QpFlushFields f = new QpFlushFields();
        f.qpId = 20;
        f.flushSq = true;
        f.flushRq = true;
        DriverNode.Completion flush = node.op("FLUSH_WQES", (o, v) -> CqpWqeWriter.flushWqes(node.store(), o, f, v));
        assertEquals(CqpFault.FLUSH_NO_WQE_PENDING.minor(), flush.minor(), "nothing posted: hw.c handles this one");
        assertFalse(d.destroyQp(20, 4, true).error());
        assertNull(node.dev.qps().get(20));
    }

    @Test
    void roceTransitionsOutsideIrdmasDiagramAreInvalidState() {
        assertFalse(create(21, QueuePair.TYPE_ROCE_UD, c -> { }).error());
        assertEquals(CqpFault.INVALID_STATE.minor(), modify(21, 4, QpState.RTS, true, context(c -> { })).minor());
        assertEquals(CqpFault.INVALID_STATE.minor(), modify(21, 4, QpState.TERMINATE, false, context(c -> { })).minor());
        assertEquals(QpState.IDLE, node.dev.qps().get(21).state());
    }

    @Test
    void anRcQpIsCreatedAndModifiedAndItsTransportEngineFollowsTheContext() {
        assertFalse(create(22, QueuePair.TYPE_ROCE_RC, c -> { }).error());
        assertEquals(QueuePair.Role.ROCE_RC, node.dev.qps().get(22).role());
        assertFalse(node.op("MANAGE_ARP",
                (o, v) -> CqpWqeWriter.addArpEntry(node.store(), o, 7, 0, 0x02_00_00_00_00_09L, false, v)).error());
        long rtr = context(c -> c.putDestQp(0x33).putArpIdx(7).putSndMss(4096).putExpectedPsn(77));
        assertFalse(modify(22, 3, QpState.RTR, true, rtr).error());
        assertEquals(4096, node.dev.roce().qp(22).pathMtu());
        assertEquals(0x33, node.dev.roce().qp(22).destQp());
        assertEquals(7, node.dev.roce().qp(22).arpIndex());
        RcEngine engine = node.dev.roce().rc().engine(22);
        assertEquals(RcState.READY_TO_RECEIVE, engine.state());
        assertEquals(77, engine.expectedPsn(), "EPSN from the context");
        assertFalse(modify(22, 3, QpState.RTS, true, context(c -> c.putDestQp(0x33).putArpIdx(7).putSqPsn(9)
                .putExpectedPsn(77))).error());
        assertEquals(RcState.READY_TO_SEND, engine.state());
        assertEquals(9, engine.nextPsn(), "PSNNXT from the context");
        int before = aes(0x20a).size();
        node.write(dev.irdmaemu.fw.reg.Gen2Register.WQEALLOC, 22);
        node.run();
        assertEquals(before, aes(0x20a).size(), "an empty SQ rung: nothing refused");
        assertEquals(0, node.dev.roce().rcDoorbellsRefused());
        assertFalse(d.destroyQp(22, 3, true).error());
        assertNull(node.dev.roce().rc().engine(22), "Destroy QP releases the engine");
    }

    @Test
    void hostileRoceContextsGetTheirErrors() {
        assertEquals(CqpFault.INVALID_FIELD.minor(), create(30, 4, c -> c.putSndMss(1500)).minor(), "PMTU 1500");
        assertEquals(CqpFault.INVALID_FIELD.minor(), create(30, 4, c -> c.putSndMss(0)).minor(), "PMTU 0");
        assertEquals(CqpFault.INVALID_FIELD.minor(), create(30, 4, c -> c.putTransportVersion(1)).minor());
        assertEquals(CqpFault.INVALID_FIELD.minor(), create(30, 4, c -> c.putDestPort(4790)).minor());
        assertEquals(CqpFault.INVALID_FIELD.minor(), create(30, 3, c -> c.putIrdSizeCode(7)).minor());
        assertEquals(CqpFault.INVALID_FIELD.minor(), create(30, 3, c -> c.putQueueSizes(14, 3)).minor());
        assertEquals(CqpFault.NO_SUCH_OBJECT.minor(), create(30, 3, c -> c.putCqs(3, 9)).minor(), "RX CQ 9");
        assertEquals(CqpFault.UNSUPPORTED_FIELD.minor(), create(30, 3, c -> c.putPKey(0xFFFF)
                .putDcqcn()).minor(), "DCQCN");
        assertTrue(create(30, 5, c -> { }).error(), "QP type 5 (the WQE's own rules refuse it first)");
        assertNull(node.dev.qps().get(30));
        assertFalse(create(30, 3, c -> { }).error());
        int arps = (int) node.driver.hmc().committedCount(HmcObjectType.ARP);
        assertEquals(CqpFault.INDEX_OUT_OF_RANGE.minor(),
                modify(30, 3, QpState.RTR, true, context(c -> c.putArpIdx(arps))).minor(), "ARP index");
        assertEquals(CqpFault.NO_SUCH_OBJECT.minor(),
                modify(30, 3, QpState.RTR, true, context(c -> c.putCqs(8, 4))).minor(), "TX CQ 8");
        assertEquals(CqpFault.DMA_FAULT.minor(), modify(30, 3, QpState.RTR, true, DriverNode.UNMAPPED).minor());
        assertEquals(QpState.IDLE, node.dev.qps().get(30).state(), "no failed modify moved the QP");
        node.driver.cqp().nop();
    }
}
