package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.StagFields;
import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.fw.cqp.CqpFault;
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

    /** The model as the driver brought it up (CQs 0..2 and QPs 1..2 are the driver's CCQ, ILQ and IEQ). */
    private final DriverNode node = new DriverNode();
    private final CqpOps d = new CqpOps(node);

    @BeforeEach
    void up() {
        assertFalse(d.createCq(3, 16, 0, true).error());
        assertFalse(d.createCq(4, 16, 0, true).error());
    }

    @AfterEach
    void close() {
        node.close();
    }

    private DriverNode.Completion createIwarp(int id, CqpOps.Conn conn) {
        return d.createQp(id, QueuePair.TYPE_IWARP, 1, conn != null, ctx -> d.writeIwarpContext(ctx, 3, 4, conn));
    }

    @Test
    void cqIdsAreCheckedAgainstTheCommittedCountAndTheTable() {
        DriverNode.Completion c = d.createCq((int) node.driver.hmc().committedCount(HmcObjectType.CQ), 16, 0, true);
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
        d.cqf.cqAddress = DriverNode.UNMAPPED;
        d.cqf.shadowAreaAddress = node.alloc(64);
        assertEquals(CqpFault.DMA_FAULT.minor(),
                node.op("CREATE_CQ", (o, v) -> CqpWqeWriter.createCq(node.store(), o, d.cqf, v)).minor());
        d.cqf.cqAddress = node.alloc(512);
        d.cqf.shadowAreaAddress = DriverNode.UNMAPPED;
        assertEquals(CqpFault.DMA_FAULT.minor(),
                node.op("CREATE_CQ", (o, v) -> CqpWqeWriter.createCq(node.store(), o, d.cqf, v)).minor());
        assertNull(node.dev.cqs().get(7));
    }

    @Test
    void modifyResizesAndDestroyRemovesACq() {
        long ring = node.alloc(64 * 32);
        d.cqf.clear();
        d.cqf.cqId = 3;
        d.cqf.cqSize = 64;
        d.cqf.cqAddress = ring;
        d.cqf.resize = true;
        assertFalse(node.op("MODIFY_CQ", (o, v) -> CqpWqeWriter.modifyCq(node.store(), o, d.cqf, v)).error());
        assertEquals(64, node.dev.cqs().get(3).size());
        assertEquals(ring, node.dev.cqs().get(3).ringAddress());
        d.cqf.clear();
        d.cqf.cqId = 3;
        assertFalse(node.op("DESTROY_CQ", (o, v) -> CqpWqeWriter.destroyCq(node.store(), o, d.cqf, v)).error());
        assertNull(node.dev.cqs().get(3));
        assertEquals(CqpFault.NO_SUCH_OBJECT.minor(),
                node.op("DESTROY_CQ", (o, v) -> CqpWqeWriter.destroyCq(node.store(), o, d.cqf, v)).minor());
    }

    @Test
    void createQpCopiesTheContextIntoHmcAndDecodesIt() {
        CqpOps.Conn conn = new CqpOps.Conn(LOCAL, 20000, REMOTE, 40000, 1000, 5000, -1);
        assertFalse(createIwarp(10, conn).error());
        QueuePair qp = node.dev.qps().get(10);
        assertEquals(QpState.IDLE, qp.state());
        long obj = node.dev.hmc().resolve(HmcObjectType.QP, 10);
        assertEquals(obj, qp.contextAddress());
        for (int i = 0; i < QpContext.SIZE; i += 8) {
            assertEquals(node.store().readLong(node.off(d.lastQpContext) + i), node.store().readLong(node.off(obj) + i), "qword " + i);
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
        int bringUpStates = node.sink.of(TraceKind.QP_STATE).size(); // the driver's ILQ and IEQ
        assertFalse(createIwarp(10, null).error());
        long ctx = node.alloc(QpContext.SIZE);
        d.writeIwarpContext(ctx, 3, 4, new CqpOps.Conn(LOCAL, 20000, REMOTE, 40000, 1, 2, -1));
        // IDLE -> RTS with the TCP context (the offload hand-off), RTS -> CLOSING -> ERROR -> IDLE. No ARP entry
        // names the peer's MAC here, so the data path refuses the connection: IRDMA_AE_INVALID_ARP_ENTRY and the
        // device moves the QP to ERROR itself (model.iwarp's tests cover a QP that runs).
        assertFalse(d.modifyQp(10, 1, QpState.RTS.code(), true, ctx).error());
        assertEquals(QpState.ERROR, node.dev.qps().get(10).state());
        assertEquals(2, node.dev.qps().get(10).rcvNxt());
        assertFalse(d.modifyQp(10, 1, QpState.IDLE.code(), false, 0).error());
        // Without the TCP context the QP goes to RTS with no engine.
        assertFalse(d.modifyQp(10, 1, QpState.RTS.code(), false, 0).error());
        assertEquals(QpState.RTS, node.dev.qps().get(10).state());
        assertFalse(d.modifyQp(10, 1, QpState.CLOSING.code(), false, 0).error());
        assertFalse(d.modifyQp(10, 1, QpState.ERROR.code(), false, 0).error());
        assertFalse(d.modifyQp(10, 1, QpState.IDLE.code(), false, 0).error());
        // IDLE -> CLOSING is not a transition: "Invalid State", the pair utils.c names.
        DriverNode.Completion c = d.modifyQp(10, 1, QpState.CLOSING.code(), false, 0);
        assertTrue(c.error());
        assertEquals(CqpFault.INVALID_STATE.major(), c.major());
        assertEquals(CqpFault.INVALID_STATE.minor(), c.minor());
        assertEquals(QpState.IDLE, node.dev.qps().get(10).state());
        assertEquals(bringUpStates + 8, node.sink.of(TraceKind.QP_STATE).size());
        assertFalse(d.destroyQp(10, 1, false).error());
        assertNull(node.dev.qps().get(10));
        assertEquals(CqpFault.NO_SUCH_OBJECT.minor(), d.destroyQp(10, 1, false).minor());
        assertEquals(CqpFault.NO_SUCH_OBJECT.minor(), d.modifyQp(10, 1, 2, false, 0).minor());
    }

    @Test
    void hostileQpCreatesGetTheirErrors() {
        // id beyond the committed QPs
        int qps = (int) node.driver.hmc().committedCount(HmcObjectType.QP);
        assertEquals(CqpFault.INDEX_OUT_OF_RANGE.minor(), createIwarp(qps, null).minor());
        // host context outside memory
        d.qpf.clear();
        d.qpf.qpId = 11;
        d.qpf.qpType = 1;
        d.qpf.hostContextAddress = DriverNode.UNMAPPED;
        assertEquals(CqpFault.DMA_FAULT.minor(),
                node.op("CREATE_QP", (o, v) -> CqpWqeWriter.createQp(node.store(), o, d.qpf, v)).minor());
        // a context the codec rejects (DDP version 0: iWARP mode bit absent in an all-zero context)
        assertEquals(CqpFault.INVALID_FIELD.minor(), d.createQp(12, 1, 1, false, ctx -> { }).minor());
        // send CQ that does not exist
        assertEquals(CqpFault.NO_SUCH_OBJECT.minor(),
                d.createQp(13, 1, 1, false, ctx -> d.writeIwarpContext(ctx, 9, 4, null)).minor());
        // an iWARP context under a RoCE type: its IWARPMODE bit is the RoCE layout's FW_CC_ENABLE, not modelled
        assertEquals(CqpFault.UNSUPPORTED_FIELD.minor(),
                d.createQp(14, 3, 1, false, ctx -> d.writeIwarpContext(ctx, 3, 4, null)).minor());
        // created twice
        assertFalse(createIwarp(15, null).error());
        assertEquals(CqpFault.OBJECT_IN_USE.minor(), createIwarp(15, null).minor());
        // the model keeps serving: the next good op works (an error completion would throw)
        node.driver.cqp().nop();
        assertEquals(1 + 2, node.dev.qps().liveCount(), "QP 15 besides the driver's ILQ and IEQ");
    }

    @Test
    void arpEntriesWithinTheCommittedCount() {
        int arps = (int) node.driver.hmc().committedCount(HmcObjectType.ARP);
        assertFalse(node.op("MANAGE_ARP",
                (o, v) -> CqpWqeWriter.addArpEntry(node.store(), o, 5, 0, 0x02_00_00_00_00_09L, false, v)).error());
        assertTrue(node.dev.arp().valid(5));
        assertEquals(0x02_00_00_00_00_09L, node.dev.arp().mac(5));
        assertFalse(node.op("MANAGE_ARP", (o, v) -> CqpWqeWriter.deleteArpEntry(node.store(), o, 5, v)).error());
        assertFalse(node.dev.arp().valid(5));
        assertEquals(CqpFault.INDEX_OUT_OF_RANGE.minor(), node.op("MANAGE_ARP",
                (o, v) -> CqpWqeWriter.addArpEntry(node.store(), o, arps, 0, 0x02_00_00_00_00_09L, false, v)).minor());
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
        assertFalse(node.op("ALLOC_STAG", (o, v) -> CqpWqeWriter.allocStag(node.store(), o, f, v)).error());
        assertTrue(node.dev.stags().inUse(7));
        assertEquals(CqpFault.OBJECT_IN_USE.minor(),
                node.op("ALLOC_STAG", (o, v) -> CqpWqeWriter.allocStag(node.store(), o, f, v)).minor());
        assertFalse(node.op("DEALLOC_STAG", (o, v) -> CqpWqeWriter.deallocStag(node.store(), o, f, v)).error());
        assertFalse(node.dev.stags().inUse(7));
        assertEquals(CqpFault.NO_SUCH_OBJECT.minor(),
                node.op("DEALLOC_STAG", (o, v) -> CqpWqeWriter.deallocStag(node.store(), o, f, v)).minor());
        f.stagIndex = 9;
        f.regAddress = node.alloc(4096);
        f.vaOrFbo = 0;
        assertFalse(node.op("REG_MR", (o, v) -> CqpWqeWriter.registerMr(node.store(), o, f, v)).error());
        assertTrue(node.dev.stags().registered(9));
        // an index past the committed MR count: the driver commits all 32768 the model offers, which fills the 15
        // index bits, so only a second Commit FPM with fewer MRs reaches it (model.mr's tests do that)
    }
}
