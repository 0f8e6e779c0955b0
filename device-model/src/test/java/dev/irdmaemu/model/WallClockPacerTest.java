package dev.irdmaemu.model;

import dev.irdmaemu.model.timing.WallClockPacer;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.irdmaemu.fw.sim.SimScheduler;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pacer runs simulated events as a (fake) wall clock passes; the model never reads a clock itself. */
class WallClockPacerTest {
    @Test
    void eventsRunWhenTheirWallTimeHasCome() {
        SimScheduler s = new SimScheduler(1);
        List<Long> fired = new ArrayList<>();
        s.newTimer("a", () -> fired.add(s.now())).scheduleIn(1_000);
        s.newTimer("b", () -> fired.add(s.now())).scheduleIn(5_000);
        long[] wall = {100};
        WallClockPacer p = new WallClockPacer(s, () -> wall[0], 2.0);
        assertEquals(500, p.step());
        wall[0] += 499;
        p.step();
        assertEquals(List.of(), fired);
        wall[0] += 1;
        assertEquals(2_000, p.step());
        assertEquals(List.of(1_000L), fired);
        wall[0] += 10_000;
        assertEquals(Long.MAX_VALUE, p.step());
        assertEquals(List.of(1_000L, 5_000L), fired);
        assertEquals(0, p.lag());
    }

    @Test
    void stepUntilStopsAtTheGivenWallInstantAndNeverGoesBack() {
        SimScheduler s = new SimScheduler(1);
        List<Long> fired = new ArrayList<>();
        s.newTimer("a", () -> fired.add(s.now())).scheduleIn(1_000);
        s.newTimer("b", () -> fired.add(s.now())).scheduleIn(5_000);
        long[] wall = {0};
        WallClockPacer p = new WallClockPacer(s, () -> wall[0], 1.0);
        wall[0] = 10_000;
        assertEquals(3_000, p.stepUntil(2_000), "held at 2 us: b is 3 us after it");
        assertEquals(List.of(1_000L), fired);
        assertEquals(2_000, s.now());
        p.stepUntil(500);
        assertEquals(2_000, s.now(), "never back");
        p.stepUntil(20_000);
        assertEquals(10_000, s.now(), "never past the present");
        assertEquals(List.of(1_000L, 5_000L), fired);
    }
}
