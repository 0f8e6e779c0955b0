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
 *
 * <p>Throttling, as ice programs it (ice_hw_autogen.h GLINT_ITR / GLINT_RATE / GLINT_DYN_CTL, ice_lib.c
 * __ice_write_itr / ice_write_intrl, ice_txrx.c ice_buildreg_itr): each vector has three ITR intervals
 * (GLINT_ITR(i, vector), 2 us units; a GLINT_DYN_CTL write with ITR_INDX 0..2 also sets interval ITR_INDX to its
 * INTERVAL field) and each cause names the one it waits on (QINT_RQCTL / QINT_TQCTL / GLINT_CEQCTL ITR_INDX; 3 is no
 * ITR). A cause whose ITR timer is idle goes on at once and starts the timer; a cause while the timer runs waits for
 * it to expire, then goes on and restarts it, so a burst gives one interrupt at its start and one per interval after.
 * GLINT_RATE (INTRL_ENA, 4 us units) spaces a vector's interrupts by at least its interval. A cause that passed the
 * timers meets the INTENA gating above unchanged. SWINT_TRIG raises a software cause on the written vector, waiting on
 * SW_ITR_INDX when SW_ITR_INDX_ENA is set; INTENA_MSK keeps INTENA as it was; WB_ON_ITR asks nothing of the model
 * (it writes descriptors back at once). Timers are one {@link SimTimer} over a list of waiting vectors: nothing
 * allocates per cause.
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
    // throttling
    private final int[] itrInterval = new int[Gen2Registers.GLINT_ITR_INDEXES * VECTORS];
    private final long[] itrExpires = new long[Gen2Registers.GLINT_ITR_INDEXES * VECTORS];
    private final byte[] itrWaiting = new byte[VECTORS];
    private final int[] rate = new int[VECTORS];
    private final long[] rateNext = new long[VECTORS];
    private final boolean[] rateWaiting = new boolean[VECTORS];
    private final boolean[] waiting = new boolean[VECTORS];
    private final int[] waitList = new int[VECTORS];
    private int waitCount;
    private final int[] released = new int[VECTORS];
    private final SimTimer throttle;
    private long throttled;
    private java.util.function.IntConsumer softwareTrigger = v -> { };

    public InterruptController(SimScheduler scheduler, Trace trace, InterruptSink sink, long deliveryNanos) {
        this.scheduler = scheduler;
        this.trace = trace;
        this.sink = sink;
        this.deliveryNanos = deliveryNanos;
        this.deliver = scheduler.newTimer("msix-deliver", this::deliverDue);
        this.throttle = scheduler.newTimer("msix-itr", this::throttleExpired);
        java.util.Arrays.fill(itrExpires, Long.MIN_VALUE);
        java.util.Arrays.fill(rateNext, Long.MIN_VALUE);
    }

    // --- register handlers (named in the register table)

    public void writeDynCtl(int vector, int value) {
        if ((value & Gen2Registers.GLINT_DYN_CTL_INTENA_MSK) != 0) {
            int intena = (int) Gen2Registers.GLINT_DYN_CTL_INTENA;
            value = value & ~intena | dynCtl[vector] & intena;
        }
        int index = (int) ((value & Gen2Registers.GLINT_DYN_CTL_ITR_INDX) >>> 3);
        if (index != Gen2Registers.ITR_NONE) {
            itrInterval[index * VECTORS + vector] = (int) ((value & Gen2Registers.GLINT_DYN_CTL_INTERVAL) >>> 5);
        }
        dynCtl[vector] = value & ~(int) Gen2Registers.GLINT_DYN_CTL_SWINT_TRIG;
        if ((value & Gen2Registers.GLINT_DYN_CTL_INTENA) != 0 && pending[vector]) {
            pending[vector] = false;
            schedule(vector);
        }
        if ((value & Gen2Registers.GLINT_DYN_CTL_SWINT_TRIG) != 0) {
            softwareTrigger.accept(vector);
            int sw = (value & Gen2Registers.GLINT_DYN_CTL_SW_ITR_INDX_ENA) != 0
                    ? (int) ((value & Gen2Registers.GLINT_DYN_CTL_SW_ITR_INDX) >>> 25) : Gen2Registers.ITR_NONE;
            throttledCause(vector, sw);
        }
    }

    /**
     * Called with the vector of each SWINT_TRIG write, before its cause is raised (the ice block sets PFINT_OICR
     * SWINT when the vector is its OICR vector: ice_ethtool.c's interrupt test counts it in ice_misc_intr).
     */
    public void onSoftwareTrigger(java.util.function.IntConsumer hook) {
        this.softwareTrigger = hook == null ? v -> { } : hook;
    }

    /** GLINT_ITR(index, vector): the interval in 2 us units. */
    public int readItr(int index, int vector) {
        return itrInterval[index * VECTORS + vector];
    }

    public void writeItr(int index, int vector, int value) {
        itrInterval[index * VECTORS + vector] = (int) (value & Gen2Registers.GLINT_ITR_INTERVAL);
    }

    /** GLINT_RATE(vector): INTRL_ENA and the interval in 4 us units. */
    public int readRate(int vector) {
        return rate[vector];
    }

    public void writeRate(int vector, int value) {
        rate[vector] = value & (int) (Gen2Registers.GLINT_RATE_INTERVAL | Gen2Registers.GLINT_RATE_INTRL_ENA);
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
        throttledCause(Gen2Registers.msixVector(ctl), (int) ((ctl & Gen2Registers.GLINT_CEQCTL_ITR_INDX) >>> 11));
    }

    /** The AEQ posted an entry. */
    public void aeqCause() {
        if ((aeqCtl & Gen2Registers.PFINT_AEQCTL_CAUSE_ENA) == 0) {
            return;
        }
        throttledCause((int) (aeqCtl & Gen2Registers.PFINT_AEQCTL_MSIX_INDX),
                (int) ((aeqCtl & Gen2Registers.PFINT_AEQCTL_ITR_INDX) >>> 11));
    }

    /**
     * A cause on MSI-X vector {@code vector} from another block of the function (ice's OICR, its LAN queues): it
     * goes through the same GLINT_DYN_CTL gating as the CEQs' and the AEQ's, since the E810 has one DYN_CTL array
     * per PF for every vector (ice_hw_autogen.h GLINT_DYN_CTL, icrdma_hw.h the same offset). A vector outside the
     * array is ignored (answers false).
     */
    public boolean vectorCause(int vector) {
        return vectorCause(vector, Gen2Registers.ITR_NONE);
    }

    /**
     * A cause on {@code vector} that waits on ITR {@code itrIndex} (0..2; 3 none) of that vector, as QINT_RQCTL /
     * QINT_TQCTL name it for ice's queues. A vector outside the array is ignored (answers false).
     */
    public boolean vectorCause(int vector, int itrIndex) {
        if (vector < 0 || vector >= VECTORS) {
            return false;
        }
        throttledCause(vector, itrIndex & 3);
        return true;
    }

    /** The ITR stage: a running timer of the cause's index holds it back until it expires. */
    private void throttledCause(int vector, int itrIndex) {
        if (itrIndex < Gen2Registers.GLINT_ITR_INDEXES) {
            int slot = itrIndex * VECTORS + vector;
            int interval = itrInterval[slot];
            if (interval != 0) {
                long now = scheduler.now();
                if (now < itrExpires[slot]) {
                    itrWaiting[vector] |= (byte) (1 << itrIndex);
                    throttled++;
                    await(vector, itrExpires[slot]);
                    return;
                }
                itrExpires[slot] = now + interval * Gen2Registers.ITR_GRANULE_NANOS;
            }
        }
        rateLimited(vector);
    }

    /** The INTRL stage: a vector that fired less than its GLINT_RATE interval ago waits for the rest of it. */
    private void rateLimited(int vector) {
        int r = rate[vector];
        if ((r & Gen2Registers.GLINT_RATE_INTRL_ENA) != 0 && (r & Gen2Registers.GLINT_RATE_INTERVAL) != 0) {
            long now = scheduler.now();
            if (now < rateNext[vector]) {
                rateWaiting[vector] = true;
                throttled++;
                await(vector, rateNext[vector]);
                return;
            }
        }
        cause(vector);
    }

    private void await(int vector, long deadline) {
        if (!waiting[vector]) {
            waiting[vector] = true;
            waitList[waitCount++] = vector;
        }
        if (!throttle.isPending() || deadline < throttle.deadline()) {
            throttle.scheduleAt(deadline);
        }
    }

    /** Releases every vector whose ITR or INTRL wait is over; re-arms for the earliest one left. */
    private void throttleExpired() {
        long now = scheduler.now();
        long next = Long.MAX_VALUE;
        int kept = 0;
        int out = 0;
        for (int i = 0; i < waitCount; i++) {
            int v = waitList[i];
            boolean release = false;
            int bits = itrWaiting[v];
            for (int index = 0; index < Gen2Registers.GLINT_ITR_INDEXES; index++) {
                if ((bits & 1 << index) == 0) {
                    continue;
                }
                int slot = index * VECTORS + v;
                if (now >= itrExpires[slot]) {
                    bits &= ~(1 << index);
                    // the expiry with a cause waiting fires and starts the next interval
                    itrExpires[slot] = now + itrInterval[slot] * Gen2Registers.ITR_GRANULE_NANOS;
                    release = true;
                } else {
                    next = Math.min(next, itrExpires[slot]);
                }
            }
            itrWaiting[v] = (byte) bits;
            if (rateWaiting[v]) {
                if (now >= rateNext[v]) {
                    rateWaiting[v] = false;
                    release = true;
                } else {
                    next = Math.min(next, rateNext[v]);
                }
            }
            if (release) {
                released[out++] = v;
            }
            if (bits != 0 || rateWaiting[v]) {
                waitList[kept++] = v;
            } else {
                waiting[v] = false;
            }
        }
        waitCount = kept;
        if (next != Long.MAX_VALUE) {
            throttle.scheduleAt(next);
        }
        for (int i = 0; i < out; i++) {
            rateLimited(released[i]);
        }
    }

    /** Causes an ITR or INTRL interval held back so far. */
    public long throttledCauses() {
        return throttled;
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
        int r = rate[vector];
        if ((r & Gen2Registers.GLINT_RATE_INTRL_ENA) != 0) {
            rateNext[vector] = scheduler.now() + (r & Gen2Registers.GLINT_RATE_INTERVAL)
                    * Gen2Registers.INTRL_GRANULE_NANOS;
        }
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
