package dev.irdmaemu.model.iwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.SgeList;
import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.model.IwarpTestDriver;
import dev.irdmaemu.model.IwarpTestDriver.Buffer;
import dev.irdmaemu.model.IwarpTestDriver.Completion;
import dev.irdmaemu.model.mr.MemoryRegions;
import dev.irdmaemu.model.qp.CqTable;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Send / Receive (RFC 5040 §4.3, RFC 5041 untagged model) end to end between two model nodes: gathered through
 * several SGEs, cut into FPDUs at the MULPDU, placed by MO into the receive WQE's SGEs, completed with the CQEs
 * irdma_uk_cq_poll_cmpl reads (field by field), Send with SE and with Invalidate, inline data, unsignaled WQEs and
 * both rings wrapping (valid-bit polarity).
 */
class SendRecvTest {
    private final IwarpPair pair = new IwarpPair(32L << 20);
    private IwarpPair.Conn c;

    @BeforeEach
    void connect() {
        c = pair.connect(5, 6, false);
    }

    @AfterEach
    void close() {
        pair.close();
    }

    private Completion next(IwarpTestDriver n, IwarpTestDriver.Cq cq) {
        Completion[] got = new Completion[1];
        pair.runUntil(() -> (got[0] = n.poll(cq)) != null, 500_000_000L);
        return got[0];
    }

    @Test
    void aSendGatheredFromThreeSgesIsPlacedIntoThreeSgesAndBothSidesComplete() {
        Buffer s1 = pair.a.buffer(100, MemoryRegions.LOCAL_WRITE);
        Buffer s2 = pair.a.buffer(2000, MemoryRegions.LOCAL_WRITE);
        Buffer s3 = pair.a.buffer(50, MemoryRegions.LOCAL_WRITE);
        pair.a.fill(s1.gpa(), 100, 11);
        pair.a.fill(s2.gpa(), 2000, 12);
        pair.a.fill(s3.gpa(), 50, 13);
        Buffer r1 = pair.b.buffer(1000, MemoryRegions.LOCAL_WRITE);
        Buffer r2 = pair.b.buffer(1000, MemoryRegions.LOCAL_WRITE);
        Buffer r3 = pair.b.buffer(600, MemoryRegions.LOCAL_WRITE);
        int rqIndex = pair.b.postRecv(c.passive, new SgeList().add(r1.gpa(), 1000, r1.stag())
                .add(r2.gpa(), 1000, r2.stag()).add(r3.gpa(), 600, r3.stag()));
        int sqIndex = pair.a.postSend(c.active, SqOpcode.RDMA_SEND, new SgeList().add(s1.gpa(), 100, s1.stag())
                .add(s2.gpa(), 2000, s2.stag()).add(s3.gpa(), 50, s3.stag()), SqWqe.SIGNALED, 0);
        Completion rc = next(pair.b, c.bCq);
        // The receive completion, as irdma_uk_cq_poll_cmpl reads it.
        assertEquals(c.passive.id(), rc.qpId());
        assertEquals(c.passive.completionContext, rc.context());
        assertFalse(rc.sq());
        assertFalse(rc.error());
        assertEquals(Cqe.OP_RECEIVE, rc.opType());
        assertEquals(rqIndex, rc.wqeIndex());
        assertEquals(2150, rc.bytes());
        assertFalse(rc.stagInvalidated());
        assertFalse(rc.solicited());
        byte[] sent = new byte[2150];
        System.arraycopy(pair.a.read(s1.gpa(), 100), 0, sent, 0, 100);
        System.arraycopy(pair.a.read(s2.gpa(), 2000), 0, sent, 100, 2000);
        System.arraycopy(pair.a.read(s3.gpa(), 50), 0, sent, 2100, 50);
        byte[] got = new byte[2150];
        System.arraycopy(pair.b.read(r1.gpa(), 1000), 0, got, 0, 1000);
        System.arraycopy(pair.b.read(r2.gpa(), 1000), 0, got, 1000, 1000);
        System.arraycopy(pair.b.read(r3.gpa(), 150), 0, got, 2000, 150);
        assertArrayEquals(sent, got);
        // The send completion once TCP has the acknowledgment.
        Completion sc = next(pair.a, c.aCq);
        assertTrue(sc.sq());
        assertFalse(sc.error());
        assertEquals(sqIndex, sc.wqeIndex());
        assertEquals(SqOpcode.RDMA_SEND.code(), sc.opType());
        assertEquals(c.active.id(), sc.qpId());
        assertEquals(c.active.completionContext, sc.context());
        // Two FPDUs (MULPDU 1454 with MSS 1460 and CRC: 1436 bytes of Send payload each), MSN 1, MO 0 and 1436.
        List<RecordingTraceSink.Recorded> tx = new ArrayList<>(pair.a.traceSink().of(TraceKind.FPDU_TX));
        tx.removeIf(e -> !"SEND".equals(e.get("op")));
        assertEquals(2, tx.size());
        assertEquals("1", tx.get(0).get("msn"));
        assertEquals("0", tx.get(0).get("mo"));
        assertEquals("1436", tx.get(0).get("payload"));
        assertEquals("false", tx.get(0).get("last"));
        assertEquals("1436", tx.get(1).get("mo"));
        assertEquals("true", tx.get(1).get("last"));
        assertEquals(1460, Integer.parseInt(tx.get(0).get("fpdu_len")));
    }

