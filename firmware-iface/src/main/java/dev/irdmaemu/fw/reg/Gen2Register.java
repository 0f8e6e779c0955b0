package dev.irdmaemu.fw.reg;

import java.util.OptionalInt;

/**
 * The gen2 (E810) BAR0 registers irdma maps, in the order of {@code enum irdma_registers} (irdma.h), so
 * {@link #ordinal()} is the kernel's index into {@code dev->hw_regs[]}; offsets are the entries of
 * {@code icrdma_regs[]} (icrdma_hw.c) with their values from icrdma_hw.h. Indexed registers (GLINT_DYN_CTL(_INT),
 * ...) carry their stride and count from the icrdma_hw.h macro and its range comment; {@link #at(int)} answers the
 * offset of element i. {@link #DB_ADDR_OFFSET} is not a register: icrdma_init_hw stores it with a NULL base, it
 * is the BAR offset of the doorbell page (ICRDMA_DB_ADDR_OFFSET).
 */
public enum Gen2Register {
    CQPTAIL(0x0050_0880),
    CQPDB(0x0050_0800),
    CCQPSTATUS(0x0050_a000),
    CCQPHIGH(0x0050_a100),
    CCQPLOW(0x0050_a080),
    CQARM(0x0050_2c00),
    CQACK(0x0050_2c80),
    AEQALLOC(0x0050_2d00),
    CQPERRCODES(0x0050_a200),
    WQEALLOC(0x0050_4400),
    /** GLINT_DYN_CTL(_INT): 0x00160000 + 4 * _INT, _INT = 0..2047. */
    GLINT_DYN_CTL(0x0016_0000, 4, 2048),
    /** ICRDMA_DB_ADDR_OFFSET = 8 MiB - 64 KiB: the doorbell page, not a register (icrdma_init_hw). */
    DB_ADDR_OFFSET(8 * 1024 * 1024 - 64 * 1024),
    GLPCI_LBARCTRL(0x0009_de74),
    GLPE_CPUSTATUS0(0x0050_ba5c),
    GLPE_CPUSTATUS1(0x0050_ba60),
    GLPE_CPUSTATUS2(0x0050_ba64),
    PFINT_AEQCTL(0x0016_cb00),
    /** GLINT_CEQCTL(_INT): 0x0015c000 + 4 * _INT, _INT = 0..2047. */
    GLINT_CEQCTL(0x0015_c000, 4, 2048),
    /** VSIQF_PE_CTL1(_VSI): 0x00414000 + 4 * _VSI, _VSI = 0..767. */
    VSIQF_PE_CTL1(0x0041_4000, 4, 768),
    PFHMC_PDINV(0x0052_0300),
    /** GLHMC_VFPDINV(_i): 0x00528300 + 4 * _i, _i = 0..31. */
    GLHMC_VFPDINV(0x0052_8300, 4, 32),
    GLPE_CRITERR(0x0053_4000),
    /** GLINT_RATE(_INT): 0x0015A000 + 4 * _INT, _INT = 0..2047. */
    GLINT_RATE(0x0015_a000, 4, 2048),
    PFHMC_ERRORINFO(0x0052_0400),
    PFHMC_ERRORDATA(0x0052_0500);

    private static final Gen2Register[] VALUES = values();

    private final int offset;
    private final int stride;
    private final int count;

    Gen2Register(int offset) {
        this(offset, 0, 1);
    }

    Gen2Register(int offset, int stride, int count) {
        this.offset = offset;
        this.stride = stride;
        this.count = count;
    }

    /** BAR0 byte offset (of element 0 for an indexed register). */
    public int offset() {
        return offset;
    }

    /** Number of elements: 1 for a plain register. */
    public int count() {
        return count;
    }

    public int stride() {
        return stride;
    }

    /** Offset of element {@code i}; -1 when {@code i} is outside 0..count-1. */
    public int at(int i) {
        return i >= 0 && i < count ? offset + i * stride : -1;
    }

    /** The kernel's index into dev->hw_regs[] (enum irdma_registers). */
    public int kernelIndex() {
        return ordinal();
    }

    /** Whether this entry is a register in BAR0 (everything but {@link #DB_ADDR_OFFSET}). */
    public boolean isRegister() {
        return this != DB_ADDR_OFFSET;
    }

    /**
     * The register holding BAR0 byte {@code barOffset} (element-aligned), or null; {@code DB_ADDR_OFFSET} is never
     * answered. No allocation.
     */
    public static Gen2Register lookup(long barOffset) {
        for (Gen2Register r : VALUES) {
            if (!r.isRegister()) {
                continue;
            }
            long rel = barOffset - r.offset;
            if (rel == 0 || r.stride > 0 && rel > 0 && rel % r.stride == 0 && rel / r.stride < r.count) {
                return r;
            }
        }
        return null;
    }

    /** Element index of {@code barOffset} within {@code r} (0 for a plain register); empty when not inside it. */
    public static OptionalInt indexOf(Gen2Register r, long barOffset) {
        long rel = barOffset - r.offset;
        if (rel == 0) {
            return OptionalInt.of(0);
        }
        if (r.stride == 0 || rel < 0 || rel % r.stride != 0 || rel / r.stride >= r.count) {
            return OptionalInt.empty();
        }
        return OptionalInt.of((int) (rel / r.stride));
    }
}
