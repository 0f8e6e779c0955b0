package dev.irdmaemu.fw.sim;

import java.util.function.IntConsumer;

/**
 * A queue of events on one {@link SimScheduler} whose deadlines never go down, such as the frames one port puts
 * on the wire, each delivered a fixed delay after the one before it: the scheduler's heap holds only the head,
 * not one entry per event. Each event carries an int token for its owner (a frame buffer's index, say).
 *
 * <p>Order is exactly that of one timer per event: {@link #add} keys each event with the arming sequence a
 * timer armed at that moment would have taken, and the head enters the heap under that key. Events of other
 * timers due at the same instant run before or after it as they would have. Arming allocates nothing once the
 * ring has grown.
 */
public final class SimEventFifo {
    private final SimScheduler scheduler;
    private final String name;
    private final IntConsumer action;
    private final SimTimer head;
    private int[] tokens = new int[16];
    private long[] deadlines = new long[16];
    private long[] sequences = new long[16];
    private int first;
    private int count;

    public SimEventFifo(SimScheduler scheduler, String name, IntConsumer action) {
        this.scheduler = scheduler;
        this.name = name;
        this.action = action;
        this.head = scheduler.newTimer(name, this::fire);
        scheduler.register(this);
    }

    /**
     * Queues the event {@code token} at {@code deadline}, which must not be in the past nor before the deadline
     * of the event queued last.
     */
    public void add(int token, long deadline) {
        if (deadline < scheduler.now()) {
            throw new IllegalArgumentException("time " + deadline + " is before now " + scheduler.now());
        }
        int mask = tokens.length - 1;
        if (count > 0 && deadline < deadlines[(first + count - 1) & mask]) {
            throw new IllegalArgumentException(name + ": deadline " + deadline + " before the last queued, "
                    + deadlines[(first + count - 1) & mask]);
        }
        if (count == tokens.length) {
            grow();
            mask = tokens.length - 1;
        }
        long sequence = scheduler.takeSequence();
        int at = (first + count) & mask;
        tokens[at] = token;
        deadlines[at] = deadline;
        sequences[at] = sequence;
        count++;
        if (count == 1) {
            scheduler.armWithSequence(head, deadline, sequence);
        }
    }

    /** Events queued and not yet run. */
    public int size() {
        return count;
    }

    /** The deadline of the last event queued; meaningful only when {@link #size()} is not 0. */
    public long lastDeadline() {
        return deadlines[(first + count - 1) & (tokens.length - 1)];
    }

    private void fire() {
        int token = tokens[first];
        first = (first + 1) & (tokens.length - 1);
        count--;
        if (count > 0) {
            scheduler.armWithSequence(head, deadlines[first], sequences[first]);
        }
        action.accept(token);
    }

    private void grow() {
        int n = tokens.length;
        int[] t = new int[2 * n];
        long[] d = new long[2 * n];
        long[] q = new long[2 * n];
        for (int i = 0; i < count; i++) {
            int from = (first + i) & (n - 1);
            t[i] = tokens[from];
            d[i] = deadlines[from];
            q[i] = sequences[from];
        }
        tokens = t;
        deadlines = d;
        sequences = q;
        first = 0;
    }

    /** Adds the events queued behind the head (the head is in the heap) to the scheduler's diagnostics. */
    int describeBehind(long[] d, long[] q, String[] names, int k) {
        for (int i = 1; i < count; i++) {
            int at = (first + i) & (tokens.length - 1);
            d[k] = deadlines[at];
            q[k] = sequences[at];
            names[k++] = name;
        }
        return k;
    }

    @Override
    public String toString() {
        return name + "(" + count + " queued)";
    }
}
