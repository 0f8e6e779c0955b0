package dev.irdmaemu.model.pci;

import dev.irdmaemu.fw.pci.PciRegs;

/**
 * BAR3 of the E810 PF: the MSI-X table at offset 0 and the pending-bit array at {@link #PBA_OFFSET}, the layout a
 * real E810 reports. Under vfio-user QEMU emulates the table itself and only PBA reads reach the device
 * (vfio-user-facts.md §1.5, §2); QEMU keeps the pending state of the vectors it masks, so the PBA reads 0 here. The
 * table is kept as plain storage (each vector's control word masked at power-on, as the spec wants) for a
 * transport that does forward it. Accesses are 4-byte (8-byte ones split low first); anything else, or outside the
 * table and PBA, reads 0 and is dropped on write.
 */
public final class MsixBar {
    /** The PBA's offset in the BAR: after a table of up to 2048 entries (QEMU's limit, msix_init), 8 KiB-aligned. */
    public static final int PBA_OFFSET = 0x8000;

    private final int vectors;
    private final int[] table;
    private long refused;

    public MsixBar(int vectors) {
        if (vectors < 1 || vectors * PciRegs.MSIX_ENTRY_SIZE > PBA_OFFSET) {
            throw new IllegalArgumentException("MSI-X vectors " + vectors);
        }
        this.vectors = vectors;
        this.table = new int[vectors * PciRegs.MSIX_ENTRY_SIZE / 4];
        reset();
    }

    /** Bytes the pending-bit array spans (one bit per vector, in whole quadwords). */
    public int pbaBytes() {
        return (vectors + 63) / 64 * 8;
    }

    public int vectors() {
        return vectors;
    }

    /** Power-on state: every entry zero with its vector masked. */
    public void reset() {
        java.util.Arrays.fill(table, 0);
        for (int v = 0; v < vectors; v++) {
            table[v * 4 + PciRegs.MSIX_ENTRY_VECTOR_CTRL / 4] = PciRegs.MSIX_ENTRY_CTRL_MASKBIT;
        }
    }

    /** A 4-byte read at {@code offset}; the PBA reads 0 (QEMU holds the pending bits). */
    public int read32(long offset) {
        if (offset >= 0 && offset < (long) table.length * 4 && (offset & 3) == 0) {
            return table[(int) (offset >>> 2)];
        }
        if (offset >= PBA_OFFSET && offset < PBA_OFFSET + pbaBytes() && (offset & 3) == 0) {
            return 0;
        }
        refused++;
        return 0;
    }

    /** A 4-byte write at {@code offset}: the table takes it; the PBA is read-only. */
    public void write32(long offset, int value) {
        if (offset >= 0 && offset < (long) table.length * 4 && (offset & 3) == 0) {
            table[(int) (offset >>> 2)] = value;
            return;
        }
        refused++;
    }

    /** Whether vector {@code v}'s entry has its mask bit set. */
    public boolean masked(int v) {
        return v >= 0 && v < vectors
                && (table[v * 4 + PciRegs.MSIX_ENTRY_VECTOR_CTRL / 4] & PciRegs.MSIX_ENTRY_CTRL_MASKBIT) != 0;
    }

    /** Accesses answered without storage (outside table and PBA, unaligned, writes to the PBA). */
    public long refused() {
        return refused;
    }
}
