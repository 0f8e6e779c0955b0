package dev.irdmaemu.model.hmc;

import static dev.irdmaemu.fw.hmc.PbleLayout.PBLE_PER_PAGE;

import dev.irdmaemu.fw.bus.HostMemory;
import java.util.Objects;

/**
 * Where a ring the device produces into or consumes from lies in host memory: either one physically contiguous
 * buffer (the ring's PA in the create WQE or QP context), or a list of 4 KiB pages named by a one- or two-level
 * PBL in the HMC PBLE object (VIRTMAP / VQ: ctrl.c irdma_sc_cq_create and irdma_sc_aeq_create write the first PBLE
 * index in quadword 6; irdma_sc_qp_setctx writes the SQ's and RQ's first PBLE index in context quadwords 1 and 2).
 *
 * <p>Ring pages are always 4 KiB: the kernel maps queue memory page by page (verbs.c irdma_reg_user_mr with
 * IRDMA_MEMREG_TYPE_QP / _CQ and PAGE_SIZE; hw.c irdma_create_virt_aeq through utils.c irdma_map_vm_page_list),
 * and none of the queue ops carries a page-size field. As for a page frame, the bits of a PBLE below 4 KiB are
 * ignored.
 *
 * <p>The list is resolved once, at create time, and copied into model-owned memory: the device caches the
 * translation when it creates the queue, so a guest rewriting its PBLEs afterwards changes nothing. Resolution
 * checks every PBLE the ring needs against the committed PBLE count and the HMC backing, and every page against
 * mapped host memory; after that {@link #address(long)} is two array reads and allocates nothing. No entry of a
 * ring straddles a page: CQEs (32 or 64 bytes), AEQEs (16) and WQE chunks (uk.c pads SQ WQEs so none crosses an
 * IRDMA_MAX_QUANTA_PER_WR x 32 = 256-byte boundary) all divide 4 KiB; {@link #span(long)} lets a reader check.
 */
public final class RingPages {
    public static final int PAGE_SHIFT = 12;
    public static final int PAGE_SIZE = 1 << PAGE_SHIFT;
    private static final long PAGE_MASK = PAGE_SIZE - 1;

    /** Why a page list could not be mapped; each is a CQP error of the create op. */
    public enum Fault {
        NONE("mapped"),
        EMPTY_RING("a ring of no bytes"),
        INDEX_OUT_OF_RANGE("a PBLE the ring needs lies at or beyond the committed PBLE count"),
        PBLE_NOT_RESOLVED("a PBLE the ring needs is not backed (SD or PD invalid, or its page unmapped)"),
        PAGE_NOT_MAPPED("a page of the ring is outside mapped host memory");

        private final String text;

        Fault(String text) {
            this.text = text;
        }

        public String describe() {
            return text;
        }
    }

    private boolean paged;
    /** False before the first mapping and after a failed {@link #map} or {@link #clear}: it holds no offset. */
    private boolean mapped;
    private long base;
    private long bytes;
    private static final long[] NO_PAGES = new long[0];
    private long[] pages = NO_PAGES;
    private int pageCount;
    private Fault fault = Fault.NONE;
    private long faultPage;

    /** A physically contiguous ring of {@code ringBytes} at {@code pa} (the caller checks that it is mapped). */
    public void contiguous(long pa, long ringBytes) {
        paged = false;
        mapped = true;
        base = pa;
        bytes = ringBytes;
        pageCount = 0;
    }

