package dev.irdmaemu.bridge.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.model.ModelNode;
import dev.irdmaemu.bridge.model.ModelPair;
import dev.irdmaemu.driver.HwStatistics;
import dev.irdmaemu.fw.cqp.GatherStatsBuffer.Stat;
import dev.irdmaemu.fw.pcap.FrameTap;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.stats.FunctionCounters;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.RecordingTraceSink.Recorded;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * irdma's statistics timer on gen2 (ctrl.c irdma_vsi_stats_init starts it at bring-up, utils.c
 * irdma_hw_stats_timeout re-arms it every STATS_TIMER_DELAY = 60 000 ms and posts Gather Stats without waiting;
 * irdma_process_cqp_stats -> ctrl.c irdma_update_stats adds each counter's movement, modulo its width, to a 64-bit
 * total; irdma_vsi_stats_free stops it): on the simulated clock, as the model's trace shows it.
 */
class StatsTimerIntegrationTest {
    private static final long DELAY = HwStatistics.STATS_TIMER_DELAY_NANOS;
    private static final long WRAP_48 = 1L << 48;

    private static List<Recorded> gathers(RecordingTraceSink sink) {
        return sink.of(TraceKind.CQP_OP).stream().filter(e -> "GATHER_STATS".equals(e.get("op"))).toList();
    }

    @Test
    void bringUpStartsAGatherEverySixtySecondsWhoseCompletionAccumulatesAcrossTheCountersWrap() {
        RecordingTraceSink sink = new RecordingTraceSink();
        try (ModelPair pair = new ModelPair(FrameTap.NONE, sink, null)) {
            SimScheduler s = pair.scheduler;
            ModelNode n = pair.a;
            HwStatistics stats = n.driver.statistics();
            assertTrue(stats.timerRunning(), "armed by bring-up");
            assertEquals(2, s.pendingBackgroundTimers(), "one per node, background: a run until idle ends");
            assertTrue(pair.runUntilIdle(1_000_000_000L));
            assertEquals(0, gathers(sink).size(), "nothing before the first 60 s");

            // the device's IPv4 transmit counter (48 bits in the gather buffer) just below its wrap
            FunctionCounters hw = n.device.iwarp().counters();
            long start = hw.get(Stat.IP4TXPKTS);
            hw.add(Stat.IP4TXPKTS, WRAP_48 - 3 - start);
            long callbacks = n.driver.cqp().callbacksRun();
            s.runFor(DELAY);
            assertEquals(1, gathers(sink).size(), "the first gather at 60 s");
            assertEquals(1, stats.timerGathers());
            assertEquals(1, stats.gathers(), "its completion updated the totals");
            assertEquals(callbacks + 1, n.driver.cqp().callbacksRun(), "through the request's callback");
            assertEquals(0, n.driver.cqp().requestsPending());
            assertEquals(WRAP_48 - 3, stats.value(Stat.IP4TXPKTS));

            // past the wrap: the hardware's 48-bit value restarts at 4, the 64-bit total keeps counting
            hw.add(Stat.IP4TXPKTS, 7);
            s.runFor(DELAY);
            assertEquals(2, stats.gathers());
            assertEquals(WRAP_48 + 4, stats.value(Stat.IP4TXPKTS), "7 added across the 48-bit wrap");
            hw.add(Stat.IP4TXPKTS, 10);
            s.runFor(DELAY);
            assertEquals(WRAP_48 + 14, stats.value(Stat.IP4TXPKTS));

            // the gathers ran exactly 60 s apart (the timer re-arms as it fires, mod_timer)
            List<Recorded> g = gathers(sink);
            assertEquals(3, g.size());
            assertEquals(DELAY, g.get(1).timeNanos() - g.get(0).timeNanos());
            assertEquals(DELAY, g.get(2).timeNanos() - g.get(1).timeNanos());
            assertEquals(3, stats.gathers());
            assertEquals(0, stats.failures());

            // teardown (irdma_vsi_stats_free) disarms it: nothing of either driver is left on the scheduler
            pair.a.driver.tearDown();
            pair.b.driver.tearDown();
            assertFalse(stats.timerRunning());
            assertEquals(0, s.pendingBackgroundTimers());
            s.runFor(3 * DELAY);
            assertEquals(3, gathers(sink).size(), "no gather after teardown");
        }
    }
}
