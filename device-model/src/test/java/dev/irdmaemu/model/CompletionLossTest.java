package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.fw.queue.Aeqe;
import dev.irdmaemu.model.puda.PudaQueues;
import dev.irdmaemu.model.qp.CqTable;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Hostile drivers that take a completion's destination away: the CCQ's ring unmapped, a PUDA QP's CQ destroyed
 * under it or its ring unmapped. Each lost completion raises IRDMA_AE_CQ_OPERATION_ERROR (user.h) with
 * IRDMA_AE_SOURCE_CQ on the AEQ, is traced as completion_lost with its reason, and is counted.
 */
class CompletionLossTest {
    /** A second host-memory region, away from the test driver's RAM, that the tests unmap. */
    private static final long ISLAND = 0x2_0000_0000L;

    private final TestDriver d = new TestDriver();
    private final BytesStore<?, Void> island = BytesStore.nativeStoreWithFixedCapacity(64 * 1024);
    private final BytesStore<?, Void> frame = BytesStore.nativeStoreWithFixedCapacity(2048);
    private final BytesStore<?, Void> payload = BytesStore.nativeStoreWithFixedCapacity(64);
    private TestDriver.Puda ilq;

    @BeforeEach
    void up() {
        ilq = BringUpTest.bringUp(d);
        island.zeroOut(0, island.capacity());
        d.memory.map(ISLAND, island, 0, island.capacity());
    }

    @AfterEach
    void close() {
        d.memory.unmap(ISLAND);
        island.releaseLast();
        frame.releaseLast();
        payload.releaseLast();
        d.close();
    }

    /** Modify CQ (resize) moves CQ {@code cqId}'s ring onto the island; the op completes. */
    private void moveRingToIsland(int cqId, int entries) {
        d.cqf.clear();
        d.cqf.cqId = cqId;
        d.cqf.resize = true;
        d.cqf.cqSize = entries;
        d.cqf.cqAddress = ISLAND;
        d.post((o, v) -> CqpWqeWriter.modifyCq(d.store(), o, d.cqf, v));
        assertEquals(ISLAND, d.dev.cqs().get(cqId).ringAddress());
    }

    /** The AEQE the device wrote last (the AEQ of the bring-up has not wrapped). */
    private Aeqe lastAe() {
        long index = d.dev.aeq().posted() - 1;
        return new Aeqe().wrap(d.store(), d.off(d.dev.aeq().ringAddress() + index * Aeqe.SIZE), Aeqe.SIZE);
    }

    private void assertCqOperationError(int cqId, long aesBefore) {
        assertEquals(aesBefore + 1, d.dev.aeq().posted());
        Aeqe ae = lastAe();
        assertTrue(ae.valid());
        assertEquals(AeCode.CQ_OPERATION_ERROR.code(), ae.aeCode());
        assertEquals(AeSource.CQ, ae.source());
        assertEquals(cqId, ae.qpCqId());
    }

    private RecordingTraceSink.Recorded onlyLoss() {
        List<RecordingTraceSink.Recorded> lost = d.sink.of(TraceKind.COMPLETION_LOST);
        assertEquals(1, lost.size());
        return lost.get(0);
    }

    @Test
    void aCqpOpWhoseCcqRingIsUnmappedRaisesTheCcqAeAndIsNotCountedDone() {
        moveRingToIsland(CqTable.CCQ_ID, 64);
        assertTrue(d.memory.unmap(ISLAND));
        long done = d.dev.cqp().completedOps();
        long aes = d.dev.aeq().posted();
        int tail = d.cqpTail();
        d.post((o, v) -> CqpWqeWriter.nop(d.store(), o, v));
        // The op ran (the tail moved, no register error) but no completion could reach the driver.
        assertEquals(tail + 1, d.cqpTail());
        assertFalse(d.cqpOpError());
        assertEquals(done, d.dev.cqp().completedOps());
        assertEquals(1, d.dev.cqp().ccqLostOps());
        assertEquals(1, d.dev.cqs().losses(CqTable.Loss.CQE_UNMAPPED));
        assertCqOperationError(CqTable.CCQ_ID, aes);
        RecordingTraceSink.Recorded t = onlyLoss();
        assertEquals("0", t.get("cq"));
        assertEquals("-1", t.get("qp"));
        assertEquals("CQE_UNMAPPED", t.get("reason"));
        assertEquals("IRDMA_AE_CQ_OPERATION_ERROR", t.get("ae"));
        d.memory.map(ISLAND, island, 0, island.capacity());
    }

