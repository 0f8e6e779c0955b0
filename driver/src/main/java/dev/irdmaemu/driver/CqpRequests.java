package dev.irdmaemu.driver;

import static dev.irdmaemu.driver.IrdmaDriver.CQP_COMPL_WAIT_NANOS;
import static dev.irdmaemu.driver.IrdmaDriver.CQP_ENTRIES;
import static dev.irdmaemu.driver.IrdmaDriver.CQP_TIMEOUT_THRESHOLD;

import dev.irdmaemu.fw.sim.SimTimer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CQP's requests by WQE index (utils.c struct irdma_cqp_request as irdma_alloc_and_get_cqp_request hands them
 * out): each completion taken from the CCQ is kept for the request it names, for its waiter or for its callback
 * (hw.c irdma_cqp_ce_handler -> irdma_complete_cqp_request); the callbacks of requests posted without waiting run in
 * completion order from the interrupt handler. Over those requests runs the progress count of ctrl.c
 * irdma_check_cqp_progress, whose threshold is the CQP's timeout (utils.c irdma_wait_event: a reset is requested and
 * the outstanding requests fail); a teardown drops what is left (utils.c irdma_cleanup_pending_cqp_op).
 */
final class CqpRequests {
    private static final Logger LOG = LoggerFactory.getLogger(IrdmaDriver.class);

    private final CqpChannel cqp;
    private final ResetRequests resets;
    private IrdmaDpc dpc;
    /** The last completion of each WQE index. */
    private final CcqCqeInfo[] info = new CcqCqeInfo[CQP_ENTRIES];
    /** A waited op's completion polled by another op's wait (a timer that ran during it), kept for its waiter. */
    private final boolean[] kept = new boolean[CQP_ENTRIES];
    /** cqp_request->callback_fcn of the requests posted without waiting; null for a waited op. */
    private final IrdmaDriver.CqpCallback[] callback = new IrdmaDriver.CqpCallback[CQP_ENTRIES];
    /** cqp_request->info.cqp_cmd's name of each request posted without waiting, for its timeout. */
    private final String[] name = new String[CQP_ENTRIES];
    /** A request posted without waiting is in the due FIFO (completed, or failed by a timeout). */
    private final boolean[] due = new boolean[CQP_ENTRIES];
    /** A due request that will not complete: its callback gets {@link #failure}. */
    private final boolean[] failed = new boolean[CQP_ENTRIES];
    /** Completed requests whose callback has not run yet, a FIFO of WQE indexes. */
    private final int[] dueFifo = new int[CQP_ENTRIES];
    private int dueHead;
    private int dueCount;
    private int pending;
    private long callbacksRun;
    private long timeouts;
    private CqpException failure;
    /** The posted requests' progress check (struct irdma_cqp_timeout over them), every CQP_COMPL_WAIT_NANOS. */
    private final SimTimer watchdog;
    private long watchdogSeen;
    private int watchdogCount;

    CqpRequests(IrdmaHw hw, CqpChannel cqp, ResetRequests resets) {
        this.cqp = cqp;
        this.resets = resets;
        for (int i = 0; i < CQP_ENTRIES; i++) {
            info[i] = new CcqCqeInfo();
        }
        this.watchdog = hw.scheduler.newBackgroundTimer("irdma-cqp-progress", this::watchdogTick);
    }

    void interrupts(IrdmaDpc handler) {
        this.dpc = handler;
    }

    /** A WQE index taken for a new request: whatever its last request left is forgotten. */
    void reuse(int index) {
        kept[index] = false;
        callback[index] = null;
        due[index] = false;
        failed[index] = false;
    }

    /** irdma_handle_cqp_op for a request allocated with wait = false: its callback and name; the count starts. */
    void posted(int index, String opName, IrdmaDriver.CqpCallback done) {
        callback[index] = done;
        name[index] = opName;
        pending++;
        if (!watchdog.isPending()) {
            watchdogSeen = cqp.completedOps();
            watchdogCount = 0;
            watchdog.scheduleIn(CQP_COMPL_WAIT_NANOS);
        }
    }

    /** The slot a completion for {@code wqe} is recorded in. */
    CcqCqeInfo slot(int wqe) {
        return info[wqe];
    }

    /** The completion another wait kept for the waited request at {@code index}, or NOT_YET. */
    CcqPoll takeKept(int index) {
        if (!kept[index]) {
            return CcqPoll.Empty.NOT_YET;
        }
        kept[index] = false;
        return info[index];
    }

    /** One CCQ CQE for a request other than a waited-for one: kept for its waiter, or queued for its callback. */
    void record(int wqe, boolean error, int major, int minor, long ret) {
        info[wqe].set(wqe, error, major, minor, ret);
        if (callback[wqe] != null && due[wqe]) {
            // already failed by a timeout: its callback has been told, the late completion changes nothing
            LOG.debug("late CCQ completion for WQE {} ({}), after its timeout", wqe, name[wqe]);
        } else if (callback[wqe] != null) {
            due[wqe] = true;
            dueFifo[(dueHead + dueCount) % CQP_ENTRIES] = wqe;
            dueCount++;
            dpc.defer();
        } else {
            kept[wqe] = true;
        }
    }

