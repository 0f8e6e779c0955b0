package dev.irdmaemu.fw.sim;

/**
 * A reusable timer on simulated time. Created once by its owner ({@link SimScheduler#newTimer}) and armed,
 * re-armed or cancelled as often as needed: arming never allocates. A timer is pending at most once; arming a
 * pending timer moves its deadline.
 */
public final class SimTimer {
    final SimScheduler scheduler;
    final Runnable action;
    final String name;
    /** Whose timer this is ({@link SimScheduler#ownTimersFor}), or null. */
    final Object owner;
    /** A housekeeping timer that does not keep the scheduler busy ({@link SimScheduler#newBackgroundTimer}). */
    final boolean background;
    long deadline;
    /** The scheduler's slot while pending, -1 when idle. */
    int slot = -1;

    SimTimer(SimScheduler scheduler, String name, Runnable action, Object owner) {
        this(scheduler, name, action, owner, false);
    }

    SimTimer(SimScheduler scheduler, String name, Runnable action, Object owner, boolean background) {
        this.scheduler = scheduler;
        this.name = name;
        this.action = action;
        this.owner = owner;
        this.background = background;
    }

    /** Arms the timer to fire {@code delayNanos} after now (0 fires at the current instant, after what is due). */
    public void scheduleIn(long delayNanos) {
        if (delayNanos < 0) {
            throw new IllegalArgumentException("negative delay " + delayNanos + " for timer " + name);
        }
        scheduler.arm(this, scheduler.now() + delayNanos);
    }

    /** Arms the timer at an absolute simulated time, which must not be in the past. */
    public void scheduleAt(long timeNanos) {
        if (timeNanos < scheduler.now()) {
            throw new IllegalArgumentException("time " + timeNanos + " is before now " + scheduler.now());
        }
        scheduler.arm(this, timeNanos);
    }

    /** Disarms the timer; a no-op when it is not pending. */
    public void cancel() {
        scheduler.disarm(this);
    }

    public boolean isPending() {
        return slot >= 0;
    }

    /** The simulated time it fires at; meaningful only while pending. */
    public long deadline() {
        return deadline;
    }

    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return isPending() ? name + "@" + deadline : name + "(idle)";
    }
}
