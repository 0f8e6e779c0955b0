package dev.irdmaemu.model.ice;

import static dev.irdmaemu.fw.reg.IceRegister.PF_FW_ATQH;
import static dev.irdmaemu.fw.reg.IceRegister.PF_FW_ATQT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.GetLinkStatus;
import dev.irdmaemu.fw.aq.AqLayout.Nvm;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.trace.Trace;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** An admin queue command (register doorbell, descriptor and buffer DMA, handler, write-back) allocates nothing. */
class IceAqAllocationTest {
    private static final int ITERATIONS = 10_000;
    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void commandsAllocateNothing() {
        try (HostRam ram = new HostRam(new HostMemory(), 0x1_0000_0000L, 8L << 20)) {
            IceFirmware fw = new IceFirmware(0, ram.memory(), v -> { }, new Trace(new SimScheduler(1)), 64, 1L);
            IceLikeDriver drv = new IceLikeDriver(ram, fw);
            assertTrue(drv.initAdminQueue());
            AqDescriptor[] ring = new AqDescriptor[drv.atqLen];
            for (int i = 0; i < ring.length; i++) {
                ring[i] = drv.ringDesc(drv.atqRing, i);
            }
            int[] state = new int[2];
            Runnable one = () -> {
                int i = state[0];
                AqDescriptor d = ring[i].clear();
                switch (state[1]++ % 3) {
                    case 0 -> d.opcode(AqOpcode.GET_VER).flags(AqDescriptor.SI);
                    case 1 -> d.opcode(AqOpcode.NVM_READ).flags(AqDescriptor.SI | AqDescriptor.BUF)
                            .datalen(64).bufferAddress(drv.sqBufs[i]).paramU8(Nvm.CMD_FLAGS, Nvm.FLASH_ONLY)
                            .paramU16(Nvm.OFFSET_LOW, i * 64).paramU16(Nvm.LENGTH, 64);
                    default -> d.opcode(AqOpcode.GET_LINK_STATUS).flags(AqDescriptor.SI | AqDescriptor.BUF)
                            .datalen(GetLinkStatus.DATA_SIZE_V1).bufferAddress(drv.sqBufs[i]);
                }
                state[0] = (i + 1) % ring.length;
                fw.write32(PF_FW_ATQT, state[0]);
                if (fw.read32(PF_FW_ATQH) != state[0] || d.retval() != AqError.OK) {
                    throw new AssertionError("command " + d.opcode() + " answered " + d.retval());
                }
            };
            for (int i = 0; i < 20_000; i++) {
                one.run();
            }
            long t = Thread.currentThread().getId();
            long a = threads.getThreadAllocatedBytes(t);
            long base = threads.getThreadAllocatedBytes(t) - a;
            long before = threads.getThreadAllocatedBytes(t);
            for (int i = 0; i < ITERATIONS; i++) {
                one.run();
            }
            long used = threads.getThreadAllocatedBytes(t) - before - base;
            assertEquals(0, fw.adminQueue().errors());
            assertTrue(used < ITERATIONS, "AQ commands allocated " + used + " bytes in " + ITERATIONS);
        }
    }
}
