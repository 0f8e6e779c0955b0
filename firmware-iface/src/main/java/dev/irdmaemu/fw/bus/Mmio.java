package dev.irdmaemu.fw.bus;

/**
 * Register accesses at BAR0 offsets, as the driver's readl/writel (and 64-bit readq/writeq) make them.
 * Offsets are byte offsets into the BAR; an implementation answers 0 for a read it does not back and ignores
 * (and traces) a write it does not back: nothing the host writes may crash the device.
 */
public interface Mmio {
    int read32(long offset);

    void write32(long offset, int value);

    /** A 64-bit access; by default two 32-bit accesses, low word first, as on a 32-bit bus. */
    default long read64(long offset) {
        long lo = read32(offset) & 0xffff_ffffL;
        long hi = read32(offset + 4) & 0xffff_ffffL;
        return hi << 32 | lo;
    }

    default void write64(long offset, long value) {
        write32(offset, (int) value);
        write32(offset + 4, (int) (value >>> 32));
    }
}
