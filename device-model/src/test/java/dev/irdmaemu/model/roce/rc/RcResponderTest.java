package dev.irdmaemu.model.roce.rc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.roce.Aeth;
import dev.irdmaemu.fw.roce.AethSyndrome;
import dev.irdmaemu.fw.roce.BthOpcode;
import dev.irdmaemu.fw.roce.NakCode;
import dev.irdmaemu.fw.roce.PathMtu;
import dev.irdmaemu.fw.roce.RoceCheck;
import dev.irdmaemu.fw.roce.RoceFrame;
import dev.irdmaemu.fw.roce.RoceFrameBuilder;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * The responder's answers, frame by frame, to requests crafted as a peer would send them (IBA Vol. 1 §9.7.4-9.7.5,
 * rxe_resp.c): coalesced ACKs with the MSN, one NAK PSN sequence error per gap, duplicates ACKed again, a duplicate
 * READ replayed, NAK invalid request for a MIDDLE without FIRST and for a payload that breaks the path MTU, RNR NAK
 * without an RQ WQE, a bad ICRC dropped without an answer; and the requester's AckReq on last packets and every 64.
 */
class RcResponderTest {
    private static final int EPSN = 1000;

    private final RcPair pair = new RcPair(3, PathMtu.MTU_256, EPSN, 0).up();
    private final RoceFrameBuilder peer = new RoceFrameBuilder();
    private final BytesStore<?, Void> frame = BytesStore.nativeStoreWithFixedCapacity(9000);
    private final BytesStore<?, Void> payload = BytesStore.nativeStoreWithFixedCapacity(9000);
    private final RoceFrame answer = new RoceFrame();

    RcResponderTest() {
        pair.a.path.applyTo(peer);
    }

    private RcReceipt request(BthOpcode op, int psn, int length, boolean ackRequest) {
        peer.bth(op, pair.b.path.localQpn(), psn).flags(false, false, ackRequest);
        int n = peer.build(frame, 0, payload, 0, length);
        return pair.b.engine.receive(frame, 0, n, pair.now);
    }

    /** What B sent, each parsed: opcode, PSN, AETH syndrome and MSN. */
    private List<int[]> answers() {
        pair.b.engine.service(pair.now, 0);
        return pair.b.out.drain().stream().map(f -> {
            BytesStore<?, Void> s = BytesStore.nativeStoreWithFixedCapacity(f.length);
            s.write(0, f, 0, f.length);
            assertEquals(RoceCheck.ACCEPTED, answer.wrap(s, 0, f.length).validate(PathMtu.MTU_256));
            Aeth aeth = answer.headers().aeth();
            return new int[] {answer.bth().opcodeCode(), answer.bth().psn(), aeth.syndrome(), aeth.msn()};
        }).toList();
    }

    @Test
    void aBurstOfWritePacketsDrawsOneCoalescedAckWithTheMsn() {
        peer.reth(RcPair.va(RcPair.TARGET), RcPair.TARGET, 5 * 256);
        assertEquals(RcReceipt.REQUEST_EXECUTED, request(BthOpcode.RC_RDMA_WRITE_FIRST, EPSN, 256, false));
        for (int i = 1; i < 4; i++) {
            assertEquals(RcReceipt.REQUEST_EXECUTED, request(BthOpcode.RC_RDMA_WRITE_MIDDLE, EPSN + i, 256, false));
        }
        assertEquals(RcReceipt.REQUEST_EXECUTED, request(BthOpcode.RC_RDMA_WRITE_LAST, EPSN + 4, 256, true));
        peer.reth(RcPair.va(RcPair.TARGET), RcPair.TARGET, 10);
        assertEquals(RcReceipt.REQUEST_EXECUTED, request(BthOpcode.RC_RDMA_WRITE_ONLY, EPSN + 5, 10, true));
        List<int[]> sent = answers();
        assertEquals(1, sent.size(), "one ACK for the burst");
        assertEquals(BthOpcode.RC_ACKNOWLEDGE.code(), sent.get(0)[0]);
        assertEquals(EPSN + 5, sent.get(0)[1]);
        assertEquals(AethSyndrome.ACK, AethSyndrome.of(sent.get(0)[2]));
        assertEquals(2, sent.get(0)[3], "two messages completed");
    }