    /** The due callbacks of requests posted without waiting, in completion order; one may post or wait for ops. */
    void runDue() {
        while (dueCount > 0) {
            int wqe = dueFifo[dueHead];
            dueHead = (dueHead + 1) % CQP_ENTRIES;
            dueCount--;
            IrdmaDriver.CqpCallback cb = callback[wqe];
            boolean fail = failed[wqe];
            callback[wqe] = null;
            due[wqe] = false;
            failed[wqe] = false;
            pending--;
            callbacksRun++;
            if (pending == 0) {
                watchdog.cancel();
            }
            if (fail) {
                cb.failed(failure);
            } else {
                CcqCqeInfo c = info[wqe];
                cb.completed(c.error(), c.majorCode(), c.minorCode(), c.opReturnValue());
            }
        }
    }

    /**
     * The CQP timed out (utils.c irdma_wait_event at its threshold): rf->reset set and request_reset called if it was
     * clear. The requests posted without waiting are failed with {@code cause} (their callbacks run from the
     * interrupt handler, never inside the caller's op): irdma frees them silently when the CQP goes
     * (irdma_cleanup_pending_cqp_op), this driver tells their owners instead, so that no caller waits on a
     * completion that will not come.
     */
    void timedOut(CqpException cause) {
        timeouts++;
        if (failure != null) {
            return;
        }
        LOG.warn("CQP made no progress for {} steps of {} ms ({} requested, {} completed): {}; requesting a reset",
                CQP_TIMEOUT_THRESHOLD, CQP_COMPL_WAIT_NANOS / 1_000_000, cqp.opsPosted(), cqp.completedOps(),
                cause.getMessage());
        failure = cause;
        for (int i = 0; i < CQP_ENTRIES; i++) {
            if (callback[i] != null && !due[i]) {
                failed[i] = true;
                due[i] = true;
                dueFifo[(dueHead + dueCount) % CQP_ENTRIES] = i;
                dueCount++;
            }
        }
        if (dueCount > 0) {
            dpc.deferAndSchedule();
        }
        watchdog.cancel();
        resets.request(ResetCause.of(ResetCause.Reason.CQP_TIMEOUT, cause), true);
    }

    /**
     * The progress check over requests posted without waiting, every {@link IrdmaDriver#CQP_COMPL_WAIT_NANOS} while
     * any is outstanding: ctrl.c irdma_check_cqp_progress's count (reset by any completion, raised while
     * completed_ops lags requested_ops). irdma itself runs that check only inside a waiter (irdma_wait_event); a
     * posted request that never completes is noticed there, by the next waited op. This driver counts for the posted
     * ones too, with the same step and threshold, so a lost completion cannot go unnoticed when no op is waited for.
     * It keeps counting after a reset request that did not come from a timeout (the CQP still answers then, and no
     * waited op will come to notice a lost completion), and stops once the CQP has been given up.
     */
    private void watchdogTick() {
        if (pending == 0 || failure != null) {
            return;
        }
        long completed = cqp.completedOps();
        if (completed != watchdogSeen) {
            watchdogSeen = completed;
            watchdogCount = 0;
        } else if (watchdogSeen != cqp.opsPosted()) {
            watchdogCount++;
        }
        if (watchdogCount >= CQP_TIMEOUT_THRESHOLD) {
            timedOut(new CqpException(CqpException.Kind.TIMEOUT, oldestPendingName(), 0, 0));
            return;
        }
        watchdog.scheduleIn(CQP_COMPL_WAIT_NANOS);
    }

    /** The name of the oldest request posted without waiting that is still outstanding (for the exception). */
    private String oldestPendingName() {
        // the slot at the CQP's head is the oldest (the next to be reused), then onwards
        int head = cqp.head();
        for (int n = CQP_ENTRIES; n >= 1; n--) {
            int i = Math.floorMod(head - n, CQP_ENTRIES);
            if (callback[i] != null && !due[i]) {
                return name[i];
            }
        }
        return "posted request";
    }

    /**
     * utils.c irdma_cleanup_pending_cqp_op: the requests posted without waiting that never completed are freed
     * (irdma_free_pending_cqp_request completes only waiters; a callback_fcn is not called).
     */
    void dropPending() {
        for (int i = 0; i < CQP_ENTRIES; i++) {
            if (callback[i] != null) {
                callback[i] = null;
                due[i] = false;
                failed[i] = false;
            }
        }
        dueCount = 0;
        pending = 0;
    }

    void stopWatchdog() {
        watchdog.cancel();
    }

    int pending() {
        return pending;
    }

    long callbacksRun() {
        return callbacksRun;
    }

    long timeouts() {
        return timeouts;
    }
}
