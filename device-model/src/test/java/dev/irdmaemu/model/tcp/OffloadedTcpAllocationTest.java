package dev.irdmaemu.model.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.wire.FaultProfile;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * The send, receive, ACK, retransmission and reassembly paths allocate nothing per segment once warm. Measured as
 * model.HotPathAllocationTest does, with HotSpot's per-thread allocation counter: the measured window must stay
 * under one byte per segment carried (one 16-byte object per segment would be sixteen times that).
 */
class OffloadedTcpAllocationTest {
    private static final int CHUNK = 64 * 1024;
    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private long allocated() {
        return threads.getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    private void measure(FaultProfile faults) {
        try (TcpPair pair = new TcpPair(9, faults, faults)) {
            Runnable one = () -> {
                pair.a.write(CHUNK);
                pair.b.write(CHUNK / 8);
                pair.runUntilQuiet(600_000_000_000L);
            };
            for (int i = 0; i < 400; i++) {
                one.run();
                assertEquals((i + 1L) * CHUNK, pair.b.received, "transfer stalled");
            }
            long segmentsBefore = pair.a.engine.counters().segmentsSent() + pair.b.engine.counters().segmentsSent();
            long overhead = -(allocated() - allocated());
            long before = allocated();
            for (int i = 0; i < 200; i++) {
                one.run();
            }
            long used = allocated() - before - overhead;
            long segments = pair.a.engine.counters().segmentsSent() + pair.b.engine.counters().segmentsSent() - segmentsBefore;
            assertEquals(600L * CHUNK, pair.b.received);
            assertEquals(0, pair.b.mismatches);
            assertTrue(segments > 10_000, segments + " segments");
            assertTrue(used < segments, "allocated " + used + " bytes for " + segments + " segments");
        }
    }

    @Test
    void losslessTransferAllocatesNothingPerSegment() {
        measure(FaultProfile.NONE);
    }

    @Test
    void lossyTransferAllocatesNothingPerSegment() {
        FaultProfile faults = FaultProfile.delay(20_000).withLoss(0.03).withDuplication(0.01)
                .withReordering(0.03, 15_000);
        measure(faults);
    }
}