    @Test
    void sendWithSolicitedEventSetsTheBitAndWakesACqArmedForSolicitedOnly() {
        Buffer s = pair.a.buffer(64, MemoryRegions.LOCAL_WRITE);
        Buffer r = pair.b.buffer(256, MemoryRegions.LOCAL_WRITE);
        for (int i = 0; i < 2; i++) {
            pair.b.postRecv(c.passive, new SgeList().add(r.gpa(), 256, r.stag()));
        }
        pair.b.arm(c.bCq, true);
        long before = pair.b.dev().cqs().get(c.bCq.id).notifications();
        pair.a.postSend(c.active, SqOpcode.RDMA_SEND, new SgeList().add(s.gpa(), 64, s.stag()), 0, 0);
        Completion plain = next(pair.b, c.bCq);
        assertFalse(plain.solicited());
        assertEquals(before, pair.b.dev().cqs().get(c.bCq.id).notifications(), "not solicited: no event");
        pair.a.postSend(c.active, SqOpcode.RDMA_SEND_SOL_EVENT, new SgeList().add(s.gpa(), 64, s.stag()), 0, 0);
        Completion se = next(pair.b, c.bCq);
        assertTrue(se.solicited());
        assertEquals(64, se.bytes());
        assertEquals(before + 1, pair.b.dev().cqs().get(c.bCq.id).notifications(), "the CEQ was told");
        // Unsignaled: no send completions on A.
        pair.run(100_000_000L);
        assertTrue(pair.a.pollAll(c.aCq).isEmpty());
        assertEquals(2, c.active.engine().stats().sqWqesCompleted() - 3, "both completed (after the 3 conn WQEs)");
    }

    @Test
    void sendWithInvalidateInvalidatesThePeersStagAndReportsIt() {
        Buffer s = pair.a.buffer(32, MemoryRegions.LOCAL_WRITE);
        Buffer r = pair.b.buffer(64, MemoryRegions.LOCAL_WRITE);
        Buffer target = pair.b.buffer(4096, MemoryRegions.LOCAL_WRITE | MemoryRegions.REMOTE_WRITE);
        assertTrue(pair.b.stagValid(target.stag()));
        pair.b.postRecv(c.passive, new SgeList().add(r.gpa(), 64, r.stag()));
        pair.a.postSend(c.active, SqOpcode.RDMA_SEND_SOL_EVENT_INV, new SgeList().add(s.gpa(), 32, s.stag()),
                SqWqe.SIGNALED, target.stag());
        Completion rc = next(pair.b, c.bCq);
        assertTrue(rc.stagInvalidated());
        assertEquals(target.stag(), rc.invalidatedStag());
        assertTrue(rc.solicited());
        assertFalse(pair.b.stagValid(target.stag()));
        Completion sc = next(pair.a, c.aCq);
        assertEquals(SqOpcode.RDMA_SEND_SOL_EVENT_INV.code(), sc.opType());
        RecordingTraceSink.Recorded f = pair.b.traceSink().of(TraceKind.FPDU_RX).stream()
                .filter(e -> "SEND_WITH_SE_AND_INVALIDATE".equals(e.get("op"))).findFirst().orElseThrow();
        assertEquals("0", f.get("qn"));
    }

