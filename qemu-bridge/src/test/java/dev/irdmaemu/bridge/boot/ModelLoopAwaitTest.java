package dev.irdmaemu.bridge.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.sim.SimScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link ModelLoop#await}: a condition checked on the loop thread, as the run's settle and the tests use it. */
class ModelLoopAwaitTest {
    private static ModelLoop loop(SimScheduler scheduler) {
        ModelLoop l = new ModelLoop("await-test", scheduler, System::nanoTime, () -> false);
        l.start();
        return l;
    }

    @Test
    void answersTheFirstAcceptedValueWhichSimulatedEventsBringAbout() throws Exception {
        SimScheduler scheduler = new SimScheduler(1);
        int[] count = {0};
        List<Thread> probedOn = new ArrayList<>();
        try (ModelLoop l = loop(scheduler)) {
            // ten events 10 ms apart in simulated time, paced by the wall clock
            l.call(() -> {
                for (int i = 1; i <= 10; i++) {
                    scheduler.newTimer("tick", () -> count[0]++).scheduleAt(scheduler.now() + i * 10_000_000L);
                }
                return null;
            }, Duration.ofSeconds(5));
            int seen = l.await(() -> {
                probedOn.add(Thread.currentThread());
                return count[0];
            }, n -> n >= 5, Duration.ofSeconds(20));
            assertTrue(seen >= 5 && seen <= 10, "seen " + seen);
            assertTrue(probedOn.stream().allMatch(t -> t == l.thread()), "probed on the loop thread only");
        }
    }

    @Test
    void afterTheTimeoutAnswersTheValueThen() throws Exception {
        try (ModelLoop l = loop(new SimScheduler(1))) {
            long start = System.nanoTime();
            assertEquals(7, l.await(() -> 7, n -> n == 8, Duration.ofMillis(200)));
            assertTrue(System.nanoTime() - start >= 200_000_000L);
        }
    }

    @Test
    void theProbesExceptionComesBackAsThrown() throws Exception {
        IllegalStateException boom = new IllegalStateException("boom");
        try (ModelLoop l = loop(new SimScheduler(1))) {
            assertSame(boom, assertThrows(IllegalStateException.class,
                    () -> l.await(() -> {
                        throw boom;
                    }, v -> true, Duration.ofSeconds(5))));
        }
    }
}