    /**
     * Resolves the page list of a ring of {@code ringBytes} whose PBL starts at PBLE {@code first}, one or two
     * levels. On success this holds the copied list; on a fault it holds no mapping and {@link #fault()} and
     * {@link #faultPage()} say which page failed (callers resolve into a scratch instance, then
     * {@link #copyFrom}).
     */
    public Fault map(PbleWalker walker, HostMemory memory, boolean twoLevels, long first, long ringBytes) {
        faultPage = -1;
        clear();
        if (ringBytes <= 0) {
            return fault = Fault.EMPTY_RING;
        }
        long n = (ringBytes + PAGE_MASK) >>> PAGE_SHIFT;
        long entries = twoLevels ? (n + PBLE_PER_PAGE - 1) / PBLE_PER_PAGE : n;
        if (first < 0 || n > Integer.MAX_VALUE - 8 || first + entries > walker.committed()) {
            faultPage = 0;
            return fault = Fault.INDEX_OUT_OF_RANGE;
        }
        if (pages.length < n) {
            pages = new long[(int) n];
        }
        for (int i = 0; i < n; i++) {
            if (!walker.page(twoLevels, first, i)) {
                faultPage = i;
                return fault = walker.fault() == HmcFault.INDEX_OUT_OF_RANGE ? Fault.INDEX_OUT_OF_RANGE
                        : Fault.PBLE_NOT_RESOLVED;
            }
            long page = walker.value() & ~PAGE_MASK;
            long used = i == n - 1 ? ringBytes - ((long) i << PAGE_SHIFT) : PAGE_SIZE;
            if (!memory.contains(page, used)) {
                faultPage = i;
                return fault = Fault.PAGE_NOT_MAPPED;
            }
            pages[i] = page;
        }
        pageCount = (int) n;
        paged = true;
        mapped = true;
        base = 0;
        bytes = ringBytes;
        return fault = Fault.NONE;
    }

    /** Takes over {@code other}'s mapping (a copy: the two stay independent). */
    public void copyFrom(RingPages other) {
        paged = other.paged;
        mapped = other.mapped;
        base = other.base;
        bytes = other.bytes;
        pageCount = other.pageCount;
        if (paged) {
            if (pages.length < pageCount) {
                pages = new long[pageCount];
            }
            System.arraycopy(other.pages, 0, pages, 0, pageCount);
        }
    }

    /**
     * The queue is destroyed: a page list is dropped (its memory freed, every address -1); a contiguous ring's
     * address is kept, as before PBL-mapped rings existed.
     */
    public void release() {
        if (paged) {
            pages = NO_PAGES;
            pageCount = 0;
            paged = false;
            mapped = false;
        }
    }

    /** Forgets the mapping. The page array is kept for the next mapping (a scratch instance's reuse). */
    public void clear() {
        paged = false;
        mapped = false;
        base = 0;
        bytes = 0;
        pageCount = 0;
    }

    /**
     * Whether byte {@code offset} of the ring has a guest-physical address: a contiguous ring holds every offset
     * once mapped (its caller keeps within the ring), a paged one the offsets of its resolved pages. Callers on
     * the per-WQE path ask this before {@link #address(long)}.
     */
    public boolean holds(long offset) {
        if (!paged) {
            return mapped;
        }
        return offset >= 0 && (offset >>> PAGE_SHIFT) < pageCount;
    }

    /**
     * Guest-physical address of byte {@code offset} of the ring, which must be one it {@link #holds(long)}.
     *
     * @throws IllegalStateException when the ring does not hold {@code offset}
     */
    public long address(long offset) {
        if (!holds(offset)) {
            throw new IllegalStateException("ring holds no byte at offset " + offset);
        }
        if (!paged) {
            return base + offset;
        }
        return pages[(int) (offset >>> PAGE_SHIFT)] + (offset & PAGE_MASK);
    }

    /** Bytes from {@code offset} to the end of its page (paged), or to the end of the ring (contiguous). */
    public long span(long offset) {
        return paged ? PAGE_SIZE - (offset & PAGE_MASK) : bytes - offset;
    }

    public boolean mapped() {
        return mapped;
    }

    public boolean paged() {
        return paged;
    }

    public int pageCount() {
        return pageCount;
    }

    /**
     * The address of page {@code i} (paged rings).
     *
     * @throws IndexOutOfBoundsException when {@code i} is not below {@link #pageCount()}
     */
    public long page(int i) {
        return pages[Objects.checkIndex(i, pageCount)];
    }

    public long bytes() {
        return bytes;
    }

    public Fault fault() {
        return fault;
    }

    /** The ring page whose translation failed last, or -1. */
    public long faultPage() {
        return faultPage;
    }
}
