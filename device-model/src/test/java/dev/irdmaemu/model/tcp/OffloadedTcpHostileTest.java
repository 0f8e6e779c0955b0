package dev.irdmaemu.model.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.port.FrameTransmitter;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One engine (B) fed hand-built segments from its peer's address: every case the RFCs say to drop or answer,
 * and random garbage, never throw and are counted.
 */
class OffloadedTcpHostileTest {
    private static final long PEER_SEQ = TcpPair.ISS_A; // what B expects next (its rcv_nxt)
    private static final long OUR_SEQ = TcpPair.ISS_B;  // B's snd_nxt

    private final SimScheduler scheduler = new SimScheduler(5);
    private final BytesStore<?, Void> frame = BytesStore.nativeStoreWithFixedCapacity(2048);
    private final BytesStore<?, Void> payload = BytesStore.nativeStoreWithFixedCapacity(2048);
    private final TcpPacketBuilder peer = new TcpPacketBuilder();
    private final List<long[]> sent = new ArrayList<>(); // {seq, ack, flags, window, payload}
    private final TcpPacket parse = new TcpPacket();
    private final List<TcpEvent> events = new ArrayList<>();
    private long delivered;
    private final OffloadedTcp b;

    OffloadedTcpHostileTest() {
        FrameTransmitter tx = (store, offset, length) -> {
            assertTrue(parse.wrap(store, offset, length).validate().accepted(), "B sends valid frames");
            TcpHeader h = parse.tcp();
            sent.add(new long[] {h.sequenceNumber(), h.acknowledgmentNumber(), h.flags(), h.window(),
                    parse.tcpPayloadLength()});
        };
        TcpReceiver rx = new TcpReceiver() {
            @Override
            public void deliver(BytesStore<?, ?> store, long offset, int length) {
                delivered += length;
            }

            @Override
            public long freeSpace() {
                return 64 * 1024;
            }
        };
        b = new OffloadedTcp(scheduler, TcpPair.defaults(false), tx, rx, (c, e) -> events.add(e));
        peer.ethernet(TcpPair.MAC_B, TcpPair.MAC_A).ipv4(TcpPair.IP_A, TcpPair.IP_B);
        peer.tcp().ports(TcpPair.PORT_A, TcpPair.PORT_B).window(65535);
    }

    @AfterEach
    void release() {
        b.release();
        frame.releaseLast();
        payload.releaseLast();
    }

    private void segment(long seq, long ack, int flags, int length) {
        peer.tcp().sequenceNumber(seq & 0xffff_ffffL).acknowledgmentNumber(ack & 0xffff_ffffL).flags(flags);
        int n = peer.build(frame, 0, payload, 0, length);
        b.receive(frame, 0, n);
        scheduler.runFor(1_000);
    }

    private long[] lastSent() {
        return sent.get(sent.size() - 1);
    }

    @Test
    void inOrderDataIsDeliveredAndAcked() {
        segment(PEER_SEQ, OUR_SEQ, TcpHeader.ACK, 1000);
        segment(PEER_SEQ + 1000, OUR_SEQ, TcpHeader.ACK, 1000);
        assertEquals(2000, delivered);
        assertEquals(PEER_SEQ + 2000 & 0xffff_ffffL, lastSent()[1]); // every second segment acked at once
    }

    @Test
    void aLoneSegmentIsAckedByTheDelayedAckTimer() {
        segment(PEER_SEQ, OUR_SEQ, TcpHeader.ACK, 1000);
        assertEquals(1000, delivered);
        assertTrue(sent.isEmpty(), "one segment waits for a second or for the timer (RFC 5681 §4.2)");
        scheduler.runFor(TcpConnectionParams.DEFAULT_DELAYED_ACK - 2_000);
        assertTrue(sent.isEmpty());
        scheduler.runFor(2_000);
        assertEquals(1, sent.size());
        assertEquals(PEER_SEQ + 1000 & 0xffff_ffffL, lastSent()[1]);
        assertEquals(1, b.counters().delayedAcks());
    }

    @Test
    void dataFromTheUpperLayerCarriesThePendingAck() {
        segment(PEER_SEQ, OUR_SEQ, TcpHeader.ACK, 1000);
        payload.writeByte(0, (byte) 7);
        assertTrue(b.send(payload, 0, 300));
        scheduler.runFor(1_000);
        assertEquals(1, sent.size());
        assertEquals(300, lastSent()[4]);
        assertEquals(PEER_SEQ + 1000 & 0xffff_ffffL, lastSent()[1], "the ACK rides on the data");
        scheduler.runFor(TcpConnectionParams.DEFAULT_DELAYED_ACK);
        assertEquals(0, b.counters().delayedAcks());
    }

