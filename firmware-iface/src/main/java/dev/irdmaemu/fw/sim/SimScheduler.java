package dev.irdmaemu.fw.sim;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The one owner of simulated time (in nanoseconds). The device model, the CM timers and the wire all
 * schedule on it; time advances only when an event is run, never with the wall clock, so a run is
 * reproducible for a seed. Events due at the same instant run in the order they were armed.
 *
 * <p>Single-threaded by design: everything runs on the thread that calls {@code run*}. The timer heap is an
 * array of reusable {@link SimTimer}s, so arming, firing and cancelling allocate nothing once it has grown.
 */
public final class SimScheduler {
    private final long seed;
    private SimTimer[] heap = new SimTimer[64];
    private int size;
    private long now;
    private long armSequence;
    private long eventsRun;

    public SimScheduler(long seed) {
        this.seed = seed;
    }

    public long now() {
        return now;
    }

    public long seed() {
        return seed;
    }

    /** A deterministic random stream for one component, derived from the run's seed and the component's salt. */
    public SplittableRandom random(long salt) {
        return new SplittableRandom(seed * 0x9E3779B97F4A7C15L + salt);
    }

    public SimTimer newTimer(String name, Runnable action) {
        return new SimTimer(this, name, action);
    }

    /** Timers armed and not yet fired or cancelled. */
    public int pendingTimers() {
        return size;
    }

    /** The pending timers as "name@deadline", earliest first: for diagnostics when a run does not go idle. */
    public String describePending() {
        SimTimer[] copy = Arrays.copyOf(heap, size);
        Arrays.sort(copy, (x, y) -> x.deadline != y.deadline ? Long.compare(x.deadline, y.deadline)
                : Long.compare(x.sequence, y.sequence));
        StringBuilder sb = new StringBuilder();
        for (SimTimer t : copy) {
            sb.append(sb.length() == 0 ? "" : ", ").append(t.name).append('@').append(t.deadline);
        }
        return sb.toString();
    }

    public long eventsRun() {
        return eventsRun;
    }

    /** The deadline of the next event, or {@code Long.MAX_VALUE} when none is pending. */
    public long nextDeadline() {
        return size == 0 ? Long.MAX_VALUE : heap[0].deadline;
    }

    /** Runs the earliest pending event, advancing time to it. Returns false when nothing is pending. */
    public boolean runNext() {
        if (size == 0) {
            return false;
        }
        SimTimer t = heap[0];
        removeAt(0);
        now = t.deadline;
        eventsRun++;
        t.action.run();
        return true;
    }

    /** Runs every event due at or before {@code timeNanos}, then sets the clock to it. */
    public void runUntil(long timeNanos) {
        while (size > 0 && heap[0].deadline <= timeNanos) {
            runNext();
        }
        if (timeNanos > now) {
            now = timeNanos;
        }
    }

    /** Runs {@code nanos} of simulated time. */
    public void runFor(long nanos) {
        runUntil(now + nanos);
    }

    /**
     * Runs events until none is pending or the clock would pass {@code limitNanos}.
     * Returns true when the queue went idle (a bounded run: a livelock shows up as false, not a hang).
     */
    public boolean runUntilIdle(long limitNanos) {
        while (size > 0) {
            if (heap[0].deadline > limitNanos) {
                return false;
            }
            runNext();
        }
        return true;
    }

    void arm(SimTimer t, long deadline) {
        if (t.scheduler != this) {
            throw new IllegalArgumentException("timer " + t.name + " belongs to another scheduler");
        }
        if (t.heapIndex >= 0) {
            removeAt(t.heapIndex);
        }
        t.deadline = deadline;
        t.sequence = armSequence++;
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
        }
        heap[size] = t;
        t.heapIndex = size;
        size++;
        siftUp(t.heapIndex);
    }

    void disarm(SimTimer t) {
        if (t.heapIndex >= 0) {
            removeAt(t.heapIndex);
        }
    }

    private static boolean before(SimTimer a, SimTimer b) {
        return a.deadline < b.deadline || (a.deadline == b.deadline && a.sequence < b.sequence);
    }

    private void removeAt(int i) {
        SimTimer removed = heap[i];
        size--;
        SimTimer last = heap[size];
        heap[size] = null;
        removed.heapIndex = -1;
        if (i < size) {
            heap[i] = last;
            last.heapIndex = i;
            siftDown(i);
            siftUp(last.heapIndex);
        }
    }

    private void siftUp(int i) {
        SimTimer t = heap[i];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            SimTimer p = heap[parent];
            if (!before(t, p)) {
                break;
            }
            heap[i] = p;
            p.heapIndex = i;
            i = parent;
        }
        heap[i] = t;
        t.heapIndex = i;
    }

    private void siftDown(int i) {
        SimTimer t = heap[i];
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < size && before(heap[right], heap[child])) {
                child = right;
            }
            if (!before(heap[child], t)) {
                break;
            }
            heap[i] = heap[child];
            heap[i].heapIndex = i;
            i = child;
        }
        heap[i] = t;
        t.heapIndex = i;
    }
}
