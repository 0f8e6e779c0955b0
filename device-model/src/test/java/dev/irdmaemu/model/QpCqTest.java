package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.cqp.CqpErrorCode;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.StagFields;
import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.model.cqp.CqpFault;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.trace.TraceKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Create / Modify / Destroy CQ and QP, the QP state machine, ARP and STag ops: happy paths and hostile ones. */
class QpCqTest {
    static final int LOCAL = IpAddress.ipv4(192, 0, 2, 1);
    static final int REMOTE = IpAddress.ipv4(198, 51, 100, 7);

    private final TestDriver d = new TestDriver();

    @BeforeEach
    void up() {
        d.createCqp(64);
        d.bringUpHmcAndCcq(64);
        assertFalse(d.createCq(3, 16, 0, true).error());
        assertFalse(d.createCq(4, 16, 0, true).error());
    }

    @AfterEach
    void close() {
        d.close();
    }

    private TestDriver.Completion createIwarp(int id, TestDriver.Conn conn) {
        return d.createQp(id, QueuePair.TYPE_IWARP, 1, conn != null, ctx -> d.writeIwarpContext(ctx, 3, 4, conn));
    }

    @Test
    void cqIdsAreCheckedAgainstTheCommittedCountAndTheTable() {
        TestDriver.Completion c = d.createCq(128, 16, 0, true);
        assertEquals(CqpFault.INDEX_OUT_OF_RANGE.minor(), c.minor());
        c = d.createCq(3, 16, 0, true);
        assertEquals(CqpFault.OBJECT_IN_USE.minor(), c.minor());
        c = d.createCq(5, 1, 0, true);
        assertEquals(CqpFault.INVALID_FIELD.minor(), c.minor());
        c = d.createCq(6, 16, 300, true);
        assertEquals(CqpFault.INDEX_OUT_OF_RANGE.minor(), c.minor());
    }

    @Test
    void cqRingOrShadowOutsideMemoryIsADmaFault() {
        d.cqf.clear();
        d.cqf.cqId = 7;
        d.cqf.cqSize = 16;
        d.cqf.cqAddress = TestDriver.UNMAPPED;
        d.cqf.shadowAreaAddress = d.alloc(64);
        d.post((o, v) -> CqpWqeWriter.createCq(d.store(), o, d.cqf, v));
        assertEquals(CqpFault.DMA_FAULT.minor(), d.completion().minor());
        d.cqf.cqAddress = d.alloc(512);
        d.cqf.shadowAreaAddress = TestDriver.UNMAPPED;
        d.post((o, v) -> CqpWqeWriter.createCq(d.store(), o, d.cqf, v));
        assertEquals(CqpFault.DMA_FAULT.minor(), d.completion().minor());
        assertNull(d.dev.cqs().get(7));
    }

    @Test
    void modifyResizesAndDestroyRemovesACq() {
        long ring = d.alloc(64 * 32);
        d.cqf.clear();
        d.cqf.cqId = 3;
        d.cqf.cqSize = 64;
        d.cqf.cqAddress = ring;
        d.cqf.resize = true;
        d.post((o, v) -> CqpWqeWriter.modifyCq(d.store(), o, d.cqf, v));
        assertFalse(d.completion().error());
        assertEquals(64, d.dev.cqs().get(3).size());
        assertEquals(ring, d.dev.cqs().get(3).ringAddress());
        d.cqf.clear();
        d.cqf.cqId = 3;
        d.post((o, v) -> CqpWqeWriter.destroyCq(d.store(), o, d.cqf, v));
        assertFalse(d.completion().error());
        assertNull(d.dev.cqs().get(3));
        d.post((o, v) -> CqpWqeWriter.destroyCq(d.store(), o, d.cqf, v));
        assertEquals(CqpFault.NO_SUCH_OBJECT.minor(), d.completion().minor());
    }