    @Test
    void sendIsAllOrNothing() {
        long space = b.sendSpace();
        assertEquals(TcpPair.defaults(false).sendBufferBytes(), space);
        BytesStore<?, Void> big = BytesStore.nativeStoreWithFixedCapacity(space + 1);
        try {
            assertTrue(!b.send(big, 0, (int) space + 1), "more than the ring holds is refused");
            assertEquals(space, b.sendSpace());
            assertTrue(b.send(big, 0, (int) space));
            assertEquals(0, b.sendSpace());
            assertTrue(!b.send(big, 0, 1));
        } finally {
            big.releaseLast();
        }
    }

    @Test
    void resetWithAnInWindowButInexactSequenceGetsAChallengeAck() {
        // RFC 5961 §3.2: in the window but not RCV.NXT: challenge ACK, connection stays.
        segment(PEER_SEQ + 100, OUR_SEQ, TcpHeader.RST, 0);
        assertEquals(TcpState.ESTABLISHED, b.state());
        assertEquals(1, b.counters().challengeAcks());
        assertEquals(1, b.counters().resetsIgnored());
        assertEquals(PEER_SEQ & 0xffff_ffffL, lastSent()[1]);
        assertEquals(TcpHeader.ACK, lastSent()[2]);
        assertTrue(events.isEmpty());
    }

    @Test
    void resetOutsideTheWindowIsDroppedSilently() {
        segment(PEER_SEQ + 1_000_000, OUR_SEQ, TcpHeader.RST, 0);
        segment(PEER_SEQ - 1, OUR_SEQ, TcpHeader.RST, 0);
        assertEquals(TcpState.ESTABLISHED, b.state());
        assertEquals(2, b.counters().outOfWindowSegments() + b.counters().duplicateSegments());
        assertTrue(sent.isEmpty(), "no answer to an out-of-window RST (RFC 9293 §3.10.7.4)");
    }

    @Test
    void challengeAcksAreRateLimited() {
        // RFC 5961 §7: a flood of blind RSTs must not turn into a flood of ACKs.
        for (int i = 0; i < OffloadedTcp.CHALLENGE_ACK_LIMIT + 50; i++) {
            peer.tcp().sequenceNumber(PEER_SEQ + 1 + i).acknowledgmentNumber(OUR_SEQ).flags(TcpHeader.RST);
            int n = peer.build(frame, 0);
            b.receive(frame, 0, n);
        }
        assertEquals(OffloadedTcp.CHALLENGE_ACK_LIMIT, b.counters().challengeAcks());
        assertEquals(50, b.counters().challengeAcksSuppressed());
        assertEquals(TcpState.ESTABLISHED, b.state());
        scheduler.runFor(1_000_000_000L);
        segment(PEER_SEQ + 7, OUR_SEQ, TcpHeader.RST, 0);
        assertEquals(OffloadedTcp.CHALLENGE_ACK_LIMIT + 1, b.counters().challengeAcks(), "a new second, a new budget");
    }

    @Test
    void exactResetTearsDown() {
        segment(PEER_SEQ, OUR_SEQ, TcpHeader.RST, 0);
        assertEquals(TcpState.CLOSED, b.state());
        assertEquals(List.of(TcpEvent.CONNECTION_RESET), events);
        // After the reset nothing more is answered.
        segment(PEER_SEQ, OUR_SEQ, TcpHeader.ACK, 100);
        assertEquals(0, delivered);
        assertTrue(sent.isEmpty());
    }

    @Test
    void synOnAnEstablishedConnectionGetsAChallengeAck() {
        // RFC 5961 §4.2 (RFC 9293 §3.10.7.4 fourth step): never reset by a SYN.
        segment(PEER_SEQ, 0, TcpHeader.SYN, 0);
        segment(PEER_SEQ + 5000, OUR_SEQ, TcpHeader.SYN | TcpHeader.ACK, 0);
        assertEquals(TcpState.ESTABLISHED, b.state());
        assertEquals(2, b.counters().synsReceived());
        assertEquals(2, b.counters().challengeAcks());
        assertTrue(events.isEmpty());
    }

    @Test
    void ackOfUnsentDataIsAnsweredAndIgnored() {
        segment(PEER_SEQ, OUR_SEQ + 1000, TcpHeader.ACK, 0);
        assertEquals(1, b.counters().badAcks());
        assertEquals(OUR_SEQ, b.sndUna());
        assertEquals(OUR_SEQ, lastSent()[0]);
        // RFC 5961 §5.2: an ACK far below SND.UNA is just as bad.
        segment(PEER_SEQ, OUR_SEQ - 0x4000_0000L, TcpHeader.ACK, 0);
        assertEquals(2, b.counters().badAcks());
        assertEquals(TcpState.ESTABLISHED, b.state());
    }

