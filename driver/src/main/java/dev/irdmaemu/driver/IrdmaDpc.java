package dev.irdmaemu.driver;

import static dev.irdmaemu.driver.IrdmaDriver.AEQ_VECTOR;
import static dev.irdmaemu.driver.IrdmaDriver.CEQ0_VECTOR;

import dev.irdmaemu.fw.bus.InterruptSink;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.fw.sim.SimTimer;

/**
 * The interrupt handlers (hw.c irdma_dpc for the AEQ's vector, irdma_ceq_dpc for CEQ 0's), run as the tasklet runs
 * them: after the hard IRQ returns, on the scheduler, for the vectors raised since they last ran. Each drains its
 * queue ({@link Aeq#drain}, {@link Ceq#drain}) and re-enables only its own vector (irdma_ena_intr). The callbacks of
 * requests posted without waiting run from the CCQ's handler, before its arm; those whose completions a waited op
 * polled (or a timeout failed) run last here (irdma runs them inside the waiter's irdma_cqp_ce_handler; this driver
 * defers them so that no callback runs inside a caller's op). While a CQP op is waited for, or before bring-up ends,
 * the handler only notes that it has work.
 */
final class IrdmaDpc {
    private final IrdmaHw hw;
    private final CqpChannel cqp;
    private final SimTimer timer;
    private Aeq aeq;
    private Ceq ceq;
    private CqpRequests requests;
    /** The vectors raised since their handlers last ran, one bit each (vector 0: the AEQ's, 1: CEQ 0's). */
    private int vectorsRaised;
    private boolean deferred;
    private boolean up;

    IrdmaDpc(IrdmaHw hw, CqpChannel cqp) {
        this.hw = hw;
        this.cqp = cqp;
        this.timer = hw.scheduler.newTimer("irdma-driver-irq", this::handle);
    }

    void wire(Aeq a, Ceq c, CqpRequests r) {
        this.aeq = a;
        this.ceq = c;
        this.requests = r;
    }

    /** The sink the device raises vectors on: the handler is scheduled, not run (the tasklet follows the IRQ). */
    InterruptSink sink() {
        return vector -> {
            if (vector == AEQ_VECTOR || vector == CEQ0_VECTOR) {
                vectorsRaised |= 1 << vector;
            }
            if (!timer.isPending()) {
                timer.scheduleIn(0);
            }
        };
    }

    /** Both handlers run as if both vectors were raised (a device without this driver's interrupt sink). */
    void poll() {
        vectorsRaised |= 1 << AEQ_VECTOR | 1 << CEQ0_VECTOR;
        handle();
    }

    /** Bring-up is over: the handler answers, and first looks at anything that arrived during it. */
    void start() {
        up = true;
        timer.scheduleIn(0);
    }

    /** The driver stops answering its vectors (remove, or a driver that lost its IRQs). */
    void stop() {
        up = false;
        timer.cancel();
    }

    void cancel() {
        timer.cancel();
    }

    boolean up() {
        return up;
    }

    /** The handler has work that must wait for the op in progress. */
    void defer() {
        deferred = true;
    }

    /** The op that deferred the handler is over: it runs now, if it was deferred and the driver is up. */
    void kickIfDeferred() {
        if (deferred && up) {
            deferred = false;
            if (!timer.isPending()) {
                timer.scheduleIn(0);
            }
        }
    }

    /** Work for the handler that is not a completion: scheduled at once unless an op is waited for. */
    void deferAndSchedule() {
        deferred = true;
        if (!cqp.inOp() && up && !timer.isPending()) {
            timer.scheduleIn(0);
        }
    }

    private void handle() {
        if (cqp.inOp() || !up) {
            // A CQP op is being waited for (the CM called us): hand nothing up re-entrantly; the handler runs
            // again once the op has completed (irdma defers the same work to its tasklet).
            deferred = true;
            return;
        }
        int vectors = vectorsRaised;
        vectorsRaised = 0;
        if ((vectors & 1 << AEQ_VECTOR) != 0) {
            aeq.drain();
            hw.write(Gen2Register.GLINT_DYN_CTL, AEQ_VECTOR, Gen2Registers.dynCtlEnable(0));
        }
        if ((vectors & 1 << CEQ0_VECTOR) != 0) {
            ceq.drain();
            hw.write(Gen2Register.GLINT_DYN_CTL, CEQ0_VECTOR, Gen2Registers.dynCtlEnable(0));
        }
        requests.runDue();
    }
}
