package dev.irdmaemu.fw.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimSchedulerTest {
    @Test
    void eventsRunInDeadlineOrderThenArmingOrder() {
        SimScheduler s = new SimScheduler(1);
        List<String> order = new ArrayList<>();
        SimTimer a = s.newTimer("a", () -> order.add("a@" + s.now()));
        SimTimer b = s.newTimer("b", () -> order.add("b@" + s.now()));
        SimTimer c = s.newTimer("c", () -> order.add("c@" + s.now()));
        c.scheduleIn(30);
        a.scheduleIn(10);
        b.scheduleIn(10);
        assertTrue(s.runUntilIdle(Long.MAX_VALUE));
        assertEquals(List.of("a@10", "b@10", "c@30"), order);
        assertEquals(30, s.now());
        assertEquals(0, s.pendingTimers());
    }

    @Test
    void rearmingMovesTheDeadlineAndCancelDisarms() {
        SimScheduler s = new SimScheduler(1);
        int[] fired = new int[1];
        SimTimer t = s.newTimer("t", () -> fired[0]++);
        t.scheduleIn(100);
        t.scheduleIn(50);
        assertEquals(1, s.pendingTimers());
        assertEquals(50, s.nextDeadline());
        s.runUntil(60);
        assertEquals(1, fired[0]);
        t.scheduleIn(10);
        t.cancel();
        assertFalse(t.isPending());
        s.runFor(1000);
        assertEquals(1, fired[0]);
        assertEquals(1060, s.now());
    }

    @Test
    void aTimerMayRearmItselfAndABoundedRunReportsTheLivelock() {
        SimScheduler s = new SimScheduler(1);
        SimTimer[] self = new SimTimer[1];
        self[0] = s.newTimer("tick", () -> self[0].scheduleIn(1));
        self[0].scheduleIn(1);
        assertFalse(s.runUntilIdle(1_000));
        assertEquals(1_000, s.now());
    }

    @Test
    void manyTimersCancelledInArbitraryOrderKeepTheHeapConsistent() {
        SimScheduler s = new SimScheduler(7);
        var rnd = s.random(1);
        List<Long> fired = new ArrayList<>();
        SimTimer[] timers = new SimTimer[2000];
        for (int i = 0; i < timers.length; i++) {
            timers[i] = s.newTimer("t" + i, () -> fired.add(s.now()));
            timers[i].scheduleIn(rnd.nextLong(1, 1_000_000));
        }
        for (int i = 0; i < timers.length; i += 3) {
            timers[i].cancel();
        }
        assertTrue(s.runUntilIdle(Long.MAX_VALUE));
        assertEquals(timers.length - (timers.length + 2) / 3, fired.size());
        for (int i = 1; i < fired.size(); i++) {
            assertTrue(fired.get(i - 1) <= fired.get(i), "time never goes backwards");
        }
    }

    @Test
    void refusesThePastAndNegativeDelays() {
        SimScheduler s = new SimScheduler(1);
        SimTimer t = s.newTimer("t", () -> { });
        s.runFor(100);
        assertThrows(IllegalArgumentException.class, () -> t.scheduleAt(99));
        assertThrows(IllegalArgumentException.class, () -> t.scheduleIn(-1));
    }

    @Test
    void sameSeedSameRandomStream() {
        assertEquals(new SimScheduler(42).random(3).nextLong(), new SimScheduler(42).random(3).nextLong());
    }
}
