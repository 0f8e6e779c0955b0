package dev.irdmaemu.driver;

import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.GatherStatsBuffer;
import dev.irdmaemu.fw.cqp.GatherStatsBuffer.Stat;
import dev.irdmaemu.fw.sim.SimTimer;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PF's hardware statistics as irdma keeps them (ctrl.c irdma_vsi_stats_init, utils.c irdma_hw_stats_timeout /
 * irdma_cqp_gather_stats_cmd, ctrl.c irdma_update_stats): a coherent buffer of twice IRDMA_GATHER_STATS_BUF_SIZE
 * (the gather area, then the last gather), Gather Stats for the PF's own function (no statistics instance, no
 * HMC function index), and 64-bit totals that add each counter's movement since the last gather, modulo its width.
 * A failed gather is logged and changes nothing (the totals keep their last values), as irdma only logs it.
 *
 * <p>irdma gathers every STATS_TIMER_DELAY (60 s) from a timer that bring-up starts (irdma_vsi_stats_init, gen2)
 * and teardown stops (irdma_vsi_stats_free); the timer's Gather Stats is posted without waiting and the totals are
 * brought up to date by its completion (utils.c irdma_hw_stats_timeout with wait = false, irdma_process_cqp_stats).
 * On the simulated clock it is a background timer ({@link dev.irdmaemu.fw.sim.SimScheduler#newBackgroundTimer}):
 * it fires whenever simulated time passes its deadline, but a run until idle does not wait 60 s for it.
 */
public final class HwStatistics {
    private static final Logger LOG = LoggerFactory.getLogger(HwStatistics.class);
    /** osdep.h STATS_TIMER_DELAY: 60 000 ms. */
    public static final long STATS_TIMER_DELAY_NANOS = 60_000_000_000L;
    private static final Stat[] STATS = Stat.values();

    private final IrdmaDriver driver;
    private final HostRam ram;
    private final BytesStore<?, ?> store;
    private final long[] total = new long[STATS.length];
    private final GatherStatsBuffer gather = new GatherStatsBuffer();
    private final GatherStatsBuffer last = new GatherStatsBuffer();
    private final SimTimer timer;
    private final IrdmaDriver.WqeWriter writer;
    private final IrdmaDriver.CqpCallback timerGatherDone;
    private long timerGathers;
    private long buffer;
    private long gathers;
    private long failures;

    HwStatistics(IrdmaDriver driver, HostRam ram) {
        this.driver = driver;
        this.ram = ram;
        this.store = ram.store();
        this.timer = driver.scheduler().newBackgroundTimer("irdma-hw-stats", this::onTimer);
        this.writer = (o, v) -> CqpWqeWriter.gatherStats(store, o, buffer, IrdmaDriver.HMC_FN_ID, false, false, 0, v);
        this.timerGatherDone = (error, major, minor, ret) -> {
            if (error) {
                failures++;
                LOG.warn("Gather stats failed: major {} minor {}", major, minor);
                return;
            }
            update();
        };
    }

    /** irdma_vsi_stats_init: the buffer, zeroed (the last gather starts at 0). */
    private void allocate() {
        if (buffer == 0) {
            buffer = ram.allocate(GatherStatsBuffer.DRIVER_BUFFER_SIZE);
            gather.wrap(store, ram.offsetOf(buffer));
            last.wrap(store, ram.offsetOf(buffer) + GatherStatsBuffer.SIZE);
        }
    }

    /**
     * irdma_cqp_gather_stats_cmd (wait) then irdma_update_stats: one Gather Stats op and the totals brought up to
     * date. Answers false when the device refused the op (the totals stay as they were).
     */
    public boolean gather() {
        allocate();
        try {
            driver.cqp().op("GATHER_STATS", writer);
        } catch (CqpException e) {
            failures++;
            LOG.warn("Gather stats failed: {}", e.getMessage());
            return false;
        }
        update();
        return true;
    }

    /**
     * ctrl.c irdma_update_stats: each counter's movement since the last gather, modulo its width (a wrapped 48-bit
     * counter still adds what it moved), added to its 64-bit total; then the gather becomes the last gather.
     */
    private void update() {
        gathers++;
        for (Stat s : STATS) {
            long now = gather.value(s);
            total[s.ordinal()] += GatherStatsBuffer.delta(s, now, last.value(s));
        }
        store.write(ram.offsetOf(buffer) + GatherStatsBuffer.SIZE, store, ram.offsetOf(buffer),
                GatherStatsBuffer.SIZE);
    }

    /**
     * utils.c irdma_hw_stats_start_timer (from irdma_vsi_stats_init, which allocates the buffer first): gather
     * every 60 s of simulated time from now on.
     */
    public void startTimer() {
        allocate();
        if (!timer.isPending()) {
            timer.scheduleIn(STATS_TIMER_DELAY_NANOS);
        }
    }

    /** utils.c irdma_hw_stats_stop_timer. */
    public void stopTimer() {
        timer.cancel();
    }

    public boolean timerRunning() {
        return timer.isPending();
    }

    /**
     * utils.c irdma_hw_stats_timeout (gen2): Gather Stats posted without waiting, its completion updates the
     * totals (irdma_process_cqp_stats); the timer is re-armed at once (mod_timer), whatever the op's fate.
     */
    private void onTimer() {
        timerGathers++;
        try {
            driver.cqp().post("GATHER_STATS", writer, timerGatherDone);
        } catch (RuntimeException e) {
            failures++;
            LOG.warn("Gather stats not posted: {}", e.getMessage());
        }
        timer.scheduleIn(STATS_TIMER_DELAY_NANOS);
    }

    /** Gathers the timer has posted. */
    public long timerGathers() {
        return timerGathers;
    }

    /** hw_stats->stats_val[]: the counter's total since the first gather. */
    public long value(Stat s) {
        return total[s.ordinal()];
    }

    public long gathers() {
        return gathers;
    }

    public long failures() {
        return failures;
    }

    /** The buffer's guest-physical address (0 before the first gather). */
    public long bufferAddress() {
        return buffer;
    }
}
