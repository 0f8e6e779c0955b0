package dev.irdmaemu.model.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.wire.FaultProfile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Bulk transfers between two engines over a simulated wire, checked byte for byte. */
class OffloadedTcpTransferTest {
    private static final long MIB = 1024 * 1024;
    private static final long TEN_MINUTES = 600_000_000_000L;

    @Test
    void sixtyFourMebibytesOverAPerfectWire() {
        try (TcpPair pair = new TcpPair(1, FaultProfile.NONE, FaultProfile.NONE)) {
            pair.a.write(64 * MIB);
            pair.runUntilQuiet(TEN_MINUTES);
            assertEquals(64 * MIB, pair.b.received);
            assertEquals(0, pair.b.mismatches);
            assertEquals(0, pair.a.engine.counters().retransmittedSegments());
            assertEquals(0, pair.a.engine.counters().timeouts());
            assertEquals(0, pair.b.engine.counters().outOfOrderSegments());
            assertEquals(TcpState.ESTABLISHED, pair.a.engine.state());
            // Delayed ACK: about one ACK for every two full segments (RFC 5681 §4.2), not one per segment.
            long dataSegments = pair.a.engine.counters().segmentsSent();
            assertTrue(pair.b.engine.counters().acksSent() < dataSegments * 3 / 5,
                    pair.b.engine.counters().acksSent() + " ACKs for " + dataSegments + " segments");
        }
    }

    @Test
    void sixtyFourMebibytesThroughLossDuplicationReorderingAndDelay() {
        FaultProfile faults = FaultProfile.delay(50_000).withLoss(0.05).withDuplication(0.02)
                .withReordering(0.05, 30_000).withJitter(5_000);
        try (TcpPair pair = new TcpPair(7, faults, faults)) {
            pair.a.write(64 * MIB);
            pair.b.write(1 * MIB); // the other direction at the same time: ACKs ride on data
            pair.runUntilQuiet(TEN_MINUTES);
            assertEquals(64 * MIB, pair.b.received);
            assertEquals(1 * MIB, pair.a.received);
            assertEquals(0, pair.b.mismatches);
            assertEquals(0, pair.a.mismatches);
            assertTrue(pair.link.framesLost() > 0 && pair.link.framesDuplicated() > 0
                    && pair.link.framesReordered() > 0);
            OffloadedTcp sender = pair.a.engine;
            assertTrue(sender.counters().fastRetransmits() > 0,
                    "fast retransmits " + sender.counters().fastRetransmits());
            assertTrue(sender.counters().retransmittedSegments() > 0);
            assertTrue(pair.b.engine.counters().duplicateSegments() > 0, "duplicates are recognised and dropped");
            // Every out-of-order segment is shown to the IEQ hook.
            assertEquals(pair.b.engine.counters().outOfOrderSegments(), pair.b.outOfOrderCalls);
            assertTrue(pair.b.outOfOrderCalls > 0);
            assertEquals(0, pair.b.engine.counters().badFrames());
            assertEquals(TcpState.ESTABLISHED, sender.state());
        }
    }

    @Test
    void droppingOutOfOrderSegmentsStillDeliversEverything() {
        FaultProfile faults = FaultProfile.delay(20_000).withLoss(0.03).withReordering(0.03, 15_000);
        TcpConnectionParams pb = TcpPair.defaults(false).toBuilder().timestamps(false, 0).dropOutOfOrder(true)
                .build();
        try (TcpPair pair = new TcpPair(3, faults, faults, TcpPair.defaults(true), pb)) {
            pair.a.write(4 * MIB);
            pair.runUntilQuiet(TEN_MINUTES);
            assertEquals(4 * MIB, pair.b.received);
            assertEquals(0, pair.b.mismatches);
            assertTrue(pair.b.engine.counters().outOfOrderSegments() > 0);
            assertEquals(pair.b.engine.counters().outOfOrderSegments(), pair.b.engine.counters().outOfOrderDropped());
            assertEquals(0, pair.b.engine.reassemblyRanges());
        }
    }

    @Test
    void timestampsVlanAndSmallWindowScale() {
        TcpConnectionParams pa = TcpPair.defaults(true).toBuilder().timestamps(true, 0).vlan(0x2005)
                .window(65535, 0, 0).buffers(64 * 1024, 32 * 1024).build();
        TcpConnectionParams pb = TcpPair.defaults(false).toBuilder().timestamps(true, 0).vlan(0x2005)
                .window(65535, 0, 0).buffers(64 * 1024, 32 * 1024).build();
        FaultProfile faults = FaultProfile.delay(20_000).withLoss(0.02);
        try (TcpPair pair = new TcpPair(5, faults, faults, pa, pb)) {
            pair.b.receiveCapacity = 20_000; // window below the reassembly ring: the upper layer's space rules
            pair.a.write(8 * MIB);
            pair.runUntilQuiet(TEN_MINUTES);
            assertEquals(8 * MIB, pair.b.received);
            assertEquals(0, pair.b.mismatches);
            assertEquals(0, pair.b.engine.counters().badFrames());
        }
    }

