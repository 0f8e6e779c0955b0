package dev.irdmaemu.driver.verbs;

import dev.irdmaemu.driver.PbleResource;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * A registered memory region: its STag (lkey = rkey, verbs.c irdma_create_stag), the iova range it covers, the
 * access it grants, and how the device finds its pages: a single physical address (no PBL: irdma_reg_phys_mr, or
 * a physically contiguous user range, irdma_reg_user_mr_type_mem) or PBLEs of level 1 or 2 in the HMC PBLE object.
 * A fast-register region (irdma_alloc_mr) owns a level-1 PBLE list its {@link #map} fills before an IB_WR_REG_MR.
 *
 * <p>The application reaches the bytes through {@link #store()} and {@link #storeOffset(long)} (contiguous regions)
 * or {@link #write(long, byte[], int, int)} / {@link #read(long, byte[], int, int)} (any region): the region's
 * memory is the driver's host RAM, the same bytes the device places into.
 */
public final class MemoryRegion {
    /** How the region was made. */
    public enum Kind {
        /** irdma_reg_phys_mr: one physically contiguous buffer, no PBL. */
        PHYSICAL,
        /** A consumer's buffer by pages (irdma_reg_user_mr_type_mem): no PBL when contiguous, else PBLEs. */
        USER,
        /** irdma_alloc_mr: an STag allocated for fast registration through the SQ. */
        FAST_REGISTER
    }

    public static final int PAGE_SIZE = 4096;

    final IrdmaVerbs verbs;
    final ProtectionDomain pd;
    final Kind kind;
    int stag;
    long iova;
    long length;
    final int access;
    PbleResource.Allocation pbles;
    final int maxPages;
    int pageCount;
    /** The region's pages' physical addresses (page 0 holds iova rounded down to the page). */
    final long[] pages;
    boolean deregistered;

    MemoryRegion(IrdmaVerbs verbs, ProtectionDomain pd, Kind kind, long iova, long length, int access, long[] pages,
                 int pageCount) {
        this.verbs = verbs;
        this.pd = pd;
        this.kind = kind;
        this.iova = iova;
        this.length = length;
        this.access = access;
        this.pages = pages;
        this.maxPages = pages.length;
        this.pageCount = pageCount;
    }

    public int lkey() {
        return stag;
    }

    public int rkey() {
        return stag;
    }

    /** The region's first address in the consumer's (iova) space: what SGEs and remote addresses use. */
    public long address() {
        return iova;
    }

    public long length() {
        return length;
    }

    public int access() {
        return access;
    }

    public ProtectionDomain pd() {
        return pd;
    }

    public Kind kind() {
        return kind;
    }

    /** 0 (no PBL), 1 or 2. */
    public int pbleLevel() {
        return pbles == null ? 0 : pbles.level;
    }

    /** The first PBLE index the device was given (level 1: the list; level 2: the root), -1 without PBL. */
    public int firstPbleIndex() {
        return pbles == null ? -1 : pbles.first;
    }

    public int pageCount() {
        return pageCount;
    }

    public boolean isDeregistered() {
        return deregistered;
    }

    /** True when the region's bytes are one run of host memory (then {@link #storeOffset} works for all of it). */
    public boolean contiguous() {
        for (int i = 1; i < pageCount; i++) {
            if (pages[i] != pages[0] + (long) i * PAGE_SIZE) {
                return false;
            }
        }
        return pageCount > 0;
    }

    /** The host RAM store the region's bytes live in. */
    public BytesStore<?, ?> store() {
        return verbs.driver().store();
    }

    /** Physical address of the byte at iova {@code address}, or -1 outside the region. */
    public long physicalAddress(long address) {
        long off = address - iova;
        if (off < 0 || off >= length) {
            return -1;
        }
        long inFirst = iova & (PAGE_SIZE - 1);
        long rel = inFirst + off;
        int page = (int) (rel / PAGE_SIZE);
        return page < pageCount ? pages[page] + rel % PAGE_SIZE : -1;
    }

    /** Store offset of the byte at iova {@code address} (for the consumer's own reads and writes). */
    public long storeOffset(long address) {
        long pa = physicalAddress(address);
        if (pa < 0) {
            throw new IllegalArgumentException("0x" + Long.toHexString(address) + " is outside " + this);
        }
        return verbs.driver().offsetOf(pa);
    }

    /** Copies {@code len} bytes of {@code src} into the region at iova {@code address}, page by page. */
    public void write(long address, byte[] src, int srcOffset, int len) {
        checkRange(address, len);
        BytesStore<?, ?> s = store();
        for (int i = 0; i < len; i++) {
            s.writeByte(storeOffset(address + i), src[srcOffset + i]);
        }
    }

    /** Copies {@code len} bytes of the region at iova {@code address} into {@code dst}. */
    public void read(long address, byte[] dst, int dstOffset, int len) {
        checkRange(address, len);
        BytesStore<?, ?> s = store();
        for (int i = 0; i < len; i++) {
            dst[dstOffset + i] = s.readByte(storeOffset(address + i));
        }
    }

    private void checkRange(long address, int len) {
        if (len < 0 || address < iova || address + len > iova + length) {
            throw new IllegalArgumentException(len + " bytes at 0x" + Long.toHexString(address) + " outside " + this);
        }
    }

    /**
     * Maps {@code length} bytes of physically contiguous host memory at {@code physical} into a fast-register
     * region (ib_map_mr_sg with one SG entry, verbs.c irdma_set_page per page): writes the page addresses into its
     * PBLE list and sets the iova to the buffer's address. Answers the pages mapped; the region becomes valid on the
     * device only when an IB_WR_REG_MR work request completes.
     */
    public int map(long physical, long length) {
        if (kind != Kind.FAST_REGISTER || deregistered) {
            throw new VerbsException(VerbsException.Kind.INVALID_ARGUMENT, "map on " + this);
        }
        long first = physical & ~(long) (PAGE_SIZE - 1);
        long end = physical + length;
        int n = (int) ((end - first + PAGE_SIZE - 1) / PAGE_SIZE);
        if (length <= 0 || n > maxPages) {
            throw new VerbsException(VerbsException.Kind.NO_MEMORY, n + " pages into a region of " + maxPages);
        }
        for (int i = 0; i < n; i++) {
            pages[i] = first + (long) i * PAGE_SIZE;
            verbs.pbles().writePage(pbles, i, pages[i]);
        }
        pageCount = n;
        iova = physical;
        this.length = length;
        return n;
    }

    @Override
    public String toString() {
        return "MR 0x" + Integer.toHexString(stag) + " " + kind + " [0x" + Long.toHexString(iova) + ", +" + length
                + ") " + pd + (pbles != null ? " PBL level " + pbles.level : "");
    }
}
