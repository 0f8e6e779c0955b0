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
    void aPeriodicBackgroundTimerFiresOnTheWayButDoesNotKeepTheRunBusy() {
        SimScheduler s = new SimScheduler(1);
        SimTimer[] periodic = new SimTimer[1];
        List<Long> fired = new ArrayList<>();
        periodic[0] = s.newBackgroundTimer("stats", () -> {
            fired.add(s.now());
            periodic[0].scheduleIn(60);
        });
        periodic[0].scheduleIn(60);
        int[] work = new int[1];
        SimTimer fg = s.newTimer("work", () -> work[0]++);
        fg.scheduleIn(150);
        assertTrue(s.runUntilIdle(1_000), "only the background timer is left: idle");
        assertEquals(List.of(60L, 120L), fired, "fired on the way to the foreground event");
        assertEquals(1, work[0]);
        assertEquals(150, s.now(), "the clock stops at the last foreground event");
        assertEquals(1, s.pendingTimers(), "still counted as pending");
        assertEquals(1, s.pendingBackgroundTimers());
        s.runUntil(300);
        assertEquals(List.of(60L, 120L, 180L, 240L, 300L), fired);
        periodic[0].cancel();
        assertEquals(0, s.pendingTimers());
        assertEquals(0, s.pendingBackgroundTimers());
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
    void aFifoRunsItsEventsInOrderInterleavedWithTimersAsIfEachHadItsOwn() {
        SimScheduler s = new SimScheduler(1);
        List<String> order = new ArrayList<>();
        SimEventFifo fifo = new SimEventFifo(s, "wire", token -> order.add("f" + token + "@" + s.now()));
        SimTimer x = s.newTimer("x", () -> order.add("x@" + s.now()));
        SimTimer y = s.newTimer("y", () -> order.add("y@" + s.now()));
        fifo.add(0, 10);
        x.scheduleAt(10); // armed after f0, before f1: runs between them
        fifo.add(1, 10);
        fifo.add(2, 20);
        y.scheduleAt(20); // armed after f2
        assertEquals(5, s.pendingTimers());
        assertEquals("wire@10, x@10, wire@10, wire@20, y@20", s.describePending());
        assertTrue(s.runUntilIdle(Long.MAX_VALUE));
        assertEquals(List.of("f0@10", "x@10", "f1@10", "f2@20", "y@20"), order);
        assertEquals(0, s.pendingTimers());
        assertEquals(0, fifo.size());
    }

    @Test
    void aFifoRefusesTheCurrentPastAndADeadlineBeforeItsLast() {
        SimScheduler s = new SimScheduler(1);
        SimEventFifo fifo = new SimEventFifo(s, "wire", token -> { });
        s.runFor(100);
        assertThrows(IllegalArgumentException.class, () -> fifo.add(0, 99));
        fifo.add(0, 150);
        assertThrows(IllegalArgumentException.class, () -> fifo.add(1, 149));
        assertEquals(1, fifo.size());
        fifo.add(1, 150);
        assertEquals(2, s.pendingTimers());
    }

    @Test
    void armingFiringAndQueueingAllocateNothingOnceGrown() {
        SimScheduler s = new SimScheduler(1);
        SimTimer[] timers = new SimTimer[40];
        for (int i = 0; i < timers.length; i++) {
            SimTimer[] self = timers;
            int id = i;
            timers[i] = s.newTimer("t" + i, () -> self[(id + 7) % self.length].scheduleIn(3 + id % 5));
        }
        SimEventFifo fifo = new SimEventFifo(s, "wire", token -> { });
        Runnable round = () -> {
            for (int i = 0; i < timers.length; i += 2) {
                timers[i].scheduleIn(i % 7);
            }
            for (int i = 0; i < 100; i++) {
                fifo.add(i, s.now() + 5 + i);
            }
            for (int i = 0; i < 2000 && s.runNext(); i++) {
                timers[i % timers.length].cancel();
            }
            s.runUntil(s.now() + 1000);
        };
        for (int i = 0; i < 50; i++) {
            round.run();
        }
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        // the counter's own cost, measured the same way, is subtracted (as FrameAllocationTest does); one real
        // allocation per event would be 16 bytes times some 400,000 events
        long overhead = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            long a = threads.getCurrentThreadAllocatedBytes();
            long b = threads.getCurrentThreadAllocatedBytes();
            overhead = Math.min(overhead, b - a);
        }
        long best = Long.MAX_VALUE;
        for (int attempt = 0; attempt < 5; attempt++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 200; i++) {
                round.run();
            }
            best = Math.min(best, threads.getCurrentThreadAllocatedBytes() - before - overhead);
        }
        assertEquals(0, best);
    }

    @Test
    void sameSeedSameRandomStream() {
        assertEquals(new SimScheduler(42).random(3).nextLong(), new SimScheduler(42).random(3).nextLong());
    }

    /** A function reset disarms what its own engines armed and nothing of another node's on the same scheduler. */
    @Test
    void cancelOwnedByDisarmsOnlyTheOwnersTimersAndOwnershipIsNotInherited() {
        SimScheduler s = new SimScheduler(1);
        Object nodeA = new Object();
        Object nodeB = new Object();
        List<String> ran = new ArrayList<>();
        Object previous = s.ownTimersFor(nodeA);
        SimTimer a1 = s.newTimer("a1", () -> ran.add("a1"));
        Object inner = s.ownTimersFor(nodeB);
        SimTimer b1 = s.newTimer("b1", () -> ran.add("b1"));
        s.endOwnership(inner);
        SimTimer a2 = s.newTimer("a2", () -> ran.add("a2"));
        s.endOwnership(previous);
        SimTimer[] late = new SimTimer[1];
        SimTimer free = s.newTimer("free", () -> late[0] = s.newTimer("late", () -> ran.add("late")));
        a1.scheduleIn(10);
        a2.scheduleIn(20);
        b1.scheduleIn(15);
        free.scheduleIn(1);
        s.runNext();
        late[0].scheduleIn(5);
        assertEquals(2, s.pendingOwnedBy(nodeA), "a1 and a2 are armed");
        assertEquals(1, s.pendingOwnedBy(nodeB));
        assertEquals(0, s.pendingOwnedBy(null));
        assertEquals(2, s.cancelOwnedBy(nodeA));
        assertEquals(0, s.pendingOwnedBy(nodeA));
        assertEquals(0, s.cancelOwnedBy(nodeA));
        assertEquals(0, s.cancelOwnedBy(null));
        assertFalse(a1.isPending());
        assertTrue(s.runUntilIdle(1_000));
        assertEquals(List.of("late", "b1"), ran, "B's timer and the unowned one still ran");
    }
}