    private int sendFrame() {
        int len = new TcpPacketBuilder().reset().ethernet(BringUpTest.MAC_LOCAL, BringUpTest.MAC_REMOTE)
                .ipv4(BringUpTest.LOCAL, BringUpTest.REMOTE).build(frame, 0, payload, 0, 0);
        if (d.dev.addressHandles().get(0) == null) {
            d.ilqAh(0, BringUpTest.MAC_REMOTE, BringUpTest.LOCAL, BringUpTest.MAC_LOCAL, BringUpTest.REMOTE, 0);
        }
        long buf = d.tcpSegmentOf(frame, len);
        return d.pudaSend(ilq, buf, len - 34, 20, 0);
    }

    @Test
    void aPudaSendWhoseCqWasDestroyedUnderItRaisesAnAeForThatCq() {
        d.cqf.clear();
        d.cqf.cqId = ilq.cqId;
        d.post((o, v) -> CqpWqeWriter.destroyCq(d.store(), o, d.cqf, v));
        assertFalse(d.completion().error());
        assertNull(d.dev.cqs().get(ilq.cqId));
        long aes = d.dev.aeq().posted();
        sendFrame();
        d.run();
        assertEquals(1, d.dev.puda().transmitted());
        assertEquals(1, d.dev.puda().sendCompletionsLost());
        assertEquals(1, d.dev.cqs().losses(CqTable.Loss.NO_CQ));
        assertCqOperationError(ilq.cqId, aes);
        RecordingTraceSink.Recorded t = onlyLoss();
        assertEquals(String.valueOf(ilq.cqId), t.get("cq"));
        assertEquals(String.valueOf(ilq.qpId), t.get("qp"));
        assertEquals("NO_CQ", t.get("reason"));
    }

    @Test
    void aPudaSendWhoseCqeSlotIsUnmappedRaisesAnAeForThatCq() {
        moveRingToIsland(ilq.cqId, 64);
        assertTrue(d.memory.unmap(ISLAND));
        long aes = d.dev.aeq().posted();
        sendFrame();
        d.run();
        assertEquals(1, d.dev.puda().sendCompletionsLost());
        assertEquals(1, d.dev.cqs().losses(CqTable.Loss.CQE_UNMAPPED));
        assertCqOperationError(ilq.cqId, aes);
        assertEquals("CQE_UNMAPPED", onlyLoss().get("reason"));
        d.memory.map(ISLAND, island, 0, island.capacity());
    }

    @Test
    void aPudaReceiveWhoseCqeSlotIsUnmappedIsDroppedWithAnAe() {
        moveRingToIsland(ilq.cqId, 64);
        assertTrue(d.memory.unmap(ISLAND));
        long aes = d.dev.aeq().posted();
        // A SYN to the bring-up's listener goes to the ILQ.
        TcpPacketBuilder b = new TcpPacketBuilder().reset().ethernet(BringUpTest.MAC_LOCAL, BringUpTest.MAC_REMOTE)
                .ipv4(BringUpTest.REMOTE, BringUpTest.LOCAL);
        b.tcp().ports(40000, 20000).sequenceNumber(1).flags(TcpHeader.SYN).window(29200);
        int len = b.build(frame, 0, payload, 0, 0);
        d.dev.port().receive(frame, 0, len);
        d.run();
        assertEquals(1, d.dev.puda().drops(PudaQueues.Drop.CQE_UNMAPPED));
        assertEquals(0, d.dev.puda().received());
        assertCqOperationError(ilq.cqId, aes);
        assertEquals("CQE_UNMAPPED", onlyLoss().get("reason"));
        d.memory.map(ISLAND, island, 0, island.capacity());
    }

    @Test
    void aPudaReceiveForADestroyedCqIsDroppedWithAnAe() {
        d.cqf.clear();
        d.cqf.cqId = ilq.cqId;
        d.post((o, v) -> CqpWqeWriter.destroyCq(d.store(), o, d.cqf, v));
        assertFalse(d.completion().error());
        long aes = d.dev.aeq().posted();
        TcpPacketBuilder b = new TcpPacketBuilder().reset().ethernet(BringUpTest.MAC_LOCAL, BringUpTest.MAC_REMOTE)
                .ipv4(BringUpTest.REMOTE, BringUpTest.LOCAL);
        b.tcp().ports(40000, 20000).sequenceNumber(1).flags(TcpHeader.SYN).window(29200);
        int len = b.build(frame, 0, payload, 0, 0);
        d.dev.port().receive(frame, 0, len);
        d.run();
        assertEquals(1, d.dev.puda().drops(PudaQueues.Drop.NO_CQ));
        assertCqOperationError(ilq.cqId, aes);
        assertEquals("NO_CQ", onlyLoss().get("reason"));
    }
}
