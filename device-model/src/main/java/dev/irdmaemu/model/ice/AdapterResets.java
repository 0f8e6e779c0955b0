package dev.irdmaemu.model.ice;

import static dev.irdmaemu.fw.reg.IceRegister.*;

import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.sim.SimTimer;
import java.util.ArrayList;
import java.util.List;

/**
 * The resets whose scope is the whole adapter, shared by the firmware of its PFs: the core reset (CORER) and the
 * global reset (GLOBR) a driver triggers through GLGEN_RTRIG, and the EMP reset (EMPR) the firmware performs itself.
 * Followed from ice's side (Linux 7.3): ice_common.c ice_reset writes the trigger bit and ice_check_reset polls
 * GLGEN_RSTAT until DEVSTATE reads 0, then GLNVM_ULD until every reset-done bit is set; ice_main.c ice_misc_intr
 * takes PFINT_OICR GRST as the reset's warning and reads the kind from GLGEN_RSTAT RESET_TYPE, and
 * ice_reset_subtask rebuilds the PF once ice_check_reset passes.
 *
 * <p>A reset runs in two steps. The trigger is the warning: the trigger bit reads back set, GLGEN_RSTAT shows
 * DEVSTATE "in reset" with the kind, GLNVM_ULD lacks the reset's done bits, and every PF raises GRST on its misc
 * vector. {@link #WINDOW_NANOS} of simulated time later (at once when no scheduler is given) the reset is done: each
 * PF forgets what the reset clears ({@link IceFirmware}), the trigger bits clear themselves, DEVSTATE reads 0 and
 * RESET_TYPE keeps the kind for ice's interrupt handler. A trigger during the window joins the reset under way, the
 * larger kind winning, as ice_reset_subtask performs the largest one requested. GLGEN_RTRIG has no EMPR bit
 * (ice_hw_autogen.h defines CORER and GLOBR only); {@link #trigger(Kind)} starts one as the firmware would.
 */
public final class AdapterResets {
    /** The warning window: far inside the (GRSTDEL + 10) x 100 ms ice_check_reset waits for DEVSTATE. */
    public static final long WINDOW_NANOS = 10_000_000L;
    /** GLGEN_RSTAT DEVSTATE while a reset is under way (any value but 0 is "not active" to ice). */
    static final int DEVSTATE_IN_RESET = 1;

    /** What GLGEN_RSTAT RESET_TYPE reports (ice_type.h enum ice_reset_req): the last reset, POR until one. */
    public enum Kind {
        POR(0, 0),
        CORER(1, GLNVM_ULD_CORER_DONE_M),
        GLOBR(2, GLNVM_ULD_GLOBR_DONE_M | GLNVM_ULD_CORER_DONE_M),
        EMPR(3, GLNVM_ULD_GLOBR_DONE_M | GLNVM_ULD_CORER_DONE_M);

        private final int resetType;
        private final int uldBitsCleared;

        Kind(int resetType, int uldBitsCleared) {
            this.resetType = resetType;
            this.uldBitsCleared = uldBitsCleared;
        }

        /** The RESET_TYPE field value. */
        public int resetType() {
            return resetType;
        }
    }

    private final List<IceFirmware> functions = new ArrayList<>();
    private SimTimer window;
    private Kind last = Kind.POR;
    private boolean underWay;
    private long resets;

    void join(IceFirmware f) {
        if (!functions.contains(f)) {
            functions.add(f);
        }
    }

    /** Makes {@code f} one of this adapter's PFs, leaving the adapter it was part of (the PFs of one E810). */
    public void adopt(IceFirmware f) {
        f.adapterResets.functions.remove(f);
        f.adapterResets = this;
        join(f);
    }

    /**
     * Runs the warning window on {@code scheduler}'s simulated time (the model's timing engine) from now on;
     * without one, a reset completes as it is triggered.
     */
    public void useScheduler(SimScheduler scheduler) {
        if (window == null && scheduler != null) {
            window = scheduler.newTimer("adapter-reset", this::complete);
        }
    }

    /** A GLGEN_RTRIG write: GLOBR wins over CORER; other bits are ignored. */
    void triggerWritten(int value) {
        if ((value & GLGEN_RTRIG_GLOBR_M) != 0) {
            trigger(Kind.GLOBR);
        } else if ((value & GLGEN_RTRIG_CORER_M) != 0) {
            trigger(Kind.CORER);
        }
    }

    /** Starts a reset of {@code kind} (POR is not one a driver or firmware can start: ignored). */
    public void trigger(Kind kind) {
        if (kind == Kind.POR) {
            return;
        }
        if (underWay) {
            if (kind.ordinal() > last.ordinal()) {
                last = kind;
            }
            return;
        }
        last = kind;
        underWay = true;
        resets++;
        for (IceFirmware f : List.copyOf(functions)) {
            f.raiseOicr(PFINT_OICR_GRST_M); // ice_misc_intr reads GLGEN_RSTAT RESET_TYPE on it
        }
        if (window == null) {
            complete();
        } else {
            window.scheduleIn(WINDOW_NANOS);
        }
    }

    private void complete() {
        if (!underWay) {
            return;
        }
        underWay = false;
        for (IceFirmware f : List.copyOf(functions)) {
            f.adapterReset(last);
        }
    }

    /** GLGEN_RTRIG as read: the trigger bit of the reset under way, 0 once it is done. */
    int triggerBits() {
        if (!underWay) {
            return 0;
        }
        return last == Kind.CORER ? GLGEN_RTRIG_CORER_M : last == Kind.GLOBR ? GLGEN_RTRIG_GLOBR_M : 0;
    }

    /** GLGEN_RSTAT: DEVSTATE (0 when active) and RESET_TYPE. */
    int status() {
        return (underWay ? DEVSTATE_IN_RESET : 0) | last.resetType << GLGEN_RSTAT_RESET_TYPE_S;
    }

    /** GLNVM_ULD: every done bit, less the reset's own (and PE_DONE) while it is under way. */
    int resetsDone() {
        return underWay ? IceFirmware.ULD_ALL_DONE & ~(last.uldBitsCleared | GLNVM_ULD_PE_DONE_M)
                : IceFirmware.ULD_ALL_DONE;
    }

    public boolean underWay() {
        return underWay;
    }

    /** The kind GLGEN_RSTAT RESET_TYPE reports. */
    public Kind last() {
        return last;
    }

    /** Resets started so far. */
    public long count() {
        return resets;
    }
}
