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
 * <p>irdma gathers every STATS_TIMER_DELAY (60 s); {@link #startTimer()} schedules that on the simulated clock. It
 * is not started by bring-up (see {@link IrdmaDriver#statistics()}), so that scenarios that run their scheduler
 * until idle keep ending; a caller that wants irdma's periodic gather starts it.
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
    private long buffer;
    private long gathers;
    private long failures;

    HwStatistics(IrdmaDriver driver, HostRam ram) {
        this.driver = driver;
        this.ram = ram;
        this.store = ram.store();
        this.timer = driver.scheduler().newTimer("irdma-hw-stats", this::onTimer);
        this.writer = (o, v) -> CqpWqeWriter.gatherStats(store, o, buffer, IrdmaDriver.HMC_FN_ID, false, false, 0, v);
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
            driver.op("GATHER_STATS", writer);
        } catch (CqpException e) {
            failures++;
            LOG.warn("Gather stats failed: {}", e.getMessage());
            return false;
        }
        gathers++;
        for (Stat s : STATS) {
            long now = gather.value(s);
            total[s.ordinal()] += GatherStatsBuffer.delta(s, now, last.value(s));
        }
        store.write(ram.offsetOf(buffer) + GatherStatsBuffer.SIZE, store, ram.offsetOf(buffer),
                GatherStatsBuffer.SIZE);
        return true;
    }

    /** utils.c irdma_hw_stats_start_timer: gather every 60 s of simulated time from now on. */
    public void startTimer() {
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

    private void onTimer() {
        gather();
        timer.scheduleIn(STATS_TIMER_DELAY_NANOS);
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