    @Test
    void dataOutsideTheWindowIsNotDeliveredButAcked() {
        segment(PEER_SEQ + 10_000_000, OUR_SEQ, TcpHeader.ACK, 500);
        segment(PEER_SEQ - 2000, OUR_SEQ, TcpHeader.ACK, 500); // old, a retransmission
        assertEquals(0, delivered);
        assertEquals(1, b.counters().outOfWindowSegments());
        assertEquals(1, b.counters().duplicateSegments());
        assertEquals(2, sent.size());
        assertEquals(PEER_SEQ & 0xffff_ffffL, lastSent()[1]);
    }

    @Test
    void segmentOverlappingRcvNxtIsTrimmed() {
        segment(PEER_SEQ, OUR_SEQ, TcpHeader.ACK, 1000);
        segment(PEER_SEQ + 500, OUR_SEQ, TcpHeader.ACK, 1000); // half old, half new
        assertEquals(1500, delivered);
        assertEquals(PEER_SEQ + 1500 & 0xffff_ffffL, b.rcvNxt());
    }

    @Test
    void outOfOrderDataWaitsForTheHoleAndIsAnsweredAtOnce() {
        segment(PEER_SEQ + 1000, OUR_SEQ, TcpHeader.ACK, 1000);
        assertEquals(0, delivered);
        assertEquals(1, b.counters().outOfOrderSegments());
        assertEquals(1, b.reassemblyRanges());
        assertEquals(PEER_SEQ & 0xffff_ffffL, lastSent()[1], "immediate duplicate ACK (RFC 5681 §4.2)");
        segment(PEER_SEQ, OUR_SEQ, TcpHeader.ACK, 1000);
        assertEquals(2000, delivered);
        assertEquals(0, b.reassemblyRanges());
        assertEquals(PEER_SEQ + 2000 & 0xffff_ffffL, lastSent()[1], "filling a hole is acked at once");
    }

    @Test
    void reassemblyRangesAreBounded() {
        for (int i = 0; i < OffloadedTcp.MAX_HOLES + 4; i++) {
            segment(PEER_SEQ + 1000 + i * 200L, OUR_SEQ, TcpHeader.ACK, 100);
        }
        assertEquals(OffloadedTcp.MAX_HOLES, b.reassemblyRanges());
        assertEquals(4, b.counters().outOfOrderDropped());
        segment(PEER_SEQ, OUR_SEQ, TcpHeader.ACK, 1000);
        assertEquals(1100, delivered, "the hole fills up to the first gap");
    }

    @Test
    void badChecksumWrongPortAndNoAckAreDropped() {
        peer.tcp().sequenceNumber(PEER_SEQ).acknowledgmentNumber(OUR_SEQ).flags(TcpHeader.ACK);
        int n = peer.build(frame, 0, payload, 0, 100);
        frame.writeByte(n - 1, (byte) (frame.readByte(n - 1) ^ 0x40));
        b.receive(frame, 0, n);
        assertEquals(1, b.counters().badFrames());
        peer.tcp().ports(TcpPair.PORT_A + 1, TcpPair.PORT_B);
        segment(PEER_SEQ, OUR_SEQ, TcpHeader.ACK, 100);
        assertEquals(1, b.counters().wrongConnection());
        peer.tcp().ports(TcpPair.PORT_A, TcpPair.PORT_B);
        segment(PEER_SEQ, OUR_SEQ, 0, 100); // no ACK bit: RFC 9293 §3.10.7.4 fifth step, drop
        assertEquals(0, delivered);
        assertTrue(sent.isEmpty());
    }

    @Test
    void randomAndMutatedFramesNeverThrow() {
        SplittableRandom rnd = new SplittableRandom(42);
        for (int i = 0; i < 20_000; i++) {
            int len;
            if (rnd.nextBoolean()) {
                peer.tcp().sequenceNumber(PEER_SEQ + rnd.nextInt(-70_000, 70_000))
                        .acknowledgmentNumber(OUR_SEQ + rnd.nextInt(-70_000, 70_000)).flags(rnd.nextInt(256) & (rnd.nextInt(8) == 0 ? 0xff : ~TcpHeader.RST))
                        .window(rnd.nextInt(65536));
                len = peer.build(frame, 0, payload, 0, rnd.nextInt(1400));
                int flips = rnd.nextInt(3);
                for (int k = 0; k < flips; k++) {
                    int at = rnd.nextInt(len);
                    frame.writeByte(at, (byte) rnd.nextInt(256));
                }
            } else {
                len = rnd.nextInt(1, 200);
                for (int k = 0; k < len; k++) {
                    frame.writeByte(k, (byte) rnd.nextInt(256));
                }
            }
            b.receive(frame, 0, rnd.nextInt(len + 1));
            scheduler.runFor(rnd.nextInt(1_000_000));
        }
        assertTrue(b.counters().badFrames() > 0);
        assertTrue(b.counters().segmentsReceived() > 0);
    }
}
