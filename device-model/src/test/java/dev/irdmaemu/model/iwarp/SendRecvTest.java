package dev.irdmaemu.model.iwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.verbs.Access;
import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.driver.verbs.ReceiveWorkRequest;
import dev.irdmaemu.driver.verbs.SendWorkRequest;
import dev.irdmaemu.driver.verbs.WcOpcode;
import dev.irdmaemu.driver.verbs.WrOpcode;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.model.iwarp.DriverPair.Buffer;
import dev.irdmaemu.model.iwarp.DriverPair.Completion;
import dev.irdmaemu.model.qp.CqTable;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Send / Receive (RFC 5040 §4.3, RFC 5041 untagged model) end to end between two model nodes: gathered through
 * several SGEs, cut into FPDUs at the MULPDU, placed by MO into the receive WQE's SGEs, completed with the CQEs
 * the real driver polls (irdma_poll_cq: the QP found by the CQE's completion context, the wr_id by its WQE index;
 * the WQE indexes themselves read from the device's CQE trace), Send with SE and with Invalidate, inline data, unsignaled WQEs and
 * both rings wrapping (valid-bit polarity).
 */
class SendRecvTest {
    private final DriverPair pair = new DriverPair(32L << 20);
    private DriverPair.Conn c;

    @BeforeEach
    void connect() {
        c = pair.connect(false);
    }

    @AfterEach
    void close() {
        pair.close();
    }

    private Completion next(DriverPair.Node n, CompletionQueue cq) {
        Completion[] got = new Completion[1];
        pair.runUntil(() -> (got[0] = n.poll(cq)) != null, 500_000_000L);
        return got[0];
    }

    @Test
    void aSendGatheredFromThreeSgesIsPlacedIntoThreeSgesAndBothSidesComplete() {
        Buffer s1 = pair.a.buffer(100, Access.LOCAL_WRITE);
        Buffer s2 = pair.a.buffer(2000, Access.LOCAL_WRITE);
        Buffer s3 = pair.a.buffer(50, Access.LOCAL_WRITE);
        pair.a.fill(s1.gpa(), 100, 11);
        pair.a.fill(s2.gpa(), 2000, 12);
        pair.a.fill(s3.gpa(), 50, 13);
        Buffer r1 = pair.b.buffer(1000, Access.LOCAL_WRITE);
        Buffer r2 = pair.b.buffer(1000, Access.LOCAL_WRITE);
        Buffer r3 = pair.b.buffer(600, Access.LOCAL_WRITE);
        long rqId = 77;
        assertEquals(dev.irdmaemu.driver.verbs.PostStatus.OK, c.passive.postRecv(new ReceiveWorkRequest().wrId(rqId)
                .sge(r1.gpa(), 1000, r1.stag()).sge(r2.gpa(), 1000, r2.stag()).sge(r3.gpa(), 600, r3.stag())));
        long sqId = pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.SEND).flags(SendWorkRequest.SIGNALED)
                .sge(s1.gpa(), 100, s1.stag()).sge(s2.gpa(), 2000, s2.stag()).sge(s3.gpa(), 50, s3.stag()));
        Completion rc = next(pair.b, c.bCq);
        // The receive completion, as irdma_poll_cq hands it over.
        assertEquals(c.passive.id(), rc.qpNum());
        assertFalse(rc.sq());
        assertFalse(rc.error());
        assertEquals(WcOpcode.RECV, rc.opcode());
        assertEquals(rqId, rc.wrId());
        assertEquals(List.of(0), pair.b.cqeWqeIndexes(c.passive, false), "the RQ's first WQE");
        assertEquals(2150, rc.bytes());
        assertFalse(rc.withInvalidate());
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
        assertEquals(sqId, sc.wrId());
        assertEquals(List.of(3), pair.a.cqeWqeIndexes(c.active, true), "the first WQE after the connection's");
        assertEquals(WcOpcode.SEND, sc.opcode());
        assertEquals(c.active.id(), sc.qpNum());
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
        Buffer s = pair.a.buffer(64, Access.LOCAL_WRITE);
        Buffer r = pair.b.buffer(256, Access.LOCAL_WRITE);
        for (int i = 0; i < 2; i++) {
            pair.b.postRecv(c.passive, r.gpa(), 256, r.stag());
        }
        c.bCq.requestNotify(true);
        long before = pair.b.dev().cqs().get(c.bCq.id()).notifications();
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.SEND).sge(s.gpa(), 64, s.stag()));
        Completion plain = next(pair.b, c.bCq);
        assertFalse(plain.solicited());
        assertEquals(before, pair.b.dev().cqs().get(c.bCq.id()).notifications(), "not solicited: no event");
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.SEND).flags(SendWorkRequest.SOLICITED)
                .sge(s.gpa(), 64, s.stag()));
        Completion se = next(pair.b, c.bCq);
        assertTrue(se.solicited());
        assertEquals(64, se.bytes());
        assertEquals(before + 1, pair.b.dev().cqs().get(c.bCq.id()).notifications(), "the CEQ was told");
        // Unsignaled: no send completions on A.
        pair.run(100_000_000L);
        assertTrue(pair.a.pollAll(c.aCq).isEmpty());
        assertEquals(2, pair.a.engine(c.active).stats().sqWqesCompleted() - 3, "both completed (after the 3 conn WQEs)");
    }

    @Test
    void sendWithInvalidateInvalidatesThePeersStagAndReportsIt() {
        Buffer s = pair.a.buffer(32, Access.LOCAL_WRITE);
        Buffer r = pair.b.buffer(64, Access.LOCAL_WRITE);
        Buffer target = pair.b.buffer(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        assertTrue(pair.b.stagValid(target.stag()));
        pair.b.postRecv(c.passive, r.gpa(), 64, r.stag());
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.SEND_WITH_INV)
                .flags(SendWorkRequest.SIGNALED | SendWorkRequest.SOLICITED).sge(s.gpa(), 32, s.stag())
                .invalidate(target.stag()));
        Completion rc = next(pair.b, c.bCq);
        assertTrue(rc.withInvalidate());
        assertEquals(target.stag(), rc.invalidatedRkey());
        assertTrue(rc.solicited());
        assertFalse(pair.b.stagValid(target.stag()));
        Completion sc = next(pair.a, c.aCq);
        assertEquals(WcOpcode.SEND, sc.opcode());
        assertTrue(pair.a.traceSink().of(TraceKind.FPDU_TX).stream()
                .anyMatch(e -> "SEND_WITH_SE_AND_INVALIDATE".equals(e.get("op"))), "sent as Send with SE and Inv");
        RecordingTraceSink.Recorded f = pair.b.traceSink().of(TraceKind.FPDU_RX).stream()
                .filter(e -> "SEND_WITH_SE_AND_INVALIDATE".equals(e.get("op"))).findFirst().orElseThrow();
        assertEquals("0", f.get("qn"));
    }

    @Test
    void inlineSendsAndZeroLengthSendsArriveAsPosted() {
        Buffer r = pair.b.buffer(4 * 256, Access.LOCAL_WRITE);
        for (int i = 0; i < 3; i++) {
            pair.b.postRecv(c.passive, r.gpa() + 256L * i, 256, r.stag());
        }
        // irdma_post_send with IB_SEND_INLINE: the bytes are copied from the SGEs into the WQE
        Buffer data = pair.a.buffer(128, Access.LOCAL_WRITE);
        for (int i = 0; i < 101; i++) {
            pair.a.store().writeByte(pair.a.off(data.gpa()) + i, (byte) (i * 3 + 1));
        }
        int inline = SendWorkRequest.SIGNALED | SendWorkRequest.INLINE;
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.SEND).flags(inline).sge(data.gpa(), 101, data.stag()));
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.SEND).flags(inline).sge(data.gpa() + 5, 8, data.stag()));
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.SEND).flags(SendWorkRequest.SIGNALED));
        Completion c1 = next(pair.b, c.bCq);
        Completion c2 = next(pair.b, c.bCq);
        Completion c3 = next(pair.b, c.bCq);
        assertEquals(101, c1.bytes());
        assertEquals(8, c2.bytes());
        assertEquals(0, c3.bytes());
        assertEquals(List.of(0, 4, 8), pair.b.cqeWqeIndexes(c.passive, false),
                "RQ WQE indexes in quanta (128-byte WQEs: multiplier 4)");
        assertArrayEquals(pair.a.read(data.gpa(), 101), pair.b.read(r.gpa(), 101));
        assertArrayEquals(pair.a.read(data.gpa() + 5, 8), pair.b.read(r.gpa() + 256, 8));
        List<Completion> sent = new ArrayList<>();
        pair.runUntil(() -> {
            sent.addAll(pair.a.pollAll(c.aCq));
            return sent.size() == 3;
        }, 500_000_000L);
        // Inline 101 bytes: 4 quanta from index 3 (so 3..6), 8 bytes: 1 quantum at 7, then the Send at 8.
        assertEquals(List.of(3, 7, 8), pair.a.cqeWqeIndexes(c.active, true));
    }

    @Test
    void bothRingsWrapAndTheValidBitPolarityIsFollowed() {
        // signaled one-SGE Sends (one quantum each) wrap the SQ (1024 quanta for 128 WRs of up to 6 SGEs) and the
        // RQ (128 WQEs of 128 bytes for 64 WRs) more than twice
        int rqWqes = c.passive.rqSize();
        int sends = 2 * c.active.sqDepth() + 100;
        assertTrue(sends > 2 * rqWqes, "both rings wrap more than twice");
        Buffer s = pair.a.buffer(16, Access.LOCAL_WRITE);
        Buffer r = pair.b.buffer(64L * 16, Access.LOCAL_WRITE);
        int rqPosted = 0;
        int received = 0;
        int completed = 0;
        for (int i = 0; i < sends; i++) {
            while (rqPosted - received < 32) {
                pair.b.postRecv(c.passive, r.gpa() + 16L * (rqPosted % 64), 16, r.stag());
                rqPosted++;
            }
            pair.a.store().writeLong(pair.a.off(s.gpa()), i);
            pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.SEND).flags(SendWorkRequest.SIGNALED)
                    .sge(s.gpa(), 16, s.stag()));
            Completion rc = next(pair.b, c.bCq);
            assertEquals(16, rc.bytes());
            assertEquals(i, pair.b.store().readLong(pair.b.off(r.gpa() + 16L * (received % 64))));
            List<Integer> rqIndexes = pair.b.cqeWqeIndexes(c.passive, false);
            assertEquals((received % rqWqes) * 4, rqIndexes.get(rqIndexes.size() - 1));
            received++;
            for (Completion sc : pair.a.pollAll(c.aCq)) {
                assertFalse(sc.error());
                completed++;
            }
        }
        int[] done = {completed};
        pair.runUntil(() -> {
            done[0] += pair.a.pollAll(c.aCq).size();
            return done[0] == sends;
        }, 500_000_000L);
        assertEquals(0, pair.a.dev().iwarp().completionsDropped());
    }

    @Test
    void aReceiveWhoseCqWasDestroyedUnderTheQpRaisesCqOperationErrorForThatCq() {
        // A hostile driver destroys the passive QP's CQ while the QP lives; the peer's Send still arrives.
        assertTrue(pair.b.destroyCqUnderItsQp(c.bCq));
        Buffer s = pair.a.buffer(64, Access.LOCAL_WRITE);
        Buffer r = pair.b.buffer(256, Access.LOCAL_WRITE);
        pair.b.postRecv(c.passive, r.gpa(), 256, r.stag());
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.SEND).sge(s.gpa(), 64, s.stag()));
        pair.runUntil(() -> pair.b.dev().cqs().losses(CqTable.Loss.NO_CQ) > 0, 500_000_000L);
        assertEquals(1, pair.b.dev().cqs().losses(CqTable.Loss.NO_CQ));
        assertEquals(1, pair.b.dev().iwarp().completionsDropped());
        // the AEQE reaches the driver with the AEQ's interrupt
        List<DriverPair.Ae> aes = new ArrayList<>();
        pair.runUntil(() -> {
            aes.addAll(pair.b.pollAes());
            return !aes.isEmpty();
        }, 500_000_000L);
        assertTrue(aes.stream().anyMatch(e -> e.code() == AeCode.CQ_OPERATION_ERROR.code() && e.qpId() == c.bCq.id()
                && e.source() == AeSource.CQ), aes.toString());
        List<RecordingTraceSink.Recorded> lost = pair.b.traceSink().of(TraceKind.COMPLETION_LOST);
        assertEquals(1, lost.size());
        assertEquals("NO_CQ", lost.get(0).get("reason"));
        assertEquals(String.valueOf(c.passive.id()), lost.get(0).get("qp"));
        assertEquals(String.valueOf(c.bCq.id()), lost.get(0).get("cq"));
    }
}
