package dev.irdmaemu.fw.sim;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The one owner of simulated time (in nanoseconds). The device model, the CM timers and the wire all
 * schedule on it; time advances only when an event is run, never with the wall clock, so a run is
 * reproducible for a seed. Events due at the same instant run in the order they were armed.
 *
 * <p>Single-threaded by design: everything runs on the thread that calls {@code run*}. Arming, firing and
 * cancelling allocate nothing once the arrays have grown.
 *
 * <p>The pending events are a binary min-heap on (deadline, arming sequence) kept in primitive arrays: the keys
 * sit next to each other, so a sift compares without following a reference per level, and moving an entry
 * moves ints and longs only. A pending {@link SimTimer} owns a <i>slot</i> (its index in {@link #slotTimer}),
 * the heap holds slots; the one reference store per arming is the slot's timer, skipped when the slot already
 * names it (a timer that re-arms as it fires usually gets its own slot back). Reference stores into long-lived
 * arrays cost a GC write barrier each, which a heap of references paid at every level of every sift.
 */
public final class SimScheduler {
    private static final int INITIAL = 64;

    private final long seed;
    // heap position -> slot and key
    private int[] heapSlot = new int[INITIAL];
    private long[] heapDeadline = new long[INITIAL];
    private long[] heapSequence = new long[INITIAL];
    private int size;
    /** Pending background timers (in the heap): {@link #runUntilIdle} does not wait for them. */
    private int backgroundPending;
    // slot -> timer and heap position; a free slot may still name the timer that last had it
    private SimTimer[] slotTimer = new SimTimer[INITIAL];
    private int[] slotPosition = new int[INITIAL];
    private int[] freeSlots = new int[INITIAL];
    private int freeCount;
    private int slotsUsed;
    private long now;
    private long armSequence;
    private long eventsRun;
    private SimEventFifo[] fifos = new SimEventFifo[0];
    /** Stamped on every timer created while it is set ({@link #ownTimersFor}); null: timers have no owner. */
    private Object creatingOwner;

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
        return new SimTimer(this, name, action, creatingOwner);
    }

    /**
     * A periodic housekeeping timer (irdma's 60 s statistics timer, utils.c irdma_hw_stats_start_timer) that does
     * not keep the scheduler busy: {@link #runUntilIdle} answers idle when only such timers are pending, while
     * {@link #runUntil} and {@link #runNext} fire them at their deadlines like any other, and
     * {@link #pendingTimers} counts them (a leak check sees one left armed).
     */
    public SimTimer newBackgroundTimer(String name, Runnable action) {
        return new SimTimer(this, name, action, creatingOwner, true);
    }

    /** Pending background timers ({@link #newBackgroundTimer}). */
    public int pendingBackgroundTimers() {
        return backgroundPending;
    }

    /**
     * Timers created from now until {@link #endOwnership} belong to {@code owner}, so that {@link #cancelOwnedBy}
     * can disarm them all at once (a device's function reset drops what its engines had armed while other nodes on
     * the same scheduler keep theirs). Answers the previous owner, to hand back to {@link #endOwnership}. Nothing
     * is inherited: a timer created later, by an event, has no owner unless that code opens ownership itself.
     */
    public Object ownTimersFor(Object owner) {
        Object previous = creatingOwner;
        creatingOwner = owner;
        return previous;
    }

    /** Ends an {@link #ownTimersFor} scope, restoring the owner it answered. */
    public void endOwnership(Object previous) {
        creatingOwner = previous;
    }

    /** Disarms every pending timer that belongs to {@code owner}; answers how many were pending. */
    public int cancelOwnedBy(Object owner) {
        if (owner == null) {
            return 0;
        }
        SimTimer[] victims = new SimTimer[size];
        int n = 0;
        for (int i = 0; i < size; i++) {
            SimTimer t = slotTimer[heapSlot[i]];
            if (t.owner == owner) {
                victims[n++] = t;
            }
        }
        for (int i = 0; i < n; i++) {
            disarm(victims[i]);
        }
        return n;
    }

    /**
     * Pending timers that belong to {@code owner} ({@link #ownTimersFor}): what a device still has armed, for a
     * check that a teardown left nothing behind. Walks the heap; allocates nothing.
     */
    public int pendingOwnedBy(Object owner) {
        if (owner == null) {
            return 0;
        }
        int n = 0;
        for (int i = 0; i < size; i++) {
            if (slotTimer[heapSlot[i]].owner == owner) {
                n++;
            }
        }
        return n;
    }

    /** Events armed and not yet run or cancelled: pending timers and the events queued in FIFOs. */
    public int pendingTimers() {
        int n = size;
        for (SimEventFifo f : fifos) {
            // the head of a non-empty FIFO is in the heap already
            n += Math.max(0, f.size() - 1);
        }
        return n;
    }

    /** The pending events as "name@deadline", earliest first: for diagnostics when a run does not go idle. */
    public String describePending() {
        int n = pendingTimers();
        long[] deadlines = new long[n];
        long[] sequences = new long[n];
        String[] names = new String[n];
        int k = 0;
        for (int i = 0; i < size; i++) {
            SimTimer t = slotTimer[heapSlot[i]];
            deadlines[k] = heapDeadline[i];
            sequences[k] = heapSequence[i];
            names[k++] = t.name;
        }
        for (SimEventFifo f : fifos) {
            k = f.describeBehind(deadlines, sequences, names, k);
        }
        Integer[] order = new Integer[k];
        for (int i = 0; i < k; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> deadlines[x] != deadlines[y] ? Long.compare(deadlines[x], deadlines[y])
                : Long.compare(sequences[x], sequences[y]));
        StringBuilder sb = new StringBuilder();
        for (int i : order) {
            sb.append(sb.length() == 0 ? "" : ", ").append(names[i]).append('@').append(deadlines[i]);
        }
        return sb.toString();
    }

    public long eventsRun() {
        return eventsRun;
    }

    /** The deadline of the next event, or {@code Long.MAX_VALUE} when none is pending. */
    public long nextDeadline() {
        return size == 0 ? Long.MAX_VALUE : heapDeadline[0];
    }

    /** Runs the earliest pending event, advancing time to it. Returns false when nothing is pending. */
    public boolean runNext() {
        if (size == 0) {
            return false;
        }
        int slot = heapSlot[0];
        SimTimer t = slotTimer[slot];
        now = heapDeadline[0];
        removeAt(0);
        release(t);
        eventsRun++;
        t.action.run();
        return true;
    }

    /** Runs every event due at or before {@code timeNanos}, then sets the clock to it. */
    public void runUntil(long timeNanos) {
        while (size > 0 && heapDeadline[0] <= timeNanos) {
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
     * Runs events until none is pending (background timers aside: a pending one alone is idle, see
     * {@link #newBackgroundTimer}) or the clock would pass {@code limitNanos}. A background timer due before the
     * next foreground event fires on the way. Returns true when the queue went idle (a bounded run: a livelock
     * shows up as false, not a hang).
     */
    public boolean runUntilIdle(long limitNanos) {
        while (size > backgroundPending) {
            if (heapDeadline[0] > limitNanos) {
                return false;
            }
            runNext();
        }
        return true;
    }

    /** The next arming sequence number, as {@link #arm} would take it: {@link SimEventFifo} keys its entries so. */
    long takeSequence() {
        return armSequence++;
    }

    void register(SimEventFifo fifo) {
        fifos = Arrays.copyOf(fifos, fifos.length + 1);
        fifos[fifos.length - 1] = fifo;
    }

    void arm(SimTimer t, long deadline) {
        armWithSequence(t, deadline, armSequence++);
    }

    /** Arms {@code t} with a key taken earlier by {@link #takeSequence}: it runs where it would have then. */
    void armWithSequence(SimTimer t, long deadline, long sequence) {
        if (t.scheduler != this) {
            throw new IllegalArgumentException("timer " + t.name + " belongs to another scheduler");
        }
        t.deadline = deadline;
        int slot = t.slot;
        if (slot >= 0) {
            // re-arming a pending timer moves its key
            int pos = slotPosition[slot];
            removeAt(pos);
        } else {
            slot = acquire(t);
        }
        if (size == heapSlot.length) {
            int n = size * 2;
            heapSlot = Arrays.copyOf(heapSlot, n);
            heapDeadline = Arrays.copyOf(heapDeadline, n);
            heapSequence = Arrays.copyOf(heapSequence, n);
        }
        siftUp(size++, slot, deadline, sequence);
    }

    void disarm(SimTimer t) {
        if (t.slot >= 0) {
            removeAt(slotPosition[t.slot]);
            release(t);
        }
    }

    private int acquire(SimTimer t) {
        int slot;
        if (freeCount > 0) {
            slot = freeSlots[--freeCount];
        } else {
            slot = slotsUsed++;
            if (slot == slotTimer.length) {
                int n = slot * 2;
                slotTimer = Arrays.copyOf(slotTimer, n);
                slotPosition = Arrays.copyOf(slotPosition, n);
                freeSlots = Arrays.copyOf(freeSlots, n);
            }
        }
        if (slotTimer[slot] != t) {
            slotTimer[slot] = t;
        }
        t.slot = slot;
        if (t.background) {
            backgroundPending++;
        }
        return slot;
    }

    private void release(SimTimer t) {
        freeSlots[freeCount++] = t.slot;
        t.slot = -1;
        if (t.background) {
            backgroundPending--;
        }
    }

    private void removeAt(int pos) {
        size--;
        if (pos < size) {
            int slot = heapSlot[size];
            long d = heapDeadline[size];
            long q = heapSequence[size];
            if (pos > 0 && before(d, q, heapDeadline[(pos - 1) >>> 1], heapSequence[(pos - 1) >>> 1])) {
                siftUp(pos, slot, d, q);
            } else {
                siftDown(pos, slot, d, q);
            }
        }
    }

    private static boolean before(long d1, long q1, long d2, long q2) {
        return d1 < d2 || (d1 == d2 && q1 < q2);
    }

    private void place(int pos, int slot, long deadline, long sequence) {
        heapSlot[pos] = slot;
        heapDeadline[pos] = deadline;
        heapSequence[pos] = sequence;
        slotPosition[slot] = pos;
    }

    /** Puts the entry (slot, d, q) at {@code pos} or above it. */
    private void siftUp(int pos, int slot, long d, long q) {
        while (pos > 0) {
            int parent = (pos - 1) >>> 1;
            long pd = heapDeadline[parent];
            long pq = heapSequence[parent];
            if (!before(d, q, pd, pq)) {
                break;
            }
            place(pos, heapSlot[parent], pd, pq);
            pos = parent;
        }
        place(pos, slot, d, q);
    }

    /** Puts the entry (slot, d, q) at {@code pos} or below it. */
    private void siftDown(int pos, int slot, long d, long q) {
        int half = size >>> 1;
        while (pos < half) {
            int child = 2 * pos + 1;
            int right = child + 1;
            long cd = heapDeadline[child];
            long cq = heapSequence[child];
            if (right < size && before(heapDeadline[right], heapSequence[right], cd, cq)) {
                child = right;
                cd = heapDeadline[right];
                cq = heapSequence[right];
            }
            if (!before(cd, cq, d, q)) {
                break;
            }
            place(pos, heapSlot[child], cd, cq);
            pos = child;
        }
        place(pos, slot, d, q);
    }
}
