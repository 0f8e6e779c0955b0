package dev.irdmaemu.model.roce.rc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.roce.PathMtu;
import dev.irdmaemu.model.roce.rc.RcPair.Side;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two RC engines over an in-memory cable: mixed WRITEs, SENDs and READs in both directions arrive byte-exact and
 * every work request completes exactly once, in order, on a clean wire and under seeded loss, duplication,
 * reordering and corruption; retry and RNR retry exhaustion end in the right error completion and AE; PSNs wrap.
 */
class RcTransportTest {
    private static long transfer(RcPair pair, long seed, int rounds, int maxMessage) {
        RcTraffic ab = new RcTraffic(pair.a, pair.b, seed, maxMessage, 1);
        RcTraffic ba = new RcTraffic(pair.b, pair.a, seed + 1000, maxMessage, 1_000_000);
        for (int r = 0; r < rounds; r++) {
            ab.round(RcPair.REGION);
            ba.round(RcPair.REGION);
            assertTrue(pair.run(() -> ab.complete() && ba.complete(), 2_000_000),
                    "round " + r + " completes:\nA " + pair.a.engine.describe() + "\nB " + pair.b.engine.describe());
            ab.verify();
            ba.verify();
        }
        return ab.bytes + ba.bytes;
    }

    @Test
    void cleanWireCarriesEveryKindOfWorkByteExact() {
        RcPair pair = new RcPair(1, PathMtu.MTU_1024, 100, 5000).up();
        assertTrue(transfer(pair, 11, 3, 64 * 1024) > 4 << 20, "several MB");
        for (Side s : List.of(pair.a, pair.b)) {
            RcCounters c = s.engine.counters();
            assertEquals(0, c.packetsRetransmitted(), "no retransmission on a clean wire");
            assertEquals(0, c.received(RcReceipt.BAD_ICRC));
            assertEquals(c.receivedTotal(), c.received(RcReceipt.REQUEST_EXECUTED) + c.received(RcReceipt.ACK_PROGRESS)
                    + c.received(RcReceipt.ACK_DUPLICATE) + c.received(RcReceipt.RESPONSE_PLACED));
            assertTrue(s.done.events.isEmpty());
            assertEquals(RcState.READY_TO_SEND, s.engine.state());
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void faultyWireStillDeliversEveryByteOnce(long seed) {
        RcPair pair = new RcPair(seed, seed % 2 == 0 ? PathMtu.MTU_4096 : PathMtu.MTU_1024, 0xff_fff0, 0x7f_fff8)
                .up();
        pair.a.out.faults(0.02, 0.02, 0.05, 0.01);
        pair.b.out.faults(0.02, 0.02, 0.05, 0.01);
        assertTrue(transfer(pair, seed * 7, 6, 128 * 1024) > 8 << 20, "more than 8 MB");
        long retransmitted = 0;
        long badIcrc = 0;
        for (Side s : List.of(pair.a, pair.b)) {
            retransmitted += s.engine.counters().packetsRetransmitted();
            badIcrc += s.engine.counters().received(RcReceipt.BAD_ICRC);
            assertTrue(s.done.events.isEmpty(), "no AE: " + s.done.events);
        }
        assertTrue(retransmitted > 0, "losses were repaired by retransmission");
        assertTrue(badIcrc > 0, "corrupted frames were dropped by the ICRC check");
    }

    @Test
    void aCutCableEndsInRetryExceededAfterTheRetryCount() {
        RcPair pair = new RcPair(5, PathMtu.MTU_1024, 0, 0);
        pair.a.path.retries(3, 7, 1, 1_000_000);
        pair.up();
        pair.a.out.cut = true;
        SendRequest w = new SendRequest();
        for (int i = 0; i < 3; i++) {
            w.reset(SendOpcode.RDMA_WRITE, i, true).add(RcPair.va(RcPair.SOURCE), 4000, RcPair.SOURCE);
            w.remote(RcPair.va(RcPair.TARGET), RcPair.TARGET);
            assertEquals(PostOutcome.ACCEPTED, pair.a.engine.post(w));
        }
        assertTrue(pair.run(() -> pair.a.engine.state() == RcState.ERROR, 10_000));
        assertEquals(4, pair.a.engine.counters().timeouts(), "three retries, then the fourth expiry fails");
        assertEquals(List.of(AeCode.LLP_TOO_MANY_RETRIES), pair.a.done.events);
        assertEquals(1, pair.a.done.sends.size());
        assertEquals(RcStatus.RETRY_EXCEEDED, pair.a.done.sends.get(0).status());
        assertEquals(2, pair.a.engine.flushSendQueue());
        assertEquals(RcStatus.FLUSHED, pair.a.done.sends.get(1).status());
        assertEquals(RcStatus.FLUSHED, pair.a.done.sends.get(2).status());
        assertEquals(0, pair.a.engine.outstanding());
    }

    @Test
    void rnrNaksHoldTheSendUntilAReceiveIsPosted() {
        RcPair pair = new RcPair(6, PathMtu.MTU_1024, 0, 0).up();
        SendRequest s = new SendRequest();
        s.reset(SendOpcode.SEND_WITH_IMMEDIATE, 9, true).add(RcPair.va(RcPair.SOURCE), 3000, RcPair.SOURCE);
        s.immediate(0x1234_5678);
        pair.a.engine.post(s);
        pair.run(() -> pair.b.engine.counters().rnrNaksSent() >= 3, 1_000);
        assertTrue(pair.b.engine.counters().rnrNaksSent() >= 3);
        assertTrue(pair.a.done.sends.isEmpty());
        pair.b.rq.post(77, RcPair.va(RcPair.RECEIVE), 4096, RcPair.RECEIVE);
        assertTrue(pair.run(() -> pair.a.done.sends.size() == 1, 10_000));
        assertEquals(RcStatus.SUCCESS, pair.a.done.sends.get(0).status());
        RecordedCompletions.Receive r = pair.b.done.receives.get(0);
        assertEquals(77, r.wrId());
        assertEquals(3000, r.bytes());
        assertTrue(r.hasImmediate());
        assertEquals(0x1234_5678, r.immediate());
        assertTrue(pair.a.engine.counters().rnrWaits() >= 3);
    }

    @Test
    void rnrRetryExhaustionFailsTheSend() {
        RcPair pair = new RcPair(7, PathMtu.MTU_1024, 0, 0);
        pair.a.path.retries(7, 2, 1, 1_000_000);
        pair.up();
        SendRequest s = new SendRequest();
        s.reset(SendOpcode.SEND, 1, true).add(RcPair.va(RcPair.SOURCE), 100, RcPair.SOURCE);
        pair.a.engine.post(s);
        assertTrue(pair.run(() -> pair.a.engine.state() == RcState.ERROR, 10_000));
        assertEquals(3, pair.b.engine.counters().rnrNaksSent(), "two RNR retries, the third RNR NAK fails");
        assertEquals(RcStatus.RNR_RETRY_EXCEEDED, pair.a.done.sends.get(0).status());
        assertEquals(List.of(AeCode.LLP_TOO_MANY_RNRS), pair.a.done.events);
    }

    @Test
    void aBadRkeyDrawsRemoteAccessErrorOnBothSides() {
        RcPair pair = new RcPair(8, PathMtu.MTU_1024, 0, 0).up();
        SendRequest w = new SendRequest();
        w.reset(SendOpcode.RDMA_WRITE, 1, true).add(RcPair.va(RcPair.SOURCE), 100, RcPair.SOURCE);
        w.remote(RcPair.va(RcPair.TARGET), RcPair.EXPOSED); // read-only region
        pair.a.engine.post(w);
        w.reset(SendOpcode.RDMA_WRITE, 2, true).add(RcPair.va(RcPair.SOURCE), 100, RcPair.SOURCE);
        w.remote(RcPair.va(RcPair.TARGET), RcPair.TARGET);
        pair.a.engine.post(w);
        assertTrue(pair.run(() -> pair.a.engine.state() == RcState.ERROR, 10_000));
        assertEquals(RcStatus.REMOTE_ACCESS_ERROR, pair.a.done.sends.get(0).status());
        assertEquals(List.of(AeCode.IB_REMOTE_ACCESS_ERROR), pair.a.done.events);
        assertEquals(RcState.ERROR, pair.b.engine.state());
        assertEquals(List.of(AeCode.AMP_RIGHTS_VIOLATION), pair.b.done.events);
        assertEquals(1, pair.b.engine.counters().received(RcReceipt.REMOTE_ACCESS_NAKED));
        assertEquals(1, pair.a.engine.flushSendQueue());
        assertEquals(RcStatus.FLUSHED, pair.a.done.sends.get(1).status());
    }

    @Test
    void aReceiveBufferTooSmallIsALengthErrorAndAnInvalidRequestNak() {
        RcPair pair = new RcPair(9, PathMtu.MTU_256, 0, 0).up();
        pair.b.rq.post(5, RcPair.va(RcPair.RECEIVE), 1000, RcPair.RECEIVE);
        SendRequest s = new SendRequest();
        s.reset(SendOpcode.SEND, 1, true).add(RcPair.va(RcPair.SOURCE), 2000, RcPair.SOURCE);
        pair.a.engine.post(s);
        assertTrue(pair.run(() -> pair.a.engine.state() == RcState.ERROR, 10_000));
        assertEquals(RcStatus.REMOTE_INVALID_REQUEST, pair.a.done.sends.get(0).status());
        assertEquals(RcStatus.LOCAL_LENGTH_ERROR, pair.b.done.receives.get(0).status());
    }

    @Test
    void sendWithInvalidateInvalidatesTheResponderKey() {
        RcPair pair = new RcPair(10, PathMtu.MTU_1024, 0, 0).up();
        pair.b.regions.register(0x999, 4096, 0x1000, dev.irdmaemu.model.mr.MemoryRegions.REMOTE_WRITE, RcPair.PD);
        pair.b.rq.post(5, RcPair.va(RcPair.RECEIVE), 1000, RcPair.RECEIVE);
        SendRequest s = new SendRequest();
        s.reset(SendOpcode.SEND_WITH_INVALIDATE, 1, true).add(RcPair.va(RcPair.SOURCE), 10, RcPair.SOURCE);
        s.invalidate(0x999);
        pair.a.engine.post(s);
        assertTrue(pair.run(() -> pair.a.done.sends.size() == 1, 10_000));
        RecordedCompletions.Receive r = pair.b.done.receives.get(0);
        assertTrue(r.hasInvalidated());
        assertEquals(0x999, r.invalidatedKey());
        assertTrue(!pair.b.regions.region(0x999).valid);
    }

    @Test
    void theDriversModifyToErrorRaisesNoEventAndFlushesWhatIsLeft() {
        RcPair pair = new RcPair(11, PathMtu.MTU_1024, 0, 0).up();
        pair.a.out.cut = true;
        SendRequest w = new SendRequest();
        w.reset(SendOpcode.SEND, 1, false).add(RcPair.va(RcPair.SOURCE), 10, RcPair.SOURCE);
        pair.a.engine.post(w);
        pair.a.engine.service(0, 8);
        pair.a.engine.modify(RcState.ERROR, 0);
        assertTrue(pair.a.done.events.isEmpty());
        assertEquals(0, pair.a.engine.service(1_000_000_000L, 8), "nothing sent in ERROR");
        assertEquals(1, pair.a.engine.flushSendQueue());
        assertEquals(RcStatus.FLUSHED, pair.a.done.sends.get(0).status());
        assertEquals(PostOutcome.FLUSHED, pair.a.engine.post(w));
        assertEquals(2, pair.a.done.sends.size());
        pair.a.engine.modify(RcState.RESET, 0);
        assertEquals(PostOutcome.NOT_READY, pair.a.engine.post(w));
        assertEquals(0, pair.a.engine.outstanding());
    }

    @ParameterizedTest
    @ValueSource(longs = {10, 11, 12, 13, 14})
    void aHarshWireAtEveryPathMtuAndAnyStartingPsn(long seed) {
        RcPair pair = new RcPair(seed, PathMtu.values()[(int) (seed % 5)], (int) (seed * 0x13579b) & 0xffffff,
                (int) (seed * 0x2468a) & 0xffffff).up();
        pair.a.out.faults(0.10, 0.05, 0.10, 0.03);
        pair.b.out.faults(0.10, 0.05, 0.10, 0.03);
        // 10% loss, 5% duplication, 10% reordering, 3% corruption, both ways
        assertTrue(transfer(pair, seed * 3, 2, 96 * 1024) > 2 << 20);
        for (Side s : List.of(pair.a, pair.b)) {
            assertTrue(s.done.events.isEmpty(), "no AE: " + s.done.events);
        }
    }
}
