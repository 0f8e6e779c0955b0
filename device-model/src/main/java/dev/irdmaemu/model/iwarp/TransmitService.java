package dev.irdmaemu.model.iwarp;

import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.sim.SimTimer;

/**
 * When one QP's transmit engine runs, on simulated time, as siw_qp_tx.c schedules a QP's transmit work
 * (siw_sq_start wakes the tx thread, siw_run_sq works the QP in siw_qp_sq_process, which also answers the queued
 * Read Requests): a service event lets the {@link SendQueue} and the {@link ReadResponder} take turns unit by unit
 * (Read Responses the peer asked for interleaved with SQ work), at most {@link #BATCH} units, and keeps the engine
 * busy for what their steps charged to its {@link ServiceCost}. A doorbell, TCP's send space, a Read Response or
 * Request, an acknowledgment that lifts a fence kick it again, not before the engine finished its last batch.
 * Allocation-free.
 */
final class TransmitService {
    /** FPDUs (or local WQEs) one service event works through before it yields to the rest of the model. */
    static final int BATCH = 32;

    private final IwarpQp q;
    private final SimScheduler scheduler;
    private final SimTimer timer;
    /** What the current service event's steps cost: they charge it, the service reads it. */
    private final ServiceCost cost = new ServiceCost();

    private long busyUntil;
    private boolean preferResponder;

    TransmitService(IwarpQp q, SimScheduler scheduler) {
        this.q = q;
        this.scheduler = scheduler;
        this.timer = scheduler.newTimer("iwarp-qp", this::service);
    }

    /** Asks for a service event {@code delay} ns from now, not before the engine finished what it is doing. */
    void kick(long delay) {
        if (q.runState().stopped()) {
            return;
        }
        long at = Math.max(scheduler.now() + delay, busyUntil);
        if (!timer.isPending() || timer.deadline() > at) {
            timer.scheduleAt(at);
        }
    }

    /** No further service event (the QP stopped, closes, or goes). */
    void cancel() {
        timer.cancel();
    }

    private void service() {
        QpRunState runState = q.runState();
        if (runState.stopped()) {
            return;
        }
        SendQueue sq = q.sendQueue();
        ReadResponder responder = q.responder();
        cost.reset();
        int budget = BATCH;
        boolean more = true;
        while (budget > 0) {
            StepOutcome o;
            if (preferResponder) {
                o = responder.step(cost);
                if (o != StepOutcome.MOVED && !runState.stopped()) {
                    o = sq.step(cost);
                }
            } else {
                o = sq.step(cost);
                if (o != StepOutcome.MOVED && !runState.stopped()) {
                    o = responder.step(cost);
                }
            }
            if (o != StepOutcome.MOVED) {
                more = false;
                break;
            }
            preferResponder = !preferResponder;
            budget--;
        }
        busyUntil = scheduler.now() + cost.nanos();
        if (more && !runState.stopped()) {
            timer.scheduleAt(busyUntil);
        }
    }
}
