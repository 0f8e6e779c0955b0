package dev.irdmaemu.model.ice;

import static dev.irdmaemu.fw.reg.IceRegister.*;

import dev.irdmaemu.model.reg.RegisterFile;
import java.util.function.LongSupplier;

/**
 * The E810's 1588 source timer 0 and the PF's timer semaphore, as ice_ptp_hw.c drives them (ice_ptp_lock /
 * ice_ptp_unlock, ice_ptp_init_time, ice_ptp_write_incval, ice_ptp_adj_clock, ice_ptp_src_cmd,
 * ice_ptp_exec_tmr_cmd) and ice_ptp.c reads them (ice_ptp_read_src_clk_reg: GLTSYN_TIME_L, _H, _L again). Offsets
 * from ice_hw_autogen.h.
 *
 * <ul>
 *   <li>PFTSYN_SEM: reading it answers the BUSY bit as it was and sets it (a hardware semaphore: a 0 read is the
 *       grant); writing 0 releases it.</li>
 *   <li>GLTSYN_CMD holds the prepared command; writing SYNC_EXEC_CMD to GLTSYN_CMD_SYNC executes it: INIT_TIME
 *       loads SHTIME_H:SHTIME_L (ns), INIT_INCVAL loads SHADJ_H:SHADJ_L as the increment per cycle, ADJ_TIME
 *       (alone or at a time) adds the signed nanoseconds of SHADJ_H, READ_TIME latches the time into SHTIME.</li>
 *   <li>The time advances with the host's monotonic clock, scaled by incval against the nominal
 *       {@value #NOMINAL_INCVAL} (ICE_PTP_NOMINAL_INCVAL_E810: 812.5 MHz cycles of incval / 2^32 ns), so a PHC that
 *       ice tunes with adjfine runs faster or slower by that much. GLTSYN_TIME_0 (sub-nanoseconds) reads 0.</li>
 * </ul>
 * GLTSYN_ENA, GLTSYN_STAT and GLTSYN_SYNC_DLAY are plain storage. The timer is device state; a PF reset leaves it
 * running, and releases the PF's semaphore.
 */
final class PtpTimer {
    static final long NOMINAL_INCVAL = 0x1_3B13_B13BL;
    /** Incval is 40 bits wide (SHADJ_H holds its top byte). */
    private static final long INCVAL_M = 0xFF_FFFF_FFFFL;

    private final LongSupplier nanos;
    private final int pfId;
    private int shtimeL;
    private int shtimeH;
    private int shadjL;
    private int shadjH;
    private int command;
    private boolean semaphore;
    private long incval = NOMINAL_INCVAL;
    /** The timer's ns at host time {@link #baseHost}. */
    private long baseTime;
    private long baseHost;
    private long commands;

    /** A timer that counts with {@code nanos} (System::nanoTime on the device; a test clock in tests). */
    PtpTimer(int pfId, LongSupplier nanos) {
        this.pfId = pfId;
        this.nanos = nanos;
        this.baseHost = nanos.getAsLong();
    }

    /** Puts the registers into {@code regs}. */
    void defineRegisters(RegisterFile regs) {
        regs.define("PFTSYN_SEM", PFTSYN_SEM + 4L * pfId, 1, 0, "read_and_set", (e, s) -> takeSemaphore(),
                "release", (e, v) -> semaphore = (v & PFTSYN_SEM_BUSY_M) != 0);
        regs.define("GLTSYN_CMD", GLTSYN_CMD, 1, 0, "command", (e, s) -> command, "prepare", (e, v) -> command = v);
        regs.define("GLTSYN_CMD_SYNC", GLTSYN_CMD_SYNC, 1, 0, null, null, "execute", (e, v) -> sync(v));
        regs.define("GLTSYN_SHTIME_L", GLTSYN_SHTIME_L_0, 1, 0, "shtime_l", (e, s) -> shtimeL, "shtime_l",
                (e, v) -> shtimeL = v);
        regs.define("GLTSYN_SHTIME_H", GLTSYN_SHTIME_H_0, 1, 0, "shtime_h", (e, s) -> shtimeH, "shtime_h",
                (e, v) -> shtimeH = v);
        regs.define("GLTSYN_SHADJ_L", GLTSYN_SHADJ_L_0, 1, 0, "shadj_l", (e, s) -> shadjL, "shadj_l",
                (e, v) -> shadjL = v);
        regs.define("GLTSYN_SHADJ_H", GLTSYN_SHADJ_H_0, 1, 0, "shadj_h", (e, s) -> shadjH, "shadj_h",
                (e, v) -> shadjH = v);
        regs.defineReadOnly("GLTSYN_TIME_L", GLTSYN_TIME_L_0, 1, 0, "time_l", (e, s) -> (int) now());
        regs.defineReadOnly("GLTSYN_TIME_H", GLTSYN_TIME_H_0, 1, 0, "time_h", (e, s) -> (int) (now() >>> 32));
        regs.defineReadOnly("GLTSYN_TIME_0", GLTSYN_TIME_0_0, 1, 0, "time_subns", (e, s) -> 0);
    }

    private int takeSemaphore() {
        boolean was = semaphore;
        semaphore = true;
        return was ? PFTSYN_SEM_BUSY_M : 0;
    }

    /** GLTSYN_CMD_SYNC: SYNC_EXEC_CMD runs the prepared command; other values do nothing. */
    private void sync(int v) {
        if ((v & GLTSYN_SYNC_EXEC_CMD) != GLTSYN_SYNC_EXEC_CMD) {
            return;
        }
        commands++;
        int c = command;
        if ((c & GLTSYN_CMD_READ_TIME) != 0) {
            long t = now();
            shtimeL = (int) t;
            shtimeH = (int) (t >>> 32);
        }
        if ((c & GLTSYN_CMD_ADJ_TIME) != 0) {
            rebase(now() + shadjH);
        } else {
            if ((c & GLTSYN_CMD_INIT_INCVAL) != 0) {
                long t = now();
                incval = ((long) shadjH << 32 | shadjL & 0xFFFF_FFFFL) & INCVAL_M;
                rebase(t);
            }
            if ((c & GLTSYN_CMD_INIT_TIME) != 0) {
                rebase((long) shtimeH << 32 | shtimeL & 0xFFFF_FFFFL);
            }
        }
    }

    private void rebase(long time) {
        baseHost = nanos.getAsLong();
        baseTime = time;
    }

    /** The timer's nanoseconds now. */
    long now() {
        long elapsed = nanos.getAsLong() - baseHost;
        return baseTime + (long) (elapsed * ((double) incval / NOMINAL_INCVAL));
    }

    /** A PF reset: the PF's driver is gone and so is its hold on the semaphore; the timer runs on. */
    void pfReset() {
        semaphore = false;
        command = 0;
    }

    long incval() {
        return incval;
    }

    boolean semaphoreHeld() {
        return semaphore;
    }

    long commands() {
        return commands;
    }
}
