package dev.irdmaemu.driver;

import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.bus.Mmio;
import dev.irdmaemu.fw.reg.Bits;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.fw.sim.SimScheduler;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * What every part of the driver touches the function through (osdep.h struct irdma_hw and its irdma_rd32 /
 * irdma_wr32): BAR0 once bound, host memory (the DMA allocations and the store their addresses resolve to) and the
 * simulated clock the driver waits on. Also the CQ arm that the CCQ and the PUDA CQs share (ctrl.c irdma_sc_ccq_arm,
 * uk.c irdma_uk_cq_request_notification).
 */
final class IrdmaHw {
    final HostRam ram;
    final SimScheduler scheduler;
    final BytesStore<?, ?> store;
    private Mmio mmio;

    IrdmaHw(HostRam ram, SimScheduler scheduler) {
        this.ram = ram;
        this.scheduler = scheduler;
        this.store = ram.store();
    }

    void bind(Mmio deviceBar) {
        if (this.mmio != null) {
            throw new IllegalStateException("driver already bound");
        }
        this.mmio = deviceBar;
    }

    int reg(Gen2Register r) {
        return mmio.read32(r.offset());
    }

    void write(Gen2Register r, int v) {
        mmio.write32(r.offset(), v);
    }

    void write(Gen2Register r, int index, int v) {
        mmio.write32(r.at(index), v);
    }

    /** The store offset of a guest-physical address. */
    long off(long gpa) {
        return ram.offsetOf(gpa);
    }

    long allocate(long bytes) {
        return ram.allocate(bytes);
    }

    /** ctrl.c irdma_sc_ccq_arm / uk.c irdma_uk_cq_request_notification: bump the arm sequence, write PFPE_CQARM. */
    void armCq(int cqId, long shadow) {
        long w = store.readLong(off(shadow) + Gen2Registers.CQ_SHADOW_ARM_OFFSET);
        int seq = Bits.getInt(w, Gen2Registers.CQ_DBSA_ARM_SEQ_NUM) + 1;
        store.writeLong(off(shadow) + Gen2Registers.CQ_SHADOW_ARM_OFFSET,
                Gen2Registers.cqArmWord(seq & 3, 0, false, true));
        write(Gen2Register.CQARM, Gen2Registers.cqArmDoorbell(cqId));
    }
}
