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
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The congestion window's growth by bytes acknowledged (RFC 3465), one engine (B) sending and hand-built ACKs
 * from its peer: a peer that acknowledges several segments at once (a guest whose receives are coalesced) grows
 * the window as one acknowledging every segment would, within the RFC's limits.
 */
class OffloadedTcpCongestionTest {
    private static final int MSS = TcpPair.MSS;
    private static final long PEER_SEQ = TcpPair.ISS_A;
    private static final long OUR_SEQ = TcpPair.ISS_B;

    private final SimScheduler scheduler = new SimScheduler(7);
    private final BytesStore<?, Void> frame = BytesStore.nativeStoreWithFixedCapacity(2048);
    private final BytesStore<?, Void> payload = BytesStore.nativeStoreWithFixedCapacity(2048);
    private final TcpPacketBuilder peer = new TcpPacketBuilder();
    private final TcpPacket parse = new TcpPacket();
    /** {seq, payload length} of every data segment B sends. */
    private final List<long[]> data = new ArrayList<>();
    private OffloadedTcp b;

    private void open(TcpConnectionParams params) {
        FrameTransmitter tx = (store, offset, length) -> {
            assertTrue(parse.wrap(store, offset, length).validate().accepted());
            if (parse.tcpPayloadLength() > 0) {
                data.add(new long[] {parse.tcp().sequenceNumber(), parse.tcpPayloadLength()});
            }
        };
        TcpReceiver rx = new TcpReceiver() {
            @Override
            public void deliver(BytesStore<?, ?> store, long offset, int length) {
            }

            @Override
            public long freeSpace() {
                return 64 * 1024;
            }
        };
        b = new OffloadedTcp(scheduler, params, tx, rx, (c, e) -> { });
        peer.ethernet(TcpPair.MAC_B, TcpPair.MAC_A).ipv4(TcpPair.IP_A, TcpPair.IP_B);
        peer.tcp().ports(TcpPair.PORT_A, TcpPair.PORT_B).window(65535);
    }

    @AfterEach
    void release() {
        if (b != null) {
            b.release();
        }
        frame.releaseLast();
        payload.releaseLast();
    }

    /** The upper layer queues {@code records} FPDUs of one MSS each. */
    private void queue(int records) {
        for (int i = 0; i < records; i++) {
            assertTrue(b.send(payload, 0, MSS));
        }
        scheduler.runFor(1_000);
    }

    /** The peer acknowledges B's first {@code segments} segments' worth of bytes. */
    private void ackSegments(int segments) {
        peer.tcp().sequenceNumber(PEER_SEQ).acknowledgmentNumber(OUR_SEQ + (long) segments * MSS & 0xffff_ffffL)
                .flags(TcpHeader.ACK);
        int n = peer.build(frame, 0, payload, 0, 0);
        b.receive(frame, 0, n);
        scheduler.runFor(1_000);
    }

    /** B's highest data sent so far, in segments from its first. */
    private int highestSent() {
        long end = 0;
        for (long[] d : data) {
            end = Math.max(end, (d[0] - OUR_SEQ & 0xffff_ffffL) + d[1]);
        }
        return (int) (end / MSS);
    }

    @Test
    void slowStartGrowsByTwoSegmentsForAnAckOfTwoOrMore() {
        open(TcpPair.defaults(false)); // irdma's hand-over: cwnd 2 MSS, ssthresh 0x3fffffff
        queue(40);
        assertEquals(2, data.size(), "the initial window: 2 segments");
        ackSegments(2);
        assertEquals(4L * MSS, b.congestionWindow(), "RFC 3465 §2.2: L = 2 SMSS (RFC 5681's 1 SMSS gave 3)");
        assertEquals(6, data.size());
        ackSegments(6); // one ACK for four segments, as after the guest coalesced them
        assertEquals(6L * MSS, b.congestionWindow(), "capped at 2 SMSS per ACK, not the 4 segments acknowledged");
        ackSegments(7);
        assertEquals(7L * MSS, b.congestionWindow(), "an ACK of one segment grows it by one");
    }

    @Test
    void afterATimeoutSlowStartGrowsByOneSegmentPerAckUntilTheOldFlightIsAcked() {
        open(TcpPair.defaults(false));
        queue(40);
        ackSegments(2);
        ackSegments(6);
        ackSegments(12);
        assertEquals(8L * MSS, b.congestionWindow());
        assertEquals(20, highestSent(), "8 segments outstanding");
        scheduler.runFor(TcpConnectionParams.DEFAULT_RTO_MIN + 1_000_000);
        assertEquals(1, b.counters().timeouts());
        assertEquals(MSS, b.congestionWindow(), "RFC 5681 §3.1: one segment after a timeout, ssthresh 4");
        ackSegments(14); // the retransmission and the original after it: below SND.MAX at the timeout
        assertEquals(2L * MSS, b.congestionWindow(), "RFC 3465 §2.3: L = 1 SMSS after a timeout");
        ackSegments(20); // SND.MAX at the timeout: the old flight is acknowledged
        assertEquals(4L * MSS, b.congestionWindow(), "L = 2 SMSS again");
    }

    @Test
    void congestionAvoidanceGrowsOneSegmentPerWindowOfBytesHoweverTheyAreAcked() {
        open(TcpPair.defaults(false).toBuilder().congestion(4L * MSS, 4L * MSS).build());
        queue(40);
        assertEquals(4, data.size());
        ackSegments(4); // one ACK for the whole window (RFC 5681's per-ACK rule gave SMSS * SMSS / cwnd)
        assertEquals(5L * MSS, b.congestionWindow(), "RFC 3465 §2.1: a window's worth of bytes, one SMSS");
        for (int acked = 5; acked <= 8; acked++) {
            ackSegments(acked);
            assertEquals(5L * MSS, b.congestionWindow(), "4 of the 5 segments' bytes acknowledged: no growth yet");
        }
        ackSegments(9);
        assertEquals(6L * MSS, b.congestionWindow());
    }

    @Test
    void fastRecoveryStartsTheByteCountAfresh() {
        open(TcpPair.defaults(false).toBuilder().congestion(4L * MSS, 4L * MSS).build());
        queue(40);
        ackSegments(2);
        ackSegments(3); // 3 of the 4 segments' bytes counted toward the next growth
        for (int i = 0; i < 3; i++) {
            ackSegments(3); // three duplicates: fast retransmit (RFC 5681 §3.2)
        }
        assertTrue(b.inRecovery());
        int outstanding = highestSent();
        ackSegments(outstanding); // everything outstanding: recovery ends, cwnd from ssthresh (2 SMSS)
        long afterRecovery = b.congestionWindow();
        assertEquals(2L * MSS, afterRecovery);
        ackSegments(outstanding + 1);
        assertEquals(afterRecovery, b.congestionWindow(), "the count before recovery does not carry over");
        ackSegments(outstanding + 2);
        assertEquals(afterRecovery + MSS, b.congestionWindow(), "a window's worth counted from recovery's end");
    }
}