    @Test
    void oneLostSegmentIsRepairedByFastRetransmitNotByTimeout() {
        try (TcpPair pair = new TcpPair(2, FaultProfile.NONE, FaultProfile.NONE)) {
            pair.a.write(64 * 1024);
            pair.runUntilQuiet(TEN_MINUTES);
            pair.a.dropDataFrameCountdown = 5; // the fifth data segment of the next burst vanishes
            long before = pair.scheduler.now();
            pair.a.write(1 * MIB);
            pair.runUntilQuiet(TEN_MINUTES);
            assertEquals(1, pair.a.framesDroppedByFilter);
            assertEquals(64 * 1024 + MIB, pair.b.received);
            assertEquals(0, pair.b.mismatches);
            assertEquals(1, pair.a.engine.counters().fastRetransmits());
            assertEquals(1, pair.a.engine.counters().retransmittedSegments());
            assertEquals(0, pair.a.engine.counters().timeouts());
            assertTrue(pair.a.engine.counters().dupAcksReceived() >= 3);
            assertTrue(pair.b.engine.counters().outOfOrderSegments() >= 3);
            assertTrue(pair.scheduler.now() - before < TcpConnectionParams.DEFAULT_RTO_MIN,
                    "repaired well within one RTO");
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {101, 202, 303, 404, 505, 606, 707, 808})
    void bothDirectionsThroughHeavyFaultsNeverStall(long seed) {
        // 15% loss each way, duplicates, reordering past several segments: stresses recovery, RTO and
        // reassembly together, and both sides retransmitting at once.
        FaultProfile faults = FaultProfile.delay(30_000).withLoss(0.15).withDuplication(0.05)
                .withReordering(0.10, 100_000).withJitter(20_000);
        try (TcpPair pair = new TcpPair(seed, faults, faults)) {
            pair.a.fpdu = 1000 + (int) (seed % 7) * 1111;
            pair.a.write(2 * MIB);
            pair.b.write(2 * MIB);
            pair.runUntilQuiet(TEN_MINUTES);
            assertEquals(2 * MIB, pair.b.received);
            assertEquals(2 * MIB, pair.a.received);
            assertEquals(0, pair.a.mismatches + pair.b.mismatches);
            assertTrue(pair.a.events.isEmpty() && pair.b.events.isEmpty(), pair.a.events + " " + pair.b.events);
            assertTrue(pair.a.engine.counters().timeouts() > 0, "heavy loss needs the RTO too");
        }
    }

    @Test
    void ipv6ConnectionTransfers() {
        long hiA = 0x2001_0db8_0000_0000L;
        TcpConnectionParams pa = new TcpConnectionParams.Builder().macs(TcpPair.MAC_A, TcpPair.MAC_B)
                .ipHeader(64, 0, 0x12345).addresses(hiA, 1, hiA, 2).ports(TcpPair.PORT_A, TcpPair.PORT_B)
                .sequence(TcpPair.ISS_A, TcpPair.ISS_A, TcpPair.ISS_B).window(65535, 0, 0).mss(1440)
                .dupAckThreshold(3).buffers(1 << 16, 1 << 16).congestion(2880, TcpConnectionParams.DEFAULT_SS_THRESH)
                .build();
        TcpConnectionParams pb = new TcpConnectionParams.Builder().macs(TcpPair.MAC_B, TcpPair.MAC_A)
                .ipHeader(64, 0, 0).addresses(hiA, 2, hiA, 1).ports(TcpPair.PORT_B, TcpPair.PORT_A)
                .sequence(TcpPair.ISS_B, TcpPair.ISS_B, TcpPair.ISS_A).window(65535, 0, 0).mss(1440)
                .dupAckThreshold(3).buffers(1 << 16, 1 << 16).congestion(2880, TcpConnectionParams.DEFAULT_SS_THRESH)
                .build();
        assertTrue(pa.ipv6());
        try (TcpPair pair = new TcpPair(4, FaultProfile.NONE.withLoss(0.01), FaultProfile.NONE, pa, pb)) {
            pair.b.receiveCapacity = 1 << 16;
            pair.a.write(2 * MIB);
            pair.runUntilQuiet(TEN_MINUTES);
            assertEquals(2 * MIB, pair.b.received);
            assertEquals(0, pair.b.mismatches);
            assertEquals(0, pair.b.engine.counters().badFrames());
        }
    }
}
