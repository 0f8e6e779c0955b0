package dev.irdmaemu.model.ice;

import static dev.irdmaemu.fw.reg.IceRegister.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.reg.RegisterFile;
import dev.irdmaemu.model.trace.Trace;
import org.junit.jupiter.api.Test;

/**
 * The 1588 source timer as ice_ptp_hw.c drives it on an E810: the semaphore, INIT_TIME and INIT_INCVAL through the
 * shadow registers and GLTSYN_CMD_SYNC, the time advancing with the host clock scaled by incval, ADJ_TIME, and
 * ice_ptp_read_src_clk_reg's reads.
 */
class PtpTimerTest {
    private long host = 1_000_000L;
    private final PtpTimer timer = new PtpTimer(0, () -> host);
    private final RegisterFile regs = new RegisterFile(new Trace(new SimScheduler(1)));

    PtpTimerTest() {
        timer.defineRegisters(regs);
    }

    private long time() {
        long lo = regs.read32(GLTSYN_TIME_L_0) & 0xFFFF_FFFFL;
        long hi = regs.read32(GLTSYN_TIME_H_0) & 0xFFFF_FFFFL;
        return hi << 32 | lo;
    }

    private void exec(int cmd) {
        regs.write32(GLTSYN_CMD, cmd);
        regs.write32(GLTSYN_CMD_SYNC, GLTSYN_SYNC_EXEC_CMD);
    }

    @Test
    void theSemaphoreIsGrantedOnceUntilReleased() {
        assertEquals(0, regs.read32(PFTSYN_SEM) & PFTSYN_SEM_BUSY_M, "a 0 read is the grant");
        assertEquals(PFTSYN_SEM_BUSY_M, regs.read32(PFTSYN_SEM) & PFTSYN_SEM_BUSY_M, "held");
        regs.write32(PFTSYN_SEM, 0);
        assertEquals(0, regs.read32(PFTSYN_SEM) & PFTSYN_SEM_BUSY_M);
        timer.pfReset();
        assertFalse(timer.semaphoreHeld(), "a PF reset releases it");
    }

    @Test
    void initTimeThenTheClockAdvancesAtTheNominalRate() {
        long t0 = 1_765_000_000_123_456_789L;
        regs.write32(GLTSYN_SHTIME_L_0, (int) t0);
        regs.write32(GLTSYN_SHTIME_H_0, (int) (t0 >>> 32));
        regs.write32(GLTSYN_SHTIME_0_0, 0);
        exec(GLTSYN_CMD_INIT_TIME);
        assertEquals(t0, time());
        host += 500_000_000L;
        assertEquals(t0 + 500_000_000L, time(), "nominal incval: one ns per host ns");
    }

    @Test
    void aLargerIncvalRunsFasterAndAdjTimeShiftsTheTime() {
        long inc = PtpTimer.NOMINAL_INCVAL + PtpTimer.NOMINAL_INCVAL / 1000;
        regs.write32(GLTSYN_SHADJ_L_0, (int) inc);
        regs.write32(GLTSYN_SHADJ_H_0, (int) (inc >>> 32));
        exec(GLTSYN_CMD_INIT_INCVAL);
        assertEquals(inc, timer.incval());
        long before = time();
        host += 1_000_000_000L;
        assertEquals(1_001_000_000L, time() - before, 2, "1000 ppm fast");
        long t = time();
        regs.write32(GLTSYN_SHADJ_L_0, 0);
        regs.write32(GLTSYN_SHADJ_H_0, -250);
        exec(GLTSYN_CMD_ADJ_TIME);
        assertEquals(t - 250, time());
    }

    @Test
    void aCommandRunsOnlyOnSyncExecAndReadTimeLatches() {
        regs.write32(GLTSYN_SHTIME_L_0, 42);
        regs.write32(GLTSYN_CMD, GLTSYN_CMD_INIT_TIME);
        regs.write32(GLTSYN_CMD_SYNC, 1);
        assertEquals(0, timer.commands(), "not SYNC_EXEC_CMD");
        regs.write32(GLTSYN_CMD_SYNC, GLTSYN_SYNC_EXEC_CMD);
        assertEquals(42, time());
        host += 8;
        exec(GLTSYN_CMD_READ_TIME);
        assertEquals(50, regs.read32(GLTSYN_SHTIME_L_0));
    }
}
