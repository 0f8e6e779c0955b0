package dev.irdmaemu.fw.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

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

    @Property(tries = 300)
    void runsTheSameEventsInTheSameOrderAsOneKeyPerEvent(@ForAll long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        SimScheduler s = new SimScheduler(1);
        Model m = new Model();
        List<String> ran = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        long[] rearmOnFire = new long[TIMERS];
        SimTimer[] timers = new SimTimer[TIMERS];
        for (int i = 0; i < TIMERS; i++) {
            int id = i;
            rearmOnFire[i] = rnd.nextInt(4) == 0 ? rnd.nextLong(0, 5) : -1;
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
        for (int step = 0; step < 400; step++) {
            int op = rnd.nextInt(10);
            if (op < 3) {
                int i = rnd.nextInt(TIMERS);
                long at = s.now() + rnd.nextLong(0, 6);
                timers[i].scheduleAt(at);
                m.arm("t" + i, at);
            } else if (op < 4) {
                int i = rnd.nextInt(TIMERS);
                timers[i].cancel();
                m.cancel("t" + i);
            } else if (op < 6) {
                int f = rnd.nextInt(fifos.length);
                long at = Math.max(s.now(), fifos[f].size() > 0 ? fifos[f].lastDeadline() : s.now())
                        + rnd.nextLong(0, 4);
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
