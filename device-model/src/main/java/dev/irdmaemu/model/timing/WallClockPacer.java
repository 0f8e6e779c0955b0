package dev.irdmaemu.model.timing;

import dev.irdmaemu.fw.sim.SimScheduler;

/**
 * Paces simulated time against the wall clock for a live guest (the QEMU bridge): each {@link #step()} runs the
 * events due up to "simulated start + elapsed wall time x rate" and answers how long the caller may sleep before
 * the next event is due. A thin adapter: the model itself never reads the wall clock, so runs without a pacer stay
 * deterministic.
 */
public final class WallClockPacer {
    /** The wall clock in nanoseconds (System::nanoTime in production, a fake in tests). */
    @FunctionalInterface
    public interface Clock {
        long nanos();
    }

    private final SimScheduler scheduler;
    private final Clock clock;
    private final double rate;
    private final long wallStart;
    private final long simStart;

    /** {@code rate}: simulated nanoseconds per wall nanosecond (1.0 = real time). */
    public WallClockPacer(SimScheduler scheduler, Clock clock, double rate) {
        if (!(rate > 0)) {
            throw new IllegalArgumentException("rate " + rate);
        }
        this.scheduler = scheduler;
        this.clock = clock;
        this.rate = rate;
        this.wallStart = clock.nanos();
        this.simStart = scheduler.now();
    }

    /** Runs what is due; answers the wall nanoseconds until the next event (Long.MAX_VALUE when none). */
    public long step() {
        return stepUntil(clock.nanos());
    }

    /**
     * Runs what is due up to the simulated instant of wall time {@code wallNanos} (never past the present, never
     * back): the events that came before an input known to have arrived at that wall instant, or as far as a
     * caller may go when something else holds it back. Answers as {@link #step()} does, from the simulated time
     * reached.
     */
    public long stepUntil(long wallNanos) {
        long target = simStart + (long) ((Math.min(wallNanos, clock.nanos()) - wallStart) * rate);
        scheduler.runUntil(Math.max(target, scheduler.now()));
        long next = scheduler.nextDeadline();
        if (next == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        return Math.max(0, (long) ((next - scheduler.now()) / rate));
    }

    /** The wall instant that simulated instant {@code simNanos} is paced to. */
    public long wallAt(long simNanos) {
        return wallStart + (long) ((simNanos - simStart) / rate);
    }

    /** How far simulated time lags (positive) or leads the paced target, in simulated nanoseconds. */
    public long lag() {
        return simStart + (long) ((clock.nanos() - wallStart) * rate) - scheduler.now();
    }
}
