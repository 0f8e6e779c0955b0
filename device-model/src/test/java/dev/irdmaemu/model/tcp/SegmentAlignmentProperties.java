package dev.irdmaemu.model.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.wire.FaultProfile;
import java.util.ArrayList;
import java.util.TreeSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * RFC 5044 §8 alignment as the engine does it, against the records (FPDUs) the upper layer queued: every data
 * segment, first sent or resent, ends at a record end or has none inside it (it carries part of one record longer
 * than a segment). The search for that end starts where the previous one stopped and falls back to bisection;
 * losses, reordering and go-back-N restarts send it backwards, records of every size make it skip far ahead.
 * Records are at least 100 bytes, so the send ring never holds more than the engine notes
 * ({@link OffloadedTcp#RECORDS}); past that alignment is given up by design.
 */
class SegmentAlignmentProperties {
    @Property(tries = 60)
    void everySegmentEndsAtARecordEndOrHoldsNone(@ForAll @LongRange(min = 1, max = 1_000_000) long seed,
                                                 @ForAll @DoubleRange(min = 0, max = 0.1) double loss,
                                                 @ForAll @DoubleRange(min = 0, max = 0.1) double reordering,
                                                 @ForAll @IntRange(min = 100, max = 6000) int fpdu,
                                                 @ForAll @IntRange(min = 14, max = 18) int bufferLog2) {
        FaultProfile faults = FaultProfile.delay(20_000).withLoss(loss).withReordering(reordering, 50_000);
        int buffer = 1 << bufferLog2;
        int scale = Math.max(0, bufferLog2 - 16);
        TcpConnectionParams pa = TcpPair.defaults(true).toBuilder().buffers(buffer, buffer)
                .window(Math.min(buffer, 65535 << scale), scale, scale)
                .retransmits(40, TcpConnectionParams.DEFAULT_RTO_MIN, TcpConnectionParams.DEFAULT_RTO_INITIAL).build();
        TcpConnectionParams pb = TcpPair.defaults(false).toBuilder().buffers(buffer, buffer)
                .window(Math.min(buffer, 65535 << scale), scale, scale)
                .retransmits(40, TcpConnectionParams.DEFAULT_RTO_MIN, TcpConnectionParams.DEFAULT_RTO_INITIAL).build();
        int total = 200_000;
        try (TcpPair pair = new TcpPair(seed, faults, faults, pa, pb)) {
            pair.a.receiveCapacity = buffer;
            pair.b.receiveCapacity = buffer;
            pair.a.fpdu = Math.min(fpdu, buffer);
            pair.a.dataSegments = new ArrayList<>();
            pair.a.write(total);
            pair.runUntilQuiet(3_600_000_000_000L);
            assertEquals(total, pair.b.received);
            // the records' ends in stream offsets (the pump queues whole fpdu-sized records, the last one shorter)
            TreeSet<Long> ends = new TreeSet<>();
            for (long at = pair.a.fpdu; ; at += pair.a.fpdu) {
                ends.add(Math.min(at, total));
                if (at >= total) {
                    break;
                }
            }
            long first = pa.sndNxt();
            assertTrue(pair.a.dataSegments.size() > 0);
            for (long[] seg : pair.a.dataSegments) {
                long start = (seg[0] - first) & 0xffff_ffffL;
                long end = start + seg[1];
                Long inside = ends.higher(start);
                assertTrue(ends.contains(end) || inside == null || inside > end,
                        "segment [" + start + ", " + end + ") of records every " + pair.a.fpdu + " bytes");
            }
            pair.abortAndAssertNoTimers("a transfer of fpdu-sized records");
        }
    }
}
