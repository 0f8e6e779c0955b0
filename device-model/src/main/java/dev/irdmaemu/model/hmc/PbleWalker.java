package dev.irdmaemu.model.hmc;

import static dev.irdmaemu.fw.hmc.PbleLayout.PBLE_PER_PAGE;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.hmc.HmcObjectType;

/**
 * Reads page lists out of the HMC PBLE object ({@code fw.hmc.PbleLayout}): one PBLE by index, or the PBLE that
 * holds page {@code n} of a one- or two-level list (pble.c get_lvl1_pble / get_lvl2_pble: a level-2 root entry is
 * the PBLE index of its leaf, a leaf holds up to {@link dev.irdmaemu.fw.hmc.PbleLayout#PBLE_PER_PAGE} page
 * addresses). Memory regions walk their lists through it on every access, rings once at create time
 * ({@link RingPages}). One instance per user, allocation-free; the value and the fault of the last read are kept.
 */
public final class PbleWalker {
    private final HostMemory memory;
    private final HmcFunction hmc;
    private final long[] word = new long[1];
    private HmcFault fault = HmcFault.NONE;

    public PbleWalker(HostMemory memory, HmcFunction hmc) {
        this.memory = memory;
        this.hmc = hmc;
    }

    /** The committed PBLE count (Commit FPM Values); 0 before the commit. */
    public long committed() {
        return hmc.count(HmcObjectType.PBLE);
    }

    /** Reads PBLE {@code index} into {@link #value()}; false with {@link #fault()} when it does not resolve. */
    public boolean read(long index) {
        HmcFault f = index < 0 ? HmcFault.INDEX_OUT_OF_RANGE : hmc.locate(HmcObjectType.PBLE, index);
        if (f != HmcFault.NONE) {
            fault = f;
            return false;
        }
        if (!memory.readLong(hmc.located(), word, 0)) {
            fault = HmcFault.DMA_FAULT;
            return false;
        }
        fault = HmcFault.NONE;
        return true;
    }

    /**
     * Reads the PBLE holding page {@code page} of a list starting at PBLE {@code first}: {@code first + page} for
     * one level, {@code root[first + page / 512] + page % 512} for two. The page address is {@link #value()}.
     */
    public boolean page(boolean twoLevels, long first, long page) {
        if (!twoLevels) {
            return read(first + page);
        }
        return read(first + page / PBLE_PER_PAGE) && read(word[0] + page % PBLE_PER_PAGE);
    }

    /** The PBLE read last (a page address, or a leaf's first PBLE index for a level-2 root entry). */
    public long value() {
        return word[0];
    }

    /** Why the last read failed ({@link HmcFault#NONE} after a success). */
    public HmcFault fault() {
        return fault;
    }
}
