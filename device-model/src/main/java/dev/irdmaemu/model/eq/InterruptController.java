package dev.irdmaemu.model.eq;

import dev.irdmaemu.fw.bus.InterruptSink;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.sim.SimTimer;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;

/**
 * MSI-X routing of the RDMA function: GLINT_CEQCTL(ceq) and PFINT_AEQCTL name the vector of each cause and
 * enable it; GLINT_DYN_CTL(vector) INTENA arms the vector (icrdma_hw.c icrdma_ena_irq writes INTENA | CLEARPBA
 * after each DPC; icrdma_disable_irq writes 0). A vector fires once and disarms itself until the driver re-arms
 * it; a cause raised while the vector is disarmed stays pending and fires when INTENA is written (modelled choice:
 * nothing the device posted is left without an interrupt). Delivery costs {@code deliveryNanos} on the scheduler.
 */
public final class InterruptController {
    public static final int VECTORS = 2048;
    public static final int CEQS = 2048;

    private final SimScheduler scheduler;
    private final Trace trace;
    private final InterruptSink sink;
    private final int[] dynCtl = new int[VECTORS];
    private final int[] ceqCtl = new int[CEQS];
    private int aeqCtl;
    private final boolean[] pending = new boolean[VECTORS];
    private final boolean[] due = new boolean[VECTORS];
    private final int[] dueList = new int[VECTORS];
    private int dueCount;
    private final SimTimer deliver;
    private final long deliveryNanos;
    private final long[] raised = new long[VECTORS];

    public InterruptController(SimScheduler scheduler, Trace trace, InterruptSink sink, long deliveryNanos) {
        this.scheduler = scheduler;
        this.trace = trace;
        this.sink = sink;
        this.deliveryNanos = deliveryNanos;
        this.deliver = scheduler.newTimer("msix-deliver", this::deliverDue);
    }

    // --- register handlers (named in the register table)

    public void writeDynCtl(int vector, int value) {
        dynCtl[vector] = value;
        if ((value & Gen2Registers.GLINT_DYN_CTL_INTENA) != 0 && pending[vector]) {
            pending[vector] = false;
            schedule(vector);
        }
    }

    public int readDynCtl(int vector) {
        return dynCtl[vector];
    }

    public void writeCeqCtl(int ceq, int value) {
        ceqCtl[ceq] = value;
    }

    public int readCeqCtl(int ceq) {
        return ceqCtl[ceq];
    }

    public void writeAeqCtl(int value) {
        aeqCtl = value;
    }

    public int readAeqCtl() {
        return aeqCtl;
    }

    // --- causes

    /** CEQ {@code ceq} posted an entry. */
    public void ceqCause(int ceq) {
        if (ceq < 0 || ceq >= CEQS) {
            return;
        }
        int ctl = ceqCtl[ceq];
        if (!Gen2Registers.causeEnabled(ctl)) {
            return;
        }
        cause(Gen2Registers.msixVector(ctl));
    }

    /** The AEQ posted an entry. */
    public void aeqCause() {
        if ((aeqCtl & Gen2Registers.PFINT_AEQCTL_CAUSE_ENA) == 0) {
            return;
        }
        cause((int) (aeqCtl & Gen2Registers.PFINT_AEQCTL_MSIX_INDX));
    }

    /**
     * A cause on MSI-X vector {@code vector} from another block of the function (ice's OICR, its LAN queues): it
     * goes through the same GLINT_DYN_CTL gating as the CEQs' and the AEQ's, since the E810 has one DYN_CTL array
     * per PF for every vector (ice_hw_autogen.h GLINT_DYN_CTL, icrdma_hw.h the same offset). A vector outside the
     * array is ignored (answers false).
     */
    public boolean vectorCause(int vector) {
        if (vector < 0 || vector >= VECTORS) {
            return false;
        }
        cause(vector);
        return true;
    }

    private void cause(int vector) {
        if ((dynCtl[vector] & Gen2Registers.GLINT_DYN_CTL_INTENA) == 0) {
            pending[vector] = true;
            return;
        }
        schedule(vector);
    }

    private void schedule(int vector) {
        // The vector is masked from the moment it is due until the driver re-arms it.
        dynCtl[vector] &= ~(int) Gen2Registers.GLINT_DYN_CTL_INTENA;
        if (!due[vector]) {
            due[vector] = true;
            dueList[dueCount++] = vector;
        }
        if (!deliver.isPending()) {
            deliver.scheduleIn(deliveryNanos);
        }
    }

    private void deliverDue() {
        int n = dueCount;
        dueCount = 0;
        for (int i = 0; i < n; i++) {
            int v = dueList[i];
            if (due[v]) {
                due[v] = false;
                raised[v]++;
                TraceEvent t = trace.start(TraceKind.INTERRUPT);
                if (t != null) {
                    t.num("vector", v).emit();
                }
                sink.raise(v);
            }
        }
    }

    public boolean pending(int vector) {
        return pending[vector];
    }

    public long raisedCount(int vector) {
        return raised[vector];
    }

    SimScheduler scheduler() {
        return scheduler;
    }
}