    @Test
    void inlineSendsAndZeroLengthSendsArriveAsPosted() {
        Buffer r = pair.b.buffer(4 * 256, MemoryRegions.LOCAL_WRITE);
        for (int i = 0; i < 3; i++) {
            pair.b.postRecv(c.passive, new SgeList().add(r.gpa() + 256L * i, 256, r.stag()));
        }
        BytesStore<?, Void> data = BytesStore.nativeStoreWithFixedCapacity(128);
        try {
            for (int i = 0; i < 101; i++) {
                data.writeByte(i, (byte) (i * 3 + 1));
            }
            pair.a.postInlineSend(c.active, data, 0, 101, SqWqe.SIGNALED);
            pair.a.postInlineSend(c.active, data, 5, 8, SqWqe.SIGNALED);
            pair.a.postSend(c.active, SqOpcode.RDMA_SEND, new SgeList(), SqWqe.SIGNALED, 0);
            Completion c1 = next(pair.b, c.bCq);
            Completion c2 = next(pair.b, c.bCq);
            Completion c3 = next(pair.b, c.bCq);
            assertEquals(101, c1.bytes());
            assertEquals(8, c2.bytes());
            assertEquals(0, c3.bytes());
            assertEquals(List.of(0, 4, 8), List.of(c1.wqeIndex(), c2.wqeIndex(), c3.wqeIndex()),
                    "RQ WQE indexes in quanta (128-byte WQEs: multiplier 4)");
            byte[] expect = new byte[101];
            data.read(0, expect, 0, 101);
            assertArrayEquals(expect, pair.b.read(r.gpa(), 101));
            byte[] expect2 = new byte[8];
            data.read(5, expect2, 0, 8);
            assertArrayEquals(expect2, pair.b.read(r.gpa() + 256, 8));
            List<Completion> sent = new ArrayList<>();
            pair.runUntil(() -> {
                sent.addAll(pair.a.pollAll(c.aCq));
                return sent.size() == 3;
            }, 500_000_000L);
            // Inline 101 bytes: 4 quanta from index 3 (so 3..6), 8 bytes: 1 quantum at 7, then the Send at 8.
            assertEquals(List.of(3, 7, 8), List.of(sent.get(0).wqeIndex(), sent.get(1).wqeIndex(),
                    sent.get(2).wqeIndex()));
        } finally {
            data.releaseLast();
        }
    }

    @Test
    void bothRingsWrapAndTheValidBitPolarityIsFollowed() {
        // SQ of 256 quanta and RQ of 64 WQEs: 600 signaled one-SGE Sends wrap both more than twice.
        Buffer s = pair.a.buffer(16, MemoryRegions.LOCAL_WRITE);
        Buffer r = pair.b.buffer(64L * 16, MemoryRegions.LOCAL_WRITE);
        int rqPosted = 0;
        int received = 0;
        int completed = 0;
        for (int i = 0; i < 600; i++) {
            while (rqPosted - received < 32) {
                pair.b.postRecv(c.passive, new SgeList().add(r.gpa() + 16L * (rqPosted % 64), 16, r.stag()));
                rqPosted++;
            }
            pair.a.store().writeLong(pair.a.off(s.gpa()), i);
            pair.a.postSend(c.active, SqOpcode.RDMA_SEND, new SgeList().add(s.gpa(), 16, s.stag()), SqWqe.SIGNALED,
                    0);
            Completion rc = next(pair.b, c.bCq);
            assertEquals(16, rc.bytes());
            assertEquals(i, pair.b.store().readLong(pair.b.off(r.gpa() + 16L * (received % 64))));
            assertEquals((received % 64) * 4, rc.wqeIndex());
            received++;
            for (Completion sc : pair.a.pollAll(c.aCq)) {
                assertFalse(sc.error());
                completed++;
            }
        }
        int[] done = {completed};
        pair.runUntil(() -> {
            done[0] += pair.a.pollAll(c.aCq).size();
            return done[0] == 600;
        }, 500_000_000L);
        assertEquals(0, pair.a.dev().iwarp().completionsDropped());
    }

    @Test
    void aReceiveWhoseCqWasDestroyedUnderTheQpRaisesCqOperationErrorForThatCq() {
        // A hostile driver destroys the passive QP's CQ while the QP lives; the peer's Send still arrives.
        assertTrue(pair.b.destroy(c.bCq));
        Buffer s = pair.a.buffer(64, MemoryRegions.LOCAL_WRITE);
        Buffer r = pair.b.buffer(256, MemoryRegions.LOCAL_WRITE);
        pair.b.postRecv(c.passive, new SgeList().add(r.gpa(), 256, r.stag()));
        pair.a.postSend(c.active, SqOpcode.RDMA_SEND, new SgeList().add(s.gpa(), 64, s.stag()), 0, 0);
        pair.runUntil(() -> pair.b.dev().cqs().losses(CqTable.Loss.NO_CQ) > 0, 500_000_000L);
        assertEquals(1, pair.b.dev().cqs().losses(CqTable.Loss.NO_CQ));
        assertEquals(1, pair.b.dev().iwarp().completionsDropped());
        List<IwarpTestDriver.Ae> aes = pair.b.pollAes();
        assertTrue(aes.stream().anyMatch(e -> e.code() == AeCode.CQ_OPERATION_ERROR.code() && e.qpId() == c.bCq.id
                && e.source() == AeSource.CQ), aes.toString());
        List<RecordingTraceSink.Recorded> lost = pair.b.traceSink().of(TraceKind.COMPLETION_LOST);
        assertEquals(1, lost.size());
        assertEquals("NO_CQ", lost.get(0).get("reason"));
        assertEquals(String.valueOf(c.passive.id()), lost.get(0).get("qp"));
        assertEquals(String.valueOf(c.bCq.id), lost.get(0).get("cq"));
    }
}
