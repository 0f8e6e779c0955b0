package dev.irdmaemu.driver;

import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.hmc.FpmCommitBuffer;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.hmc.PageDescriptor;
import dev.irdmaemu.fw.hmc.SegmentDescriptor;
import dev.irdmaemu.fw.reg.Gen2Registers;
import java.util.function.IntConsumer;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's side of the HMC's segment descriptor table (hmc_info->sd_table): which SDs are valid, direct or
 * paged, and the host memory behind them.
 * <ul>
 * <li>hw.c irdma_create_hmc_objs / hmc.c irdma_sc_create_hmc_obj: every object type but PBLE, in the order of
 * hw.c iw_hmc_obj_types, gets a direct SD (one 2 MiB, 2 MiB-aligned coherent page) for each SD of its range not
 * yet valid; the new SDs of one type are programmed by hmc.c irdma_hmc_sd_grp with Update PE SDs, at most
 * IRDMA_MAX_SD_ENTRIES (11) per op: three in the WQE, the rest in the CQP's SD buffer at 128 bytes per WQE index
 * (ctrl.c cqp_sds_wqe_fill, IRDMA_UPDATE_SD_BUFF_SIZE).</li>
 * <li>pble.c irdma_hmc_init_pble / add_pble_prm: the PBLE object's first chunk starts at its first 4 KiB boundary:
 * in a valid direct SD it reuses that SD's page; at an SD boundary with a whole SD's worth of PBLEs left it takes a
 * new direct SD; else a paged SD, one 4 KiB page per PD written in the SD's PD page, each followed by PFHMC_PDINV
 * (hmc.c irdma_add_pd_table_entry), then one Update PE SDs (hmc.c irdma_hmc_sd_one).</li>
 * <li>hw.c irdma_del_hmc_objects / hmc.c irdma_sc_del_hmc_obj at teardown ({@link #deleteObjects}): per type in the
 * same order, the valid PDs of its paged SDs removed (PFHMC_PDINV), then its SDs whose use count drops to 0 cleared
 * with Update PE SDs (hmc.c irdma_finish_del_sd_reg -> irdma_hmc_sd_grp) and their memory freed.</li>
 * </ul>
 */
final class HmcBacking {
    private static final Logger LOG = LoggerFactory.getLogger(HmcBacking.class);
    /** hmc.h IRDMA_MAX_SD_ENTRIES: the SDs one Update PE SDs op carries. */
    static final int MAX_SD_ENTRIES = CqpWqe.SD_INLINE_MAX + CqpWqe.SD_BUFFER_MAX;
    /** defs.h IRDMA_UPDATE_SD_BUFF_SIZE: the SD buffer's slot per CQP WQE index. */
    static final int UPDATE_SD_BUFF_SIZE = 128;
    /** hw.c iw_hmc_obj_types: the order irdma_create_hmc_objs creates the objects in. */
    static final HmcObjectType[] CREATE_ORDER = {
        HmcObjectType.QP, HmcObjectType.CQ, HmcObjectType.SRQ, HmcObjectType.HTE, HmcObjectType.ARP,
        HmcObjectType.APBVT_ENTRY, HmcObjectType.MR, HmcObjectType.XF, HmcObjectType.XFFL, HmcObjectType.Q1,
        HmcObjectType.Q1FL, HmcObjectType.PBLE, HmcObjectType.TIMER, HmcObjectType.FSIMC, HmcObjectType.FSIAV,
        HmcObjectType.RRF, HmcObjectType.RRFFL, HmcObjectType.HDR, HmcObjectType.MD, HmcObjectType.OOISC,
        HmcObjectType.OOISCFFL,
    };
    private static final long SD_BYTES = SegmentDescriptor.DIRECT_BP_SIZE;
    private static final long PAGE = SegmentDescriptor.PAGED_BP_SIZE;

    /** How pble.c backed the PBLE object's first chunk. */
    enum PbleChunkType {
        NONE, REUSED_DIRECT, NEW_DIRECT, PAGED
    }

    private final CqpChannel cqp;
    private final HostRam ram;
    private final BytesStore<?, ?> store;
    private final IntConsumer pdInvalidate;
    private final int sdCount;
    private final boolean[] valid;
    private final boolean[] direct;
    /** Direct SD: its 2 MiB page. Paged SD: its PD page. */
    private final long[] address;
    /** Paged SD: the backing page of each PD (0 = none). */
    private final long[][] pdPages;
    /** Direct SD: sd_entry->u.bp.use_cnt (hmc.c irdma_add_sd_table_entry: one per object type over it). */
    private final int[] useCount;
    /** sd_entry->entry_type is IRDMA_SD_TYPE_PAGED (it keeps its type once cleared, as the kernel's entry does). */
    private final boolean[] pagedEntry;
    /** The range each object type was created over (hmc_info->hmc_obj[type].base / cnt / size), for its delete. */
    private final long[] objectBase = new long[HmcObjectType.values().length];
    private final long[] objectCount = new long[HmcObjectType.values().length];
    private final long[] objectSize = new long[HmcObjectType.values().length];
    /** hmc_info->sd_indexes: the SDs one delete took out of use, in order. */
    private final int[] removed;
    private final long[] commands = new long[MAX_SD_ENTRIES];
    private final long[] data = new long[MAX_SD_ENTRIES];
    private long sdBuffer;
    private long sdBufferSpan;
    private int updateOps;
    private int directSds;
    private long bytesAllocated;
    private long pbleChunkStart;
    private long pbleChunkEnd;
    private PbleChunkType pbleChunkType = PbleChunkType.NONE;
    // pble.c struct irdma_hmc_pble_rsrc: the object's base, next_fpm_addr and unallocated_pble
    private long pbleBase;
    private long pbleNext;
    private long pbleUnallocated;
    private int pbleChunks;

    /**
     * @param sdCount      hmc_info->sd_table.sd_cnt as irdma_sc_parse_fpm_commit_buf sets it (the last object's end)
     * @param pdInvalidate writes PFHMC_PDINV
     */
    HmcBacking(CqpChannel cqp, HostRam ram, int sdCount, IntConsumer pdInvalidate) {
        this.cqp = cqp;
        this.ram = ram;
        this.store = ram.store();
        this.pdInvalidate = pdInvalidate;
        this.sdCount = sdCount;
        this.valid = new boolean[sdCount];
        this.direct = new boolean[sdCount];
        this.address = new long[sdCount];
        this.pdPages = new long[sdCount][];
        this.useCount = new int[sdCount];
        this.pagedEntry = new boolean[sdCount];
        this.removed = new int[sdCount];
    }

    /** hmc_info->hmc_obj[t]: what irdma_sc_parse_fpm_commit_buf recorded, which irdma_del_hmc_objects walks. */
    void recordObject(HmcObjectType t, long base, long count, long size) {
        objectBase[t.ordinal()] = base;
        objectCount[t.ordinal()] = count;
        objectSize[t.ordinal()] = size;
    }

    /**
     * hmc.c irdma_sc_create_hmc_obj for one type (the whole count from index 0, entry type direct), then
     * irdma_hmc_finish_add_sd_reg: programs the SDs it made valid.
     */
    void createObject(HmcObjectType t, long base, long count, long objectSize) {
        if (count == 0) {
            return;
        }
        int first = (int) (base / SD_BYTES);
        int limit = (int) ((base + count * objectSize + SD_BYTES - 1) / SD_BYTES);
        if (first >= sdCount || limit > sdCount) {
            // hmc.c irdma_sc_create_hmc_obj: -EINVAL (a commit answer whose last object is not the furthest)
            LOG.warn("HMC object {} spans SDs {}..{} beyond sd_cnt {}", t, first, limit, sdCount);
            throw new CqpException(CqpException.Kind.BAD_FPM, "COMMIT_FPM_VAL", 0, 0);
        }
        int added = 0;
        int firstAdded = -1;
        for (int sd = first; sd < limit; sd++) {
            if (valid[sd]) {
                if (direct[sd]) {
                    useCount[sd]++;
                }
                continue;
            }
            useCount[sd] = 1;
            address[sd] = allocate(SD_BYTES);
            direct[sd] = true;
            valid[sd] = true;
            directSds++;
            if (firstAdded < 0) {
                firstAdded = sd;
            }
            added++;
        }
        if (added > 0) {
            programGroup(firstAdded, added);
        }
    }

    /** hmc.c irdma_hmc_sd_grp (setsd): every valid SD of the range, IRDMA_MAX_SD_ENTRIES per Update PE SDs. */
    private void programGroup(int firstSd, int sdsInRange) {
        int n = 0;
        for (int sd = firstSd; sd < firstSd + sdsInRange; sd++) {
            if (!valid[sd]) {
                continue;
            }
            n = batch(n, SegmentDescriptor.command(sd), SegmentDescriptor.setData(address[sd], direct[sd]), false);
        }
        flush(n, false);
    }

    /**
     * SD entry {@code n} of the batch; a full batch (IRDMA_MAX_SD_ENTRIES) goes out as one Update PE SDs at once.
     * Answers how many entries wait for the next op.
     */
    private int batch(int n, long command, long datum, boolean teardown) {
        commands[n] = command;
        data[n] = datum;
        if (n + 1 == MAX_SD_ENTRIES) {
            flush(n + 1, teardown);
            return 0;
        }
        return n + 1;
    }

    /** The {@code n} waiting entries, if any, as one Update PE SDs; a teardown's refusal is only logged. */
    private void flush(int n, boolean teardown) {
        if (n == 0) {
            return;
        }
        if (teardown) {
            updateQuietly(n);
        } else {
            update(n);
        }
    }

    private void update(int n) {
        cqp.op("UPDATE_PE_SDS", (o, v) -> {
            long slot = 0;
            if (n > CqpWqe.SD_INLINE_MAX) {
                // ctrl.c cqp_sds_wqe_fill: the entries past the third go to this WQE index's 128-byte slot
                slot = sdBuffer() + cqp.wqeIndexAt(o) * (long) UPDATE_SD_BUFF_SIZE;
            }
            CqpWqeWriter.updatePeSds(store, o, IrdmaDriver.HMC_FN_ID, commands, data, n, slot, store,
                    slot == 0 ? 0 : ram.offsetOf(slot), v);
        });
        updateOps++;
    }

    /** cqp->sdbuf: IRDMA_UPDATE_SD_BUFF_SIZE bytes per CQP WQE (hw.c irdma_create_cqp allocates it with the SQ). */
    private long sdBuffer() {
        if (sdBuffer == 0) {
            sdBufferSpan = (long) IrdmaDriver.CQP_ENTRIES * UPDATE_SD_BUFF_SIZE;
            sdBuffer = allocate(sdBufferSpan);
        }
        return sdBuffer;
    }

    /**
     * pble.c irdma_hmc_init_pble + add_pble_prm: backs the first chunk of the PBLE object ({@code count} entries of
     * 8 bytes from {@code base}) and answers the PBLE index (relative to {@code base}) where the backed range ends.
     */
    long initPble(long base, long count) {
        long fpmIdx = (base & 0xfff) != 0 ? (4096 - (base & 0xfff)) >> 3 : 0;
        pbleBase = base;
        pbleUnallocated = count - fpmIdx;
        pbleNext = base + fpmIdx * 8;
        pbleChunkStart = pbleNext;
        pbleChunkEnd = pbleNext;
        if (pbleUnallocated >= PageDescriptor.PDS_PER_SD && pbleNext / SD_BYTES >= sdCount) {
            LOG.warn("PBLE object at SD {} beyond sd_cnt {}", pbleNext / SD_BYTES, sdCount);
            throw new CqpException(CqpException.Kind.BAD_FPM, "COMMIT_FPM_VAL", 0, 0);
        }
        return addPbleChunk() instanceof PbleChunk.Backed b ? b.end() : fpmIdx;
    }

    /**
     * pble.c add_pble_prm: backs the next chunk of the PBLE object, from where the last one ended to the end of its
     * SD (or of the object): reusing a valid direct SD, a new direct SD when the chunk is a whole SD, else a paged
     * SD with a 4 KiB page per PD; a newly valid SD is programmed with one Update PE SDs (hmc.c irdma_hmc_sd_one).
     * Answers where the backed range now ends, or {@link PbleChunk.NoChunk#ENOMEM} when no chunk can be added:
     * fewer than a page of PBLEs left, an SD beyond sd_cnt, or no host memory for the pages
     * (irdma_pble_get_paged_mem: -ENOMEM, nothing taken).
     */
    PbleChunk addPbleChunk() {
        if (pbleUnallocated < PageDescriptor.PDS_PER_SD) {
            // fewer PBLEs than one page holds: -ENOMEM
            return PbleChunk.NoChunk.ENOMEM;
        }
        long next = pbleNext;
        if ((next & 0xfff) != 0) {
            return PbleChunk.NoChunk.ENOMEM;
        }
        int sd = (int) (next / SD_BYTES);
        if (sd >= sdCount) {
            LOG.warn("PBLE chunk at SD {} beyond sd_cnt {}", sd, sdCount);
            return PbleChunk.NoChunk.ENOMEM;
        }
        int relPd = (int) (next / PAGE % PageDescriptor.PDS_PER_SD);
        long pages = relPd != 0 ? PageDescriptor.PDS_PER_SD - relPd : PageDescriptor.PDS_PER_SD;
        pages = Math.min(pages, pbleUnallocated >> 9);
        boolean wasValid = valid[sd];
        boolean useDirect = wasValid ? direct[sd] : relPd == 0 && pages == PageDescriptor.PDS_PER_SD;
        if (useDirect && !wasValid) {
            // add_sd_direct: a 2 MiB page; when it cannot be had, add_pble_prm falls back to a paged SD
            long page = tryAllocate(SD_BYTES);
            if (page == 0) {
                useDirect = false;
            } else {
                address[sd] = page;
                direct[sd] = true;
                valid[sd] = true;
                // pble.c add_sd_direct -> irdma_add_sd_table_entry: the new SD's first use
                useCount[sd] = 1;
                directSds++;
                pbleChunkType = PbleChunkType.NEW_DIRECT;
            }
        } else if (useDirect) {
            pbleChunkType = PbleChunkType.REUSED_DIRECT;
        }
        if (!useDirect && !addPagedChunk(sd, relPd, (int) pages, wasValid)) {
            return PbleChunk.NoChunk.ENOMEM;
        }
        pbleChunkStart = next;
        pbleChunkEnd = next + pages * PAGE;
        pbleNext = pbleChunkEnd;
        pbleUnallocated -= pages * PAGE / 8;
        pbleChunks++;
        if (!wasValid) {
            programGroup(sd, 1);
        }
        return new PbleChunk.Backed((pbleChunkEnd - pbleBase) / 8);
    }

    /**
     * pble.c add_bp_pages: every page of the chunk first (irdma_pble_get_paged_mem: all or nothing), then the SD's
     * PD page if it has none, each PD written and invalidated (hmc.c irdma_add_pd_table_entry).
     */
    private boolean addPagedChunk(int sd, int relPd, int pages, boolean wasValid) {
        long[] taken = new long[pages];
        long pdPage = 0;
        for (int i = 0; i < pages; i++) {
            int rel = relPd + i;
            if (pdPages[sd] != null && pdPages[sd][rel] != 0) {
                continue;
            }
            taken[i] = tryAllocate(PAGE);
            if (taken[i] == 0) {
                giveBack(taken);
                return false;
            }
        }
        if (!wasValid) {
            pdPage = tryAllocate(PAGE);
            if (pdPage == 0) {
                giveBack(taken);
                return false;
            }
            address[sd] = pdPage;
            direct[sd] = false;
            pagedEntry[sd] = true;
            pdPages[sd] = new long[PageDescriptor.PDS_PER_SD];
        }
        long pdPageOffset = ram.offsetOf(address[sd]);
        for (int i = 0; i < pages; i++) {
            if (taken[i] == 0) {
                continue;
            }
            int rel = relPd + i;
            pdPages[sd][rel] = taken[i];
            PageDescriptor.write(store, pdPageOffset, rel, PageDescriptor.encode(taken[i]));
            pdInvalidate.accept(Gen2Registers.pdInvalidate(sd, rel));
        }
        valid[sd] = true;
        pbleChunkType = PbleChunkType.PAGED;
        return true;
    }

    /**
     * hw.c irdma_del_hmc_objects: for each object type of iw_hmc_obj_types with a count, hmc.c irdma_sc_del_hmc_obj
     * over its whole range: first every valid PD of a paged SD in it (irdma_remove_pd_bp: the PD entry zeroed,
     * PFHMC_PDINV, the page freed), then every valid SD of it (direct: irdma_prep_remove_sd_bp, out of use when its
     * use count drops to 0; paged: irdma_prep_remove_pd_page, when no PD is left), then irdma_finish_del_sd_reg:
     * (without a reset) irdma_hmc_sd_grp clears the SDs from the first one taken out, as many as were, skipping
     * any still valid, IRDMA_MAX_SD_ENTRIES per Update PE SDs; then the SDs' memory is freed. The SD buffer of the
     * CQP goes last (hw.c irdma_destroy_cqp frees cqp->sdbuf).
     */
    void deleteObjects(boolean reset) {
        for (HmcObjectType t : CREATE_ORDER) {
            int o = t.ordinal();
            if (objectCount[o] != 0) {
                deleteObject(objectBase[o], objectCount[o], objectSize[o], reset);
            }
        }
        if (sdBuffer != 0) {
            free(sdBuffer, sdBufferSpan);
            sdBuffer = 0;
        }
    }

    private void deleteObject(long base, long count, long size, boolean reset) {
        long fpmLimit = base + count * size;
        // irdma_find_pd_index_limit / irdma_find_sd_index_limit
        long pdFirst = base / PAGE;
        long pdLimit = (fpmLimit - 1) / PAGE + 1;
        for (long j = pdFirst; j < pdLimit; j++) {
            int sd = (int) (j / PageDescriptor.PDS_PER_SD);
            if (sd >= sdCount || !valid[sd] || direct[sd] || pdPages[sd] == null) {
                continue;
            }
            int rel = (int) (j % PageDescriptor.PDS_PER_SD);
            if (pdPages[sd][rel] != 0) {
                PageDescriptor.write(store, ram.offsetOf(address[sd]), rel, 0);
                pdInvalidate.accept(Gen2Registers.pdInvalidate(sd, rel));
                free(pdPages[sd][rel], PAGE);
                pdPages[sd][rel] = 0;
            }
        }
        int sdFirst = (int) (base / SD_BYTES);
        int sdLimit = (int) ((fpmLimit - 1) / SD_BYTES) + 1;
        if (sdFirst >= sdCount || sdLimit > sdCount) {
            LOG.debug("teardown: HMC object at SDs {}..{} beyond sd_cnt {}", sdFirst, sdLimit, sdCount);
            return;
        }
        int n = 0;
        for (int sd = sdFirst; sd < sdLimit; sd++) {
            if (!valid[sd]) {
                continue;
            }
            if (direct[sd]) {
                if (--useCount[sd] > 0) {
                    continue;
                }
            } else if (pdsInUse(sd)) {
                continue;
            }
            valid[sd] = false;
            removed[n++] = sd;
        }
        if (n == 0) {
            return;
        }
        if (!reset) {
            clearGroup(removed[0], n);
        }
        for (int i = 0; i < n; i++) {
            int sd = removed[i];
            free(address[sd], direct[sd] ? SD_BYTES : PAGE);
            if (direct[sd]) {
                directSds--;
            }
            address[sd] = 0;
            pdPages[sd] = null;
        }
    }

    private boolean pdsInUse(int sd) {
        if (pdPages[sd] == null) {
            return false;
        }
        for (long page : pdPages[sd]) {
            if (page != 0) {
                return true;
            }
        }
        return false;
    }

    /** hmc.c irdma_hmc_sd_grp (clear): the invalid SDs of the range, irdma_clr_sd_entry each, 11 per op. */
    private void clearGroup(int firstSd, int sdsInRange) {
        int n = 0;
        for (int sd = firstSd; sd < firstSd + sdsInRange && sd < sdCount; sd++) {
            if (valid[sd]) {
                continue;
            }
            // irdma_clr_sd_entry: type bit 0 for a paged entry, 1 otherwise (direct, or never used: SD_TYPE_INVALID)
            n = batch(n, SegmentDescriptor.command(sd), SegmentDescriptor.clearData(!pagedEntry[sd]), true);
        }
        flush(n, true);
    }

    /** An Update PE SDs of the teardown: a refusal is logged and the teardown goes on (hmc.c ibdev_dbg). */
    private void updateQuietly(int n) {
        try {
            update(n);
        } catch (CqpException e) {
            LOG.debug("teardown: Update PE SDs failed: {}", e.getMessage());
        }
    }

    private void free(long gpa, long bytes) {
        ram.free(gpa, bytes);
        bytesAllocated -= bytes;
    }

    /** A host allocation, or 0 when host memory has no room for it (the kernel's failed dma_alloc_coherent). */
    private long tryAllocate(long bytes) {
        try {
            return allocate(bytes);
        } catch (IllegalStateException e) {
            LOG.debug("no host memory for {} bytes of PBLE backing: {}", bytes, e.getMessage());
            return 0;
        }
    }

    private void giveBack(long[] pages) {
        for (long p : pages) {
            if (p != 0) {
                ram.free(p, PAGE);
                bytesAllocated -= PAGE;
            }
        }
    }

    /** Chunks add_pble_prm added to the PBLE pool (the first one included). */
    int pbleChunks() {
        return pbleChunks;
    }

    private long allocate(long bytes) {
        bytesAllocated += bytes;
        return ram.allocate(bytes);
    }

    /** The host address behind FPM address {@code fpm}; -1 where no SD or PD backs it. */
    long hostAddress(long fpm) {
        if (fpm < 0) {
            return -1;
        }
        long sdl = fpm / SD_BYTES;
        if (sdl >= sdCount || !valid[(int) sdl]) {
            return -1;
        }
        int sd = (int) sdl;
        long in = fpm % SD_BYTES;
        if (direct[sd]) {
            return address[sd] + in;
        }
        long page = pdPages[sd][(int) (in / PAGE)];
        return page == 0 ? -1 : page + in % PAGE;
    }

    int sdCount() {
        return sdCount;
    }

    boolean sdValid(int sd) {
        return sd >= 0 && sd < sdCount && valid[sd];
    }

    boolean sdDirect(int sd) {
        return sdValid(sd) && direct[sd];
    }

    /** A valid SD's host address: the 2 MiB page of a direct SD, the PD page of a paged one. */
    long sdAddress(int sd) {
        return sdValid(sd) ? address[sd] : -1;
    }

    int directSds() {
        return directSds;
    }

    int updateOps() {
        return updateOps;
    }

    long bytesAllocated() {
        return bytesAllocated;
    }

    PbleChunkType pbleChunkType() {
        return pbleChunkType;
    }

    long pbleChunkStart() {
        return pbleChunkStart;
    }

    long pbleChunkEnd() {
        return pbleChunkEnd;
    }

    /** sd_cnt as irdma_sc_parse_fpm_commit_buf derives it from the object with the highest base. */
    static int sdCountOf(FpmCommitBuffer cb, long[] objectSize) {
        long maxBase = 0;
        HmcObjectType last = HmcObjectType.QP;
        for (HmcObjectType t : HmcObjectType.values()) {
            if (cb.base(t) > maxBase && cb.committedCount(t) != 0) {
                maxBase = cb.base(t);
                last = t;
            }
        }
        long count = last == HmcObjectType.APBVT_ENTRY ? 1 : cb.committedCount(last);
        long size = count * objectSize[last.ordinal()] + cb.base(last);
        return (int) FpmCommitBuffer.sdCount(size);
    }
}
