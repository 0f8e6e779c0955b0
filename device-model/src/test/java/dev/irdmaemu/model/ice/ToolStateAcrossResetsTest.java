package dev.irdmaemu.model.ice;

import static dev.irdmaemu.fw.reg.IceRegister.GLGEN_RTRIG;
import static dev.irdmaemu.fw.reg.IceRegister.GLGEN_RTRIG_CORER_M;
import static dev.irdmaemu.fw.reg.IceRegister.GLGEN_RTRIG_GLOBR_M;
import static dev.irdmaemu.fw.reg.IceRegister.PFGEN_CTRL;
import static dev.irdmaemu.fw.reg.IceRegister.PFGEN_CTRL_PFSWR_M;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.aq.AqLayout.NvmChecksum;
import dev.irdmaemu.fw.aq.AqLayout.SetMacLoopback;
import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.trace.Trace;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The tools' firmware state through the admin queue and across resets: set_mac_lb reaches the LAN queues and stays
 * over a PF reset and a core reset (the MAC is not reset by them; ice turns the loopback off itself), a global reset
 * takes it off with the MAC; a self-test's commands sent after a reset in the middle of the test find the admin
 * queue disabled (ice_sq_send_cmd's -EIO), never an exception, and work again once ice re-initialises the queue.
 */
class ToolStateAcrossResetsTest {
    private static final long MAC = 0x00_1B_21_AB_CD_EFL;

    private final HostRam ram = new HostRam(new HostMemory(), 0x1_0000_0000L, 4L << 20);
    private final IceFirmware fw = new IceFirmware(0, ram.memory(), v -> { }, new Trace(new SimScheduler(3)), 64, MAC);
    private final List<Boolean> loopback = new ArrayList<>();
    private final IceLikeDriver drv = new IceLikeDriver(ram, fw);

    ToolStateAcrossResetsTest() {
        fw.attachLan(new LanRegisters() {
            @Override
            public boolean owns(long offset) {
                return false;
            }

            @Override
            public void reset() {
            }

            @Override
            public void macLoopback(boolean on) {
                loopback.add(on);
            }

            @Override
            public void onMdd(Runnable hook) {
            }

            @Override
            public int read32(long offset) {
                return 0;
            }

            @Override
            public void write32(long offset, int value) {
            }
        });
        assertTrue(drv.initAdminQueue());
    }

    @AfterEach
    void tearDown() {
        ram.close();
    }

    private boolean on() {
        return loopback.get(loopback.size() - 1);
    }

    private IceLikeDriver.Reply loopback(boolean enable) {
        AqDescriptor d = IceLikeDriver.command(AqOpcode.SET_MAC_LB);
        d.paramU8(SetMacLoopback.LB_MODE, enable ? SetMacLoopback.LB_EN : 0);
        return drv.send(d);
    }

    @Test
    void theLoopbackStaysOverPfAndCoreResetsAndGoesWithAGlobalReset() {
        assertFalse(on(), "attachLan tells the queues the power-on state");
        assertTrue(loopback(true).ok());
        assertTrue(on());
        fw.write32(PFGEN_CTRL, PFGEN_CTRL_PFSWR_M);
        assertTrue(on(), "a PF reset leaves the MAC alone");
        assertTrue(drv.initAdminQueue());
        fw.write32(GLGEN_RTRIG, GLGEN_RTRIG_CORER_M);
        assertTrue(on(), "a core reset leaves the MAC alone");
        fw.write32(GLGEN_RTRIG, GLGEN_RTRIG_GLOBR_M);
        assertFalse(on(), "a global reset takes the MAC back to its defaults");
    }

    @Test
    void aResetInTheMiddleOfTheSelfTestDisablesTheQueueAndTheCommandsWorkAfterReinit() {
        assertTrue(loopback(true).ok());
        fw.write32(GLGEN_RTRIG, GLGEN_RTRIG_CORER_M);
        assertFalse(loopback(false).ok(), "the admin queue is disabled by the reset");
        assertTrue(drv.initAdminQueue());
        assertTrue(loopback(false).ok());
        assertFalse(on());
        AqDescriptor d = IceLikeDriver.command(AqOpcode.NVM_CHECKSUM);
        d.paramU8(NvmChecksum.FLAGS, NvmChecksum.VERIFY);
        IceLikeDriver.Reply r = drv.send(d);
        assertTrue(r.ok());
        assertEquals(NvmChecksum.CORRECT, r.desc().paramU16(NvmChecksum.CHECKSUM));
    }
}