    @Test
    void createQpCopiesTheContextIntoHmcAndDecodesIt() {
        TestDriver.Conn conn = new TestDriver.Conn(LOCAL, 20000, REMOTE, 40000, 1000, 5000, -1);
        assertFalse(createIwarp(10, conn).error());
        QueuePair qp = d.dev.qps().get(10);
        assertEquals(QpState.IDLE, qp.state());
        long obj = d.dev.hmc().resolve(HmcObjectType.QP, 10);
        assertEquals(obj, qp.contextAddress());
        for (int i = 0; i < QpContext.SIZE; i += 8) {
            assertEquals(d.store().readLong(d.off(d.lastQpContext) + i), d.store().readLong(d.off(obj) + i), "qword " + i);
        }
        assertEquals(20000, qp.localPort());
        assertEquals(40000, qp.remotePort());
        assertEquals(REMOTE, qp.remoteIp(3));
        assertEquals(LOCAL, qp.localIp(3));
        assertEquals(5000, qp.rcvNxt());
        assertEquals(1000, qp.sndNxt());
        assertEquals(5, qp.tcpState());
        assertEquals(3, qp.txCq());
        assertEquals(4, qp.rxCq());
    }

    @Test
    void qpStateMachineFollowsModifyQp() {
        assertFalse(createIwarp(10, null).error());
        long ctx = d.alloc(QpContext.SIZE);
        d.writeIwarpContext(ctx, 3, 4, new TestDriver.Conn(LOCAL, 20000, REMOTE, 40000, 1, 2, -1));
        // IDLE -> RTS with the TCP context (the offload hand-off), RTS -> CLOSING -> ERROR -> IDLE. No ARP entry
        // names the peer's MAC here, so the data path refuses the connection: IRDMA_AE_INVALID_ARP_ENTRY and the
        // device moves the QP to ERROR itself (model.iwarp's tests cover a QP that runs).
        assertFalse(d.modifyQp(10, 1, QpState.RTS.code(), true, ctx).error());
        assertEquals(QpState.ERROR, d.dev.qps().get(10).state());
        assertEquals(2, d.dev.qps().get(10).rcvNxt());
        assertFalse(d.modifyQp(10, 1, QpState.IDLE.code(), false, 0).error());
        // Without the TCP context the QP goes to RTS with no engine.
        assertFalse(d.modifyQp(10, 1, QpState.RTS.code(), false, 0).error());
        assertEquals(QpState.RTS, d.dev.qps().get(10).state());
        assertFalse(d.modifyQp(10, 1, QpState.CLOSING.code(), false, 0).error());
        assertFalse(d.modifyQp(10, 1, QpState.ERROR.code(), false, 0).error());
        assertFalse(d.modifyQp(10, 1, QpState.IDLE.code(), false, 0).error());
        // IDLE -> CLOSING is not a transition: "Invalid State", the pair utils.c names.
        TestDriver.Completion c = d.modifyQp(10, 1, QpState.CLOSING.code(), false, 0);
        assertTrue(c.error());
        assertEquals(CqpErrorCode.Pair.INVALID_STATE.major(), c.major());
        assertEquals(CqpErrorCode.Pair.INVALID_STATE.minor(), c.minor());
        assertEquals(QpState.IDLE, d.dev.qps().get(10).state());
        assertEquals(8, d.sink.of(TraceKind.QP_STATE).size());
        assertFalse(d.destroyQp(10, 1).error());
        assertNull(d.dev.qps().get(10));
        assertEquals(CqpFault.NO_SUCH_OBJECT.minor(), d.destroyQp(10, 1).minor());
        assertEquals(CqpFault.NO_SUCH_OBJECT.minor(), d.modifyQp(10, 1, 2, false, 0).minor());
    }