    @Test
    void aGapDrawsOneSequenceNakThenSilenceUntilTheExpectedPsnComes() {
        peer.reth(RcPair.va(RcPair.TARGET), RcPair.TARGET, 10);
        assertEquals(RcReceipt.SEQUENCE_NAKED, request(BthOpcode.RC_RDMA_WRITE_ONLY, EPSN + 2, 10, true));
        assertEquals(RcReceipt.SEQUENCE_DROPPED, request(BthOpcode.RC_RDMA_WRITE_ONLY, EPSN + 3, 10, true));
        List<int[]> sent = answers();
        assertEquals(1, sent.size());
        assertEquals(Aeth.nakSyndrome(NakCode.PSN_SEQUENCE_ERROR), sent.get(0)[2]);
        assertEquals(EPSN, sent.get(0)[1], "the NAK names the expected PSN");
        assertEquals(RcReceipt.REQUEST_EXECUTED, request(BthOpcode.RC_RDMA_WRITE_ONLY, EPSN, 10, true));
        assertEquals(RcReceipt.SEQUENCE_NAKED, request(BthOpcode.RC_RDMA_WRITE_ONLY, EPSN + 5, 10, true),
                "a new gap after recovery is NAKed again");
    }

    @Test
    void aDuplicateWriteIsAckedAgainAndADuplicateReadReplayed() {
        peer.reth(RcPair.va(RcPair.TARGET), RcPair.TARGET, 10);
        request(BthOpcode.RC_RDMA_WRITE_ONLY, EPSN, 10, true);
        peer.reth(RcPair.va(RcPair.EXPOSED), RcPair.EXPOSED, 600);
        assertEquals(RcReceipt.REQUEST_EXECUTED, request(BthOpcode.RC_RDMA_READ_REQUEST, EPSN + 1, 0, true));
        List<int[]> first = answers();
        assertEquals(List.of(BthOpcode.RC_RDMA_READ_RESPONSE_FIRST.code(), BthOpcode.RC_RDMA_READ_RESPONSE_MIDDLE.code(),
                BthOpcode.RC_RDMA_READ_RESPONSE_LAST.code()), first.stream().map(a -> a[0]).toList(),
                "600 bytes at 256: three responses, and no separate ACK (they acknowledge the WRITE)");
        assertEquals(EPSN + 3, first.get(2)[1]);
        assertEquals(EPSN + 4, pair.b.engine.expectedPsn(), "a READ takes one PSN per response");
        peer.reth(RcPair.va(RcPair.TARGET), RcPair.TARGET, 10);
        assertEquals(RcReceipt.DUPLICATE_ACKED, request(BthOpcode.RC_RDMA_WRITE_ONLY, EPSN, 10, true));
        peer.reth(RcPair.va(RcPair.EXPOSED) + 256, RcPair.EXPOSED, 344);
        assertEquals(RcReceipt.DUPLICATE_READ_REPLAYED, request(BthOpcode.RC_RDMA_READ_REQUEST, EPSN + 2, 0, true));
        List<int[]> again = answers();
        assertEquals(3, again.size(), "the two responses of the retried part (at once), then the coalesced ACK");
        assertEquals(BthOpcode.RC_RDMA_READ_RESPONSE_FIRST.code(), again.get(0)[0]);
        assertEquals(EPSN + 2, again.get(0)[1]);
        assertEquals(BthOpcode.RC_RDMA_READ_RESPONSE_LAST.code(), again.get(1)[0]);
        assertEquals(EPSN + 3, again.get(1)[1]);
        assertEquals(BthOpcode.RC_ACKNOWLEDGE.code(), again.get(2)[0]);
        assertEquals(EPSN + 3, again.get(2)[1], "the ACK is for the last PSN executed");
    }

    @Test
    void aMiddleWithoutItsFirstIsAnInvalidRequest() {
        assertEquals(RcReceipt.INVALID_REQUEST_NAKED, request(BthOpcode.RC_SEND_MIDDLE, EPSN, 256, false));
        List<int[]> sent = answers();
        assertEquals(Aeth.nakSyndrome(NakCode.INVALID_REQUEST), sent.get(0)[2]);
        assertEquals(EPSN, sent.get(0)[1]);
        assertEquals(RcState.ERROR, pair.b.engine.state());
        assertEquals(List.of(AeCode.IB_INVALID_REQUEST), pair.b.done.events);
        assertEquals(RcReceipt.STATE_DROPPED, request(BthOpcode.RC_SEND_ONLY, EPSN, 1, true));
    }

