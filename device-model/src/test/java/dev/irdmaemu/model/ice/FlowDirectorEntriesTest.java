package dev.irdmaemu.model.ice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.AllocFreeRes;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.reg.IceRegister;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.trace.Trace;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Flow director filter entries as ice_set_pf_caps asks for them when the function lists ICE_AQC_CAPS_FD
 * (ice_switch.c ice_alloc_res_cntr: num_elems entries, a one-element buffer, the block's first id back in elem[0]).
 * Before the model listed FD, ice left pf->ctrl_vsi_idx at 0 and released the PF VSI as its FD control VSI at
 * rmmod; with FD listed these allocations come at every probe and must succeed, and a PF reset returns them.
 */
class FlowDirectorEntriesTest {
    private HostRam ram;
    private IceFirmware fw;
    private IceLikeDriver drv;

    @BeforeEach
    void setUp() {
        ram = new HostRam(new HostMemory(), 0x1_0000_0000L, 8L << 20);
        fw = new IceFirmware(0, ram.memory(), v -> { }, new Trace(new SimScheduler(1)), 64, 0x00_1B_21_AB_CD_EFL);
        drv = new IceLikeDriver(ram, fw);
        assertTrue(drv.initAdminQueue());
    }

    @AfterEach
    void tearDown() {
        ram.close();
    }

    private IceLikeDriver.Reply counter(int opcode, int type, int entries, int firstId) {
        byte[] buf = new byte[6];
        buf[0] = (byte) type;
        buf[2] = (byte) entries;
        buf[3] = (byte) (entries >>> 8);
        buf[4] = (byte) firstId;
        buf[5] = (byte) (firstId >>> 8);
        AqDescriptor d = IceLikeDriver.command(opcode).paramU16(AllocFreeRes.NUM_ENTRIES, 1);
        d.flags(d.flags() | AqDescriptor.RD);
        return drv.send(d, buf, buf.length);
    }

    @Test
    void theGuaranteedAndSharedEntriesOfGlqfFdSizeAreAllocatedAsBlocks() {
        int size = fw.read32(IceRegister.GLQF_FD_SIZE);
        int guaranteed = size & IceRegister.GLQF_FD_SIZE_FD_GSIZE_M;
        int shared = (size & IceRegister.GLQF_FD_SIZE_FD_BSIZE_M) >>> IceRegister.GLQF_FD_SIZE_FD_BSIZE_S;
        IceLikeDriver.Reply g = counter(AqOpcode.ALLOC_RES, AllocFreeRes.RES_TYPE_FDIR_GUARANTEED_ENTRIES,
                guaranteed, 0);
        assertEquals(AqError.OK, g.retval());
        assertEquals(0, g.buf().readUnsignedShort(AllocFreeRes.BUF_ELEM), "the block's first id");
        IceLikeDriver.Reply s = counter(AqOpcode.ALLOC_RES, AllocFreeRes.RES_TYPE_FDIR_SHARED_ENTRIES, shared, 0);
        assertEquals(AqError.OK, s.retval());
        assertEquals(guaranteed, fw.resources().inUse(AllocFreeRes.RES_TYPE_FDIR_GUARANTEED_ENTRIES));
        assertEquals(shared, fw.resources().inUse(AllocFreeRes.RES_TYPE_FDIR_SHARED_ENTRIES));

        // the pool is used up: one more entry is refused, and so is a block larger than the pool
        assertEquals(AqError.ENOSPC, counter(AqOpcode.ALLOC_RES, AllocFreeRes.RES_TYPE_FDIR_GUARANTEED_ENTRIES, 1,
                0).retval());
        // a free must name entries that are allocated
        assertEquals(AqError.ENOENT, counter(AqOpcode.FREE_RES, AllocFreeRes.RES_TYPE_FDIR_GUARANTEED_ENTRIES, 16,
                guaranteed - 8).retval());
        assertEquals(AqError.OK, counter(AqOpcode.FREE_RES, AllocFreeRes.RES_TYPE_FDIR_GUARANTEED_ENTRIES, 16,
                32).retval());
        assertEquals(guaranteed - 16, fw.resources().inUse(AllocFreeRes.RES_TYPE_FDIR_GUARANTEED_ENTRIES));
        IceLikeDriver.Reply again = counter(AqOpcode.ALLOC_RES, AllocFreeRes.RES_TYPE_FDIR_GUARANTEED_ENTRIES, 8, 0);
        assertEquals(AqError.OK, again.retval());
        assertEquals(32, again.buf().readUnsignedShort(AllocFreeRes.BUF_ELEM), "first fit in the freed hole");

        // ice's next probe starts with a PF reset: every entry is free again
        fw.write32(IceRegister.PFGEN_CTRL, IceRegister.PFGEN_CTRL_PFSWR_M);
        assertEquals(0, fw.resources().inUse(AllocFreeRes.RES_TYPE_FDIR_GUARANTEED_ENTRIES));
        assertEquals(0, fw.resources().inUse(AllocFreeRes.RES_TYPE_FDIR_SHARED_ENTRIES));
    }

    @Test
    void aBlockLargerThanThePoolIsRefused() {
        assertEquals(AqError.ENOSPC, counter(AqOpcode.ALLOC_RES, AllocFreeRes.RES_TYPE_FDIR_GUARANTEED_ENTRIES,
                Capabilities.FD_GUARANTEED + 1, 0).retval());
        assertEquals(AqError.EINVAL, counter(AqOpcode.FREE_RES, AllocFreeRes.RES_TYPE_FDIR_SHARED_ENTRIES, 0, 0)
                .retval());
    }
}
