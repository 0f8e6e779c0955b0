package dev.irdmaemu.fw.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * The scheduler against a plain model of its contract: every pending event keyed by (deadline, the order it was
 * armed in), the least key runs first, re-arming a timer re-keys it, cancelling removes it, and an event queued in
 * a {@link SimEventFifo} is keyed as a timer armed at that moment would be. Random programs of arming, re-arming,
 * cancelling, queueing and running (with timers that re-arm themselves as they fire, and FIFO events that queue
 * more) must run the same events at the same instants in the same order, with the same pending count throughout.
 */
class SimSchedulerProperties {
    private static final int TIMERS = 12;

    /** The model: pending events as (deadline, sequence, name). */
    private static final class Model {
        final List<long[]> keys = new ArrayList<>();
        final List<String> names = new ArrayList<>();
        long sequence;
        long now;

        void arm(String name, long deadline) {
            cancel(name);
            keys.add(new long[] {deadline, sequence++});
            names.add(name);
        }

        void queue(String name, long deadline) {
            keys.add(new long[] {deadline, sequence++});
            names.add(name);
        }

        void cancel(String name) {
            int i = names.indexOf(name);
            if (i >= 0) {
                keys.remove(i);
                names.remove(i);
            }
        }

        /** Removes and answers the least key's name, advancing time; null when none is pending. */
        String next() {
            int best = -1;
            for (int i = 0; i < keys.size(); i++) {
                long[] k = keys.get(i);
                if (best < 0 || k[0] < keys.get(best)[0] || k[0] == keys.get(best)[0] && k[1] < keys.get(best)[1]) {
                    best = i;
                }
            }
            if (best < 0) {
                return null;
            }
            now = keys.get(best)[0];
            keys.remove(best);
            return names.remove(best);
        }

        /** FIFO entries share the FIFO's name, so a FIFO event is named "f<i>#<n>" and cancel never matches it. */
        long lastOf(String prefix) {
            long last = Long.MIN_VALUE;
            for (int i = 0; i < names.size(); i++) {
                if (names.get(i).startsWith(prefix)) {
                    last = Math.max(last, keys.get(i)[0]);
                }
            }
            return last;
        }
    }

    /**
     * One step of a program: {@code op} 0-2 arms timer {@code timer} {@code delay} ns from now, 3 cancels it, 4-5
     * queues on FIFO {@code fifo} {@code fifoDelay} ns after its last deadline, 6-9 runs the next event.
     */
    record Step(int op, int timer, long delay, int fifo, long fifoDelay) {
    }

    @Provide
    Arbitrary<List<Step>> programs() {
        return Combinators.combine(Arbitraries.integers().between(0, 9),
                Arbitraries.integers().between(0, TIMERS - 1), Arbitraries.longs().between(0, 5), Arbitraries.integers().between(0, 1),
                Arbitraries.longs().between(0, 3)).as(Step::new).list().ofSize(400);
    }

    /** Per timer, the delay it re-arms itself with as it fires (one timer in four), or -1. */
    @Provide
    Arbitrary<long[]> rearms() {
        return Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.just(-1L)),
                Tuple.of(1, Arbitraries.longs().between(0, 4))).array(long[].class).ofSize(TIMERS);
    }

    @Property(tries = 300)
    void runsTheSameEventsInTheSameOrderAsOneKeyPerEvent(@ForAll("programs") List<Step> program,
                                                         @ForAll("rearms") long[] rearms) {
        SimScheduler s = new SimScheduler(1);
        Model m = new Model();
        List<String> ran = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        long[] rearmOnFire = rearms.clone();
        SimTimer[] timers = new SimTimer[TIMERS];
        for (int i = 0; i < TIMERS; i++) {
            int id = i;
            timers[i] = s.newTimer("t" + i, () -> {
                ran.add("t" + id + "@" + s.now());
                if (rearmOnFire[id] >= 0) {
                    timers[id].scheduleIn(rearmOnFire[id]);
                }
            });
        }
        SimEventFifo[] fifos = new SimEventFifo[2];
        int[] fifoCount = new int[2];
        for (int f = 0; f < fifos.length; f++) {
            int id = f;
            fifos[f] = new SimEventFifo(s, "f" + f, token -> ran.add("f" + id + "#" + token + "@" + s.now()));
        }
        for (Step step : program) {
            int op = step.op();
            if (op < 3) {
                int i = step.timer();
                long at = s.now() + step.delay();
                timers[i].scheduleAt(at);
                m.arm("t" + i, at);
            } else if (op < 4) {
                int i = step.timer();
                timers[i].cancel();
                m.cancel("t" + i);
            } else if (op < 6) {
                int f = step.fifo();
                long at = Math.max(s.now(), fifos[f].size() > 0 ? fifos[f].lastDeadline() : s.now())
                        + step.fifoDelay();
                int token = fifoCount[f]++;
                fifos[f].add(token, at);
                m.queue("f" + f + "#" + token, at);
            } else {
                boolean any = s.runNext();
                String name = m.next();
                assertEquals(name != null, any);
                if (name != null) {
                    expected.add(name + "@" + m.now);
                    int t = name.startsWith("t") ? Integer.parseInt(name.substring(1)) : -1;
                    if (t >= 0 && rearmOnFire[t] >= 0) {
                        m.arm(name, m.now + rearmOnFire[t]);
                    }
                }
                assertEquals(expected, ran);
            }
            assertEquals(m.keys.size(), s.pendingTimers());
        }
        // stop the self-re-arming timers so the run ends, then drain both
        Arrays.fill(rearmOnFire, -1);
        while (s.runNext()) {
            String name = m.next();
            expected.add(name + "@" + m.now);
        }
        assertEquals(null, m.next());
        assertEquals(expected, ran);
        assertEquals(m.keys.size(), s.pendingTimers());
    }
}