    @Test
    void aMiddlePacketShorterThanTheMtuIsAnInvalidRequestAndFailsItsReceive() {
        pair.b.rq.post(1, RcPair.va(RcPair.RECEIVE), 4096, RcPair.RECEIVE);
        assertEquals(RcReceipt.REQUEST_EXECUTED, request(BthOpcode.RC_SEND_FIRST, EPSN, 256, false));
        assertEquals(RcReceipt.INVALID_REQUEST_NAKED, request(BthOpcode.RC_SEND_MIDDLE, EPSN + 1, 200, false));
        assertEquals(Aeth.nakSyndrome(NakCode.INVALID_REQUEST), answers().get(0)[2]);
        assertEquals(RcStatus.LOCAL_LENGTH_ERROR, pair.b.done.receives.get(0).status());
        assertEquals(256, pair.b.done.receives.get(0).bytes());
    }

    @Test
    void noReceiveWqeDrawsAnRnrNakWithTheConfiguredTimerAndKeepsThePsn() {
        assertEquals(RcReceipt.RNR_NAKED, request(BthOpcode.RC_SEND_ONLY, EPSN, 100, true));
        List<int[]> sent = answers();
        assertEquals(Aeth.rnrNakSyndrome(1), sent.get(0)[2]);
        assertEquals(EPSN, pair.b.engine.expectedPsn());
        pair.b.rq.post(1, RcPair.va(RcPair.RECEIVE), 4096, RcPair.RECEIVE);
        assertEquals(RcReceipt.REQUEST_EXECUTED, request(BthOpcode.RC_SEND_ONLY, EPSN, 100, true));
    }

    @Test
    void aBadIcrcIsDroppedAndCountedWithoutAnAnswer() {
        peer.reth(RcPair.va(RcPair.TARGET), RcPair.TARGET, 10).bth(BthOpcode.RC_RDMA_WRITE_ONLY,
                pair.b.path.localQpn(), EPSN).flags(false, false, true);
        int n = peer.build(frame, 0, payload, 0, 10);
        frame.writeByte(n - 1, (byte) (frame.readByte(n - 1) ^ 0x10));
        assertEquals(RcReceipt.BAD_ICRC, pair.b.engine.receive(frame, 0, n, 0));
        assertTrue(answers().isEmpty());
        assertEquals(1, pair.b.engine.counters().received(RcReceipt.BAD_ICRC));
        assertEquals(EPSN, pair.b.engine.expectedPsn());
    }

    @Test
    void theRequesterAsksForAnAckOnEveryLastPacketAndEvery64Packets() {
        SendRequest w = new SendRequest();
        w.reset(SendOpcode.RDMA_WRITE, 1, true).add(RcPair.va(RcPair.SOURCE), 100 * 256, RcPair.SOURCE);
        w.remote(RcPair.va(RcPair.TARGET), RcPair.TARGET);
        pair.a.engine.post(w);
        pair.a.engine.service(0, 1000);
        List<byte[]> sent = pair.a.out.drain();
        assertEquals(100, sent.size());
        int asked = 0;
        for (int i = 0; i < sent.size(); i++) {
            boolean ackReq = (sent.get(i)[14 + 20 + 8 + 8] & 0x80) != 0;
            if (ackReq) {
                asked++;
                assertTrue(i == 63 || i == 99, "AckReq on packet " + i);
            }
        }
        assertEquals(2, asked);
        assertFalse(pair.a.engine.counters().packetsRetransmitted() > 0);
    }

    @Test
    void aRequestFromAnotherAddressIsDropped() {
        peer.ipv4(0x0a00_0009, 0x0a00_0002);
        peer.reth(RcPair.va(RcPair.TARGET), RcPair.TARGET, 10);
        assertEquals(RcReceipt.WRONG_SOURCE_ADDRESS, request(BthOpcode.RC_RDMA_WRITE_ONLY, EPSN, 10, true));
        assertTrue(answers().isEmpty());
        assertEquals(EPSN, pair.b.engine.expectedPsn());
    }
}
