package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.Ipv4Header;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.fw.queue.Aeqe;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
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
    /** A second host-memory region, away from the driver's RAM, that the tests unmap. */
    private static final long ISLAND = 0x2_0000_0000L;

    private final DriverNode d = BringUpTest.listening();
    private final CqpOps ops = new CqpOps(d);
    private final BytesStore<?, Void> island = BytesStore.nativeStoreWithFixedCapacity(64 * 1024);
    private final BytesStore<?, Void> frame = BytesStore.nativeStoreWithFixedCapacity(2048);
    private final BytesStore<?, Void> payload = BytesStore.nativeStoreWithFixedCapacity(64);
    private final int ilqQp = IrdmaDriver.ILQ_QP;
    /** The ILQ's CQ (puda.c: the PUDA QP's CQ has its id). */
    private final int ilqCq = IrdmaDriver.ILQ_QP;

    @BeforeEach
    void up() {
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
        assertFalse(ops.resizeCq(cqId, entries, ISLAND).error());
        assertEquals(ISLAND, d.dev.cqs().get(cqId).ringAddress());
    }

    /**
     * The same for the CCQ, whose own completion goes to the island then (the driver, polling its old ring, is not
     * told): posted without waiting.
     */
    private void moveCcqRingToIsland(int entries) {
        ops.cqf.clear();
        ops.cqf.cqId = CqTable.CCQ_ID;
        ops.cqf.resize = true;
        ops.cqf.cqSize = entries;
        ops.cqf.cqAddress = ISLAND;
        d.driver.cqp().post("MODIFY_CQ", (o, v) -> CqpWqeWriter.modifyCq(d.store(), o, ops.cqf, v),
                (e, ma, mi, r) -> { });
        d.run();
        assertEquals(ISLAND, d.dev.cqs().get(CqTable.CCQ_ID).ringAddress());
    }

    private int cqpTail() {
        return Gen2Registers.cqpTailIndex(d.reg(Gen2Register.CQPTAIL));
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
        moveCcqRingToIsland(64);
        assertTrue(d.memory.unmap(ISLAND));
        long done = d.dev.cqp().completedOps();
        long aes = d.dev.aeq().posted();
        int tail = cqpTail();
        d.driver.cqp().post("NOP", (o, v) -> CqpWqeWriter.nop(d.store(), o, v), (e, ma, mi, r) -> { });
        d.run();
        // The op ran (the tail moved, no register error) but no completion could reach the driver.
        assertEquals(tail + 1, cqpTail());
        assertFalse(Gen2Registers.cqpTailError(d.reg(Gen2Register.CQPTAIL)));
        assertTrue(d.driver.cqp().requestsPending() >= 1, "the NOP's completion never reached the driver");
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
        // cm.c: the peer's ARP entry, then an AH to it (utils.c irdma_puda_create_ah), then irdma_puda_send
        d.driver.cqp().manageArp(0, BringUpTest.MAC_REMOTE, true);
        int ah = d.driver.addressHandles().create(BringUpTest.MAC_LOCAL, 0, 0, false, 0, 64, true, false,
                new int[] {BringUpTest.REMOTE}, new int[] {BringUpTest.LOCAL});
        int at = EthernetFrame.HEADER_LENGTH + Ipv4Header.MIN_HEADER_LENGTH;
        assertTrue(d.driver.puda().ilqSend(ah, frame, at, len - at, 20));
        return ah;
    }

    @Test
    void aPudaSendWhoseCqWasDestroyedUnderItRaisesAnAeForThatCq() {
        assertFalse(ops.destroyCq(ilqCq).error());
        assertNull(d.dev.cqs().get(ilqCq));
        long aes = d.dev.aeq().posted();
        sendFrame();
        d.run();
        assertEquals(1, d.dev.puda().transmitted());
        assertEquals(1, d.dev.puda().sendCompletionsLost());
        assertEquals(1, d.dev.cqs().losses(CqTable.Loss.NO_CQ));
        assertCqOperationError(ilqCq, aes);
        RecordingTraceSink.Recorded t = onlyLoss();
        assertEquals(String.valueOf(ilqCq), t.get("cq"));
        assertEquals(String.valueOf(ilqQp), t.get("qp"));
        assertEquals("NO_CQ", t.get("reason"));
    }

    @Test
    void aPudaSendWhoseCqeSlotIsUnmappedRaisesAnAeForThatCq() {
        moveRingToIsland(ilqCq, 64);
        assertTrue(d.memory.unmap(ISLAND));
        long aes = d.dev.aeq().posted();
        sendFrame();
        d.run();
        assertEquals(1, d.dev.puda().sendCompletionsLost());
        assertEquals(1, d.dev.cqs().losses(CqTable.Loss.CQE_UNMAPPED));
        assertCqOperationError(ilqCq, aes);
        assertEquals("CQE_UNMAPPED", onlyLoss().get("reason"));
        d.memory.map(ISLAND, island, 0, island.capacity());
    }

    @Test
    void aPudaReceiveWhoseCqeSlotIsUnmappedIsDroppedWithAnAe() {
        moveRingToIsland(ilqCq, 64);
        assertTrue(d.memory.unmap(ISLAND));
        long aes = d.dev.aeq().posted();
        // A SYN to the bring-up's listener goes to the ILQ.
        TcpPacketBuilder b = new TcpPacketBuilder().reset().ethernet(BringUpTest.MAC_LOCAL, BringUpTest.MAC_REMOTE)
                .ipv4(BringUpTest.REMOTE, BringUpTest.LOCAL);
        b.tcp().ports(40000, BringUpTest.LISTEN_PORT).sequenceNumber(1).flags(TcpHeader.SYN).window(29200);
        int len = b.build(frame, 0, payload, 0, 0);
        d.dev.port().receive(frame, 0, len);
        d.run();
        assertEquals(1, d.dev.puda().drops(PudaQueues.Drop.CQE_UNMAPPED));
        assertEquals(0, d.dev.puda().received());
        assertCqOperationError(ilqCq, aes);
        assertEquals("CQE_UNMAPPED", onlyLoss().get("reason"));
        d.memory.map(ISLAND, island, 0, island.capacity());
    }

    @Test
    void aPudaReceiveForADestroyedCqIsDroppedWithAnAe() {
        assertFalse(ops.destroyCq(ilqCq).error());
        long aes = d.dev.aeq().posted();
        TcpPacketBuilder b = new TcpPacketBuilder().reset().ethernet(BringUpTest.MAC_LOCAL, BringUpTest.MAC_REMOTE)
                .ipv4(BringUpTest.REMOTE, BringUpTest.LOCAL);
        b.tcp().ports(40000, BringUpTest.LISTEN_PORT).sequenceNumber(1).flags(TcpHeader.SYN).window(29200);
        int len = b.build(frame, 0, payload, 0, 0);
        d.dev.port().receive(frame, 0, len);
        d.run();
        assertEquals(1, d.dev.puda().drops(PudaQueues.Drop.NO_CQ));
        assertCqOperationError(ilqCq, aes);
        assertEquals("NO_CQ", onlyLoss().get("reason"));
    }
}
