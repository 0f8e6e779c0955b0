package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.timing.WallClockPacer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that owns a hosted node's {@link SimScheduler} while a live guest is attached. Simulated time is
 * paced against the wall clock ({@link WallClockPacer}, real time): the loop runs the events that are due, takes
 * the frames the guest posted, runs the tasks other threads handed it, and sleeps until the next event, a kick or
 * a task. Nothing outside this thread touches the model: the vhost-user threads only {@linkplain #kick kick} it,
 * other threads {@linkplain #execute post tasks}.
 *
 * <p>Simulated time does not run ahead of the wall clock, with one exception the driver layer makes: while it
 * waits for a CQP completion it runs the scheduler itself (irdma's busy-wait on the CCQ), which can put simulated
 * time a few microseconds ahead; the loop then waits for the wall clock to catch up.
 *
 * <p>Inputs come before the timers they overtake: a round first runs only the events due before the first kick it
 * has not yet taken (the wall instant the guest or the far end of a cable posted frames), then takes the frames,
 * then runs the rest. A loop that was descheduled or busy past a deadline (an offloaded TCP connection's
 * retransmission timer) thus sees the peer's ACK that was already waiting before the timer, as the device would
 * have; running the timers first had a 5 ms RTO fire on data the peer had acknowledged and resend the whole
 * flight (RFC 6298 §5 assumes the ACK is processed when it arrives).
 *
 * <p>Two loops joined by a cable ({@link #keepBehind}) are one simulation on two threads: each loop's simulated
 * time stays behind the other's {@linkplain #horizon horizon}, the earliest wall instant whose consequences the
 * other may still put on the cable (its simulated time while a round is in progress, its next event while it is
 * parked, or a kick it has not yet taken), and a frame the far end sends arrives at the far end's simulated time,
 * not at the wall time its thread got round to sending it. A far end whose thread the host has not run for a while
 * (two cores, a TCG guest on one) thus holds this one's timers back instead of letting them expire on replies it
 * has not had the CPU to send: a conservative time window as in parallel discrete-event simulation (Chandy and
 * Misra), with no lookahead. A round also never steps past a kick that came in while it ran.
 *
 * <p>A model event that throws is a bug: the loop logs it, records it ({@link #failure()}) and stops; the run
 * then reports it. A posted task that throws is logged and recorded, and the loop goes on.
 */
public final class ModelLoop implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ModelLoop.class);
    /** The longest sleep: the loop looks at its tasks at least this often even when nothing is due. */
    static final long MAX_SLEEP_NANOS = 50_000_000L;
    /**
     * The longest sleep while the far end holds this loop back with an event already due: the far end wakes it
     * when its round ends, this is the fallback.
     */
    static final long HELD_SLEEP_NANOS = 1_000_000L;
    private static final Duration JOIN = Duration.ofSeconds(10);

    private final SimScheduler scheduler;
    private final WallClockPacer.Clock clock;
    private final BooleanSupplier pollGuest;
    private final Runnable endOfRound;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    /** Conditions {@link #await} is waiting for, checked after each round; loop thread only. */
    private final ArrayList<BooleanSupplier> watchers = new ArrayList<>();
    private final AtomicBoolean kicked = new AtomicBoolean();
    /**
     * The earliest arrival among the kicks not yet taken by a poll (0: none), as a wall instant: the wall clock for a
     * guest's kick, the sender's simulated time for the far end's; written by the kicking threads.
     */
    private final AtomicLong kickedAt = new AtomicLong();
    /** From a kick to the loop's poll of the guest's rings (the kick thread's and the loop's wake-ups). */
    private final LatencyHistogram kickToPoll = new LatencyHistogram();
    /** From that poll to the end of the round (the model's work on the guest's frames, and the guest notified). */
    private final LatencyHistogram pollToRoundEnd = new LatencyHistogram();
    private final Thread thread;
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private volatile boolean running = true;
    private volatile Throwable failure;
    private WallClockPacer pacer;
    /** The loop at the other end of a cable ({@link #keepBehind}), or null. Set before either loop starts. */
    private volatile ModelLoop farEnd;
    /** While {@link #inRound}: the wall instant of this loop's simulated time, below which it sends nothing more. */
    private volatile long floor;
    /**
     * Between rounds: the wall instant of the next simulated event (Long.MAX_VALUE, the scheduler's "none", when
     * there is none), before which a parked loop sends nothing of its own accord; in the past when the thread has
     * not run since, or the far end holds it back.
     */
    private volatile long nextDue = Long.MAX_VALUE;
    private volatile boolean inRound;
    /** The far end held this loop back at its last step: wake it when a round ends. */
    private volatile boolean held;

    /**
     * A loop for {@code scheduler}, paced by {@code clock} (System::nanoTime in production). {@code pollGuest} takes
     * a batch of the guest's frames on the loop thread and answers true when more may be waiting.
     */
    public ModelLoop(String name, SimScheduler scheduler, WallClockPacer.Clock clock, BooleanSupplier pollGuest) {
        this(name, scheduler, clock, pollGuest, () -> { });
    }

    /**
     * As above, with {@code endOfRound} run on the loop thread after each round of tasks, guest frames and due
     * events, before the loop waits (the guest's port hands on what it held back to coalesce).
     */
    public ModelLoop(String name, SimScheduler scheduler, WallClockPacer.Clock clock, BooleanSupplier pollGuest,
                     Runnable endOfRound) {
        this.scheduler = scheduler;
        this.clock = clock;
        this.pollGuest = pollGuest;
        this.endOfRound = endOfRound;
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
    }

    /** Starts pacing from now and starts the thread; from now on only it touches the scheduler. */
    public void start() {
        pace();
        thread.start();
    }

    /** Starts pacing from now without the thread: a test then runs {@link #round()} itself. */
    void pace() {
        pacer = new WallClockPacer(scheduler, clock, 1.0);
    }

    /**
     * Keeps this loop's simulated time behind {@code far}'s {@linkplain #horizon horizon}: the two ends of one cable.
     * Call for both ends, before the frames flow.
     */
    public void keepBehind(ModelLoop far) {
        this.farEnd = far;
    }

    /**
     * The earliest wall instant whose consequences this loop may still put on its cable, at wall time {@code now}:
     * its simulated time while a round is in progress, else its next event (parked, it sends nothing before), or
     * the arrival of the first kick it has not yet taken if earlier; else {@code now}. A loop not running holds
     * nothing back. Any thread.
     */
    public long horizon(long now) {
        if (!running || pacer == null) {
            return now;
        }
        long h = Math.min(now, inRound ? floor : nextDue);
        long k = kickedAt.get();
        if (k != 0) {
            h = Math.min(h, k);
        }
        return h;
    }

    /** Runs {@code task} on the loop thread, soon. Any thread. */
    public void execute(Runnable task) {
        tasks.add(task);
        LockSupport.unpark(thread);
    }

    /** Runs {@code task} on the loop thread; its result or exception completes the future. Any thread. */
    public <T> CompletableFuture<T> submit(Callable<T> task) {
        CompletableFuture<T> f = new CompletableFuture<>();
        tasks.add(() -> {
            try {
                f.complete(task.call());
            } catch (Exception | Error e) {
                f.completeExceptionally(e);
            }
        });
        LockSupport.unpark(thread);
        if (!running) {
            f.completeExceptionally(new IllegalStateException("the model loop has stopped"));
        }
        return f;
    }

    /** {@link #submit} and wait for the answer; the task's exception comes back as it was thrown. */
    public <T> T call(Callable<T> task, Duration timeout) throws InterruptedException, TimeoutException {
        try {
            return submit(task).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw rethrown(e);
        }
    }

    /** A task's exception as it was thrown (a checked one wrapped). */
    private static RuntimeException rethrown(ExecutionException e) {
        Throwable c = e.getCause();
        if (c instanceof RuntimeException r) {
            return r;
        }
        if (c instanceof Error er) {
            throw er;
        }
        return new IllegalStateException(c);
    }

    /**
     * Waits until {@code probe}, run on the loop thread after each of its rounds (an event, a kick, a task, or at
     * the latest every {@value #MAX_SLEEP_NANOS} ns), answers a value {@code done} accepts, and returns that value;
     * after {@code timeout}, returns the probe's value then. The probe's exception comes back as {@link #call}'s
     * does. Any thread but the loop's.
     */
    public <T> T await(Callable<T> probe, Predicate<T> done, Duration timeout)
            throws InterruptedException, TimeoutException {
        CompletableFuture<T> hit = new CompletableFuture<>();
        execute(() -> watchers.add(() -> {
            if (hit.isDone()) {
                return true;
            }
            try {
                T v = probe.call();
                return done.test(v) && hit.complete(v);
            } catch (Exception | Error e) {
                return hit.completeExceptionally(e);
            }
        }));
        try {
            return hit.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            hit.cancel(false); // the watcher drops itself on its next check
            return call(probe, timeout);
        } catch (ExecutionException e) {
            throw rethrown(e);
        }
    }

    /** The guest posted frames or buffers: poll its port soon. Any thread; never blocks. */
    public void kick() {
        kicked(clock.nanos());
    }

    /**
     * The far end of the cable ({@link #keepBehind}) sent frames: poll soon. Called on the far end's thread; what
     * it sent arrives at the wall instant of the far end's simulated time (the frame left it then, however long its
     * round has taken in wall time since). Without a far end, as {@link #kick()}.
     */
    public void kickFromFarEnd() {
        ModelLoop far = farEnd;
        kicked(far != null && far.pacer != null ? far.pacer.wallAt(far.scheduler.now()) : clock.nanos());
    }

    private void kicked(long arrival) {
        kickedAt.accumulateAndGet(arrival, ModelLoop::earlier);
        kicked.set(true);
        LockSupport.unpark(thread);
    }

    private static long earlier(long pending, long at) {
        return pending == 0 ? at : Math.min(pending, at);
    }

    /** Wall time from a kick to the loop's poll of the guest's rings. */
    public LatencyHistogram kickToPoll() {
        return kickToPoll;
    }

    /** Wall time from a poll after a kick to the end of that round (frames handled, the guest notified). */
    public LatencyHistogram pollToRoundEnd() {
        return pollToRoundEnd;
    }

    /** True on the loop thread. */
    public boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    public Thread thread() {
        return thread;
    }

    /** The exception that stopped the loop or that a task threw, or null. */
    public Throwable failure() {
        return failure;
    }

    /** True while the loop thread runs. */
    public boolean isRunning() {
        return thread.isAlive() && running;
    }

    private void run() {
        try {
            while (running) {
                long sleep = round();
                if (!running || !tasks.isEmpty() || kicked.get()) {
                    continue;
                }
                LockSupport.parkNanos(this, sleep);
            }
        } catch (RuntimeException | Error e) {
            failure = e;
            LOG.error("the model loop stopped: {}", e.toString(), e);
        } finally {
            running = false;
            // tasks posted before the stop (a teardown, a last counter read) still run; a task posted after it
            // sees running false and fails its future itself (submit)
            runTasks();
            stopped.complete(null);
        }
    }

    /**
     * One round on the loop thread: the events due before the frames waiting came, the frames, the rest of what is
     * due, the posted tasks, the watchers; answers how long the loop may sleep. Simulated time never passes the far
     * end's horizon.
     */
    long round() {
        floor = pacer.wallAt(scheduler.now());
        inRound = true;
        long start = clock.nanos();
        long polled = 0;
        if (kicked.getAndSet(false)) {
            long at = kickedAt.getAndSet(0);
            if (at != 0) {
                kickToPoll.record(Math.max(0, start - at));
                advance(Math.min(at, limit(start)));
            }
            polled = start;
            if (pollGuest.getAsBoolean()) {
                kicked.set(true); // the budget ran out: more frames may be waiting
            }
        }
        advance(limit(clock.nanos()));
        runTasks();
        if (!watchers.isEmpty()) {
            watchers.removeIf(BooleanSupplier::getAsBoolean);
        }
        long now = clock.nanos();
        long limit = limit(now);
        long wait = advance(limit);
        endOfRound.run();
        if (polled != 0) {
            pollToRoundEnd.record(clock.nanos() - polled);
        }
        long next = scheduler.nextDeadline();
        nextDue = next == Long.MAX_VALUE ? Long.MAX_VALUE : pacer.wallAt(next);
        inRound = false;
        ModelLoop far = farEnd;
        if (far != null && far.held) {
            LockSupport.unpark(far.thread);
        }
        // Held is written before the far end's horizon is read again, and the far end ends its round before it
        // reads held: one of the two sees the other, so a wake-up is never lost.
        held = limit < now;
        if (held && limit(clock.nanos()) >= now) {
            held = false;
        }
        long sleep = Math.max(1, Math.min(wait, MAX_SLEEP_NANOS));
        return held ? Math.max(sleep, HELD_SLEEP_NANOS) : sleep;
    }

    /**
     * Runs what is due up to wall instant {@code wall} and publishes the simulated time reached. With a far end the
     * events run one at a time and the limit is taken again after each: an event that sends the far end a frame
     * moves its horizon back to that frame (its reply may come at the same instant), and this loop stops there
     * instead of running on to a limit computed before it sent.
     */
    private long advance(long wall) {
        long target = wall;
        if (farEnd != null) {
            for (long next; (next = scheduler.nextDeadline()) != Long.MAX_VALUE && pacer.wallAt(next) <= target; ) {
                scheduler.runNext();
                target = Math.min(target, limit(clock.nanos()));
            }
        }
        long wait = pacer.stepUntil(target);
        floor = pacer.wallAt(scheduler.now());
        return wait;
    }

    /**
     * How far simulated time may go at wall time {@code now}: the present, or the far end's horizon if earlier, and
     * never past a kick that came in during this round (its frames are taken first, in the next).
     */
    private long limit(long now) {
        ModelLoop far = farEnd;
        long limit = far == null ? now : Math.min(now, far.horizon(now));
        long pending = kickedAt.get();
        return pending == 0 ? limit : Math.min(limit, pending);
    }

    private void runTasks() {
        for (Runnable t; (t = tasks.poll()) != null; ) {
            try {
                t.run();
            } catch (RuntimeException e) {
                failure = e;
                LOG.error("a task on the model loop failed: {}", e.toString(), e);
            }
        }
    }

    /** Stops the loop after the tasks already posted and waits for the thread to end. Idempotent, any thread. */
    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        if (thread.isAlive() && !inLoop()) {
            try {
                stopped.get(JOIN.toMillis(), TimeUnit.MILLISECONDS);
                thread.join(JOIN.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                LOG.warn("the model loop did not stop within {} s", JOIN.toSeconds());
            }
        }
    }
}