    @Test
    void hostileQpCreatesGetTheirErrors() {
        // id beyond the committed 64 QPs
        assertEquals(CqpFault.INDEX_OUT_OF_RANGE.minor(), createIwarp(64, null).minor());
        // host context outside memory
        d.qpf.clear();
        d.qpf.qpId = 11;
        d.qpf.qpType = 1;
        d.qpf.hostContextAddress = TestDriver.UNMAPPED;
        d.post((o, v) -> CqpWqeWriter.createQp(d.store(), o, d.qpf, v));
        assertEquals(CqpFault.DMA_FAULT.minor(), d.completion().minor());
        // a context the codec rejects (DDP version 0: iWARP mode bit absent in an all-zero context)
        assertEquals(CqpFault.INVALID_FIELD.minor(), d.createQp(12, 1, 1, false, ctx -> { }).minor());
        // send CQ that does not exist
        assertEquals(CqpFault.NO_SUCH_OBJECT.minor(),
                d.createQp(13, 1, 1, false, ctx -> d.writeIwarpContext(ctx, 9, 4, null)).minor());
        // RoCE types are not modelled
        assertEquals(CqpFault.UNSUPPORTED_FIELD.minor(),
                d.createQp(14, 3, 1, false, ctx -> d.writeIwarpContext(ctx, 3, 4, null)).minor());
        // created twice
        assertFalse(createIwarp(15, null).error());
        assertEquals(CqpFault.OBJECT_IN_USE.minor(), createIwarp(15, null).minor());
        // the model keeps serving: the next good op works
        assertFalse(d.nop().error());
        assertEquals(1, d.dev.qps().liveCount());
    }

    @Test
    void arpEntriesWithinTheCommittedCount() {
        d.post((o, v) -> CqpWqeWriter.addArpEntry(d.store(), o, 5, 0, 0x02_00_00_00_00_09L, false, v));
        assertFalse(d.completion().error());
        assertTrue(d.dev.arp().valid(5));
        assertEquals(0x02_00_00_00_00_09L, d.dev.arp().mac(5));
        d.post((o, v) -> CqpWqeWriter.deleteArpEntry(d.store(), o, 5, v));
        assertFalse(d.completion().error());
        assertFalse(d.dev.arp().valid(5));
        d.post((o, v) -> CqpWqeWriter.addArpEntry(d.store(), o, 32, 0, 0x02_00_00_00_00_09L, false, v));
        assertEquals(CqpFault.INDEX_OUT_OF_RANGE.minor(), d.completion().minor());
    }

    @Test
    void stagsAllocRegisterAndDeallocate() {
        StagFields f = new StagFields();
        f.stagIndex = 7;
        f.stagKey = 0x42;
        f.pdId = 1;
        f.length = 4096;
        f.accessRights = 3;
        f.mr = true; // verbs.c irdma_hwdereg_mr: Deallocate STag of a region carries STAG_MR
        d.post((o, v) -> CqpWqeWriter.allocStag(d.store(), o, f, v));
        assertFalse(d.completion().error());
        assertTrue(d.dev.stags().inUse(7));
        d.post((o, v) -> CqpWqeWriter.allocStag(d.store(), o, f, v));
        assertEquals(CqpFault.OBJECT_IN_USE.minor(), d.completion().minor());
        d.post((o, v) -> CqpWqeWriter.deallocStag(d.store(), o, f, v));
        assertFalse(d.completion().error());
        assertFalse(d.dev.stags().inUse(7));
        d.post((o, v) -> CqpWqeWriter.deallocStag(d.store(), o, f, v));
        assertEquals(CqpFault.NO_SUCH_OBJECT.minor(), d.completion().minor());
        f.stagIndex = 9;
        f.regAddress = d.alloc(4096);
        f.vaOrFbo = 0;
        d.post((o, v) -> CqpWqeWriter.registerMr(d.store(), o, f, v));
        assertFalse(d.completion().error());
        assertTrue(d.dev.stags().registered(9));
        f.stagIndex = 256;
        d.post((o, v) -> CqpWqeWriter.allocStag(d.store(), o, f, v));
        assertEquals(CqpFault.INDEX_OUT_OF_RANGE.minor(), d.completion().minor());
    }
}
