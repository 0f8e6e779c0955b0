package dev.irdmaemu.fw.hmc;

import dev.irdmaemu.fw.reg.Bits;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * A page descriptor: one little-endian quadword of a paged SD's PD page (4 KiB, 512 PDs, IRDMA_HMC_PD_CNT_IN_SD),
 * as hmc.c irdma_add_pd_table_entry writes it: the 4 KiB backing page's address with bit 0 (valid) set;
 * irdma_remove_pd_bp writes 0. After either, the driver writes PFHMC_PDINV for that (SD, PD)
 * ({@code Gen2Registers.pdInvalidate}). PD {@code i} of the HMC space lives in SD {@code i / 512} at
 * entry {@code i % 512}.
 */
public final class PageDescriptor {
    private PageDescriptor() {
    }

    /** IRDMA_HMC_PD_CNT_IN_SD. */
    public static final int PDS_PER_SD = 512;
    public static final int ENTRY_SIZE = 8;
    public static final long VALID = Bits.bit(0);
    /** Bits 11:1: zero in everything the driver writes (the page is IRDMA_HMC_PD_BP_BUF_ALIGNMENT aligned). */
    public static final long RESERVED = Bits.genmask(11, 1);
    public static final long ADDRESS = Bits.genmask(63, 12);

    public static long encode(long backingPage) {
        return backingPage | VALID;
    }

    public static boolean valid(long pd) {
        return (pd & VALID) != 0;
    }

    public static long backingPage(long pd) {
        return pd & ADDRESS;
    }

    /** True for 0 (invalid) and for a valid entry with no reserved bits: what the driver ever writes. */
    public static boolean wellFormed(long pd) {
        return (pd & RESERVED) == 0 && (valid(pd) || pd == 0);
    }

    /** Byte offset of relative PD {@code relPdIndex} within its PD page; -1 when outside 0..511. */
    public static int entryOffset(int relPdIndex) {
        return relPdIndex >= 0 && relPdIndex < PDS_PER_SD ? relPdIndex * ENTRY_SIZE : -1;
    }

    public static int sdIndexOf(long pdIndex) {
        return (int) (pdIndex / PDS_PER_SD);
    }

    public static int relativeIndexOf(long pdIndex) {
        return (int) (pdIndex % PDS_PER_SD);
    }

    /**
     * The PD at {@code relPdIndex} of the PD page at absolute {@code pageOffset} of {@code store}; 0 (invalid)
     * when the index or the page is outside the store's readable range.
     */
    public static long read(BytesStore<?, ?> store, long pageOffset, int relPdIndex) {
        int rel = entryOffset(relPdIndex);
        if (rel < 0 || store == null || pageOffset < store.start() || pageOffset > store.readLimit() - rel - 8) {
            return 0L;
        }
        return store.readLong(pageOffset + rel);
    }

    public static void write(BytesStore<?, ?> store, long pageOffset, int relPdIndex, long pd) {
        int rel = entryOffset(relPdIndex);
        if (rel < 0) {
            throw new IllegalArgumentException("PD index " + relPdIndex);
        }
        store.writeLong(pageOffset + rel, pd);
    }
}
