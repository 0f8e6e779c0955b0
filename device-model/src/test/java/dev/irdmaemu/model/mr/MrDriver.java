package dev.irdmaemu.model.mr;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.cqp.CqOpFields;
import dev.irdmaemu.fw.cqp.CqpCompletion;
import dev.irdmaemu.fw.cqp.CqpHostContext;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.StagFields;
import dev.irdmaemu.fw.hmc.FpmCommitBuffer;
import dev.irdmaemu.fw.hmc.FpmQueryBuffer;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.hmc.PageDescriptor;
import dev.irdmaemu.fw.hmc.SegmentDescriptor;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.E810RdmaFunction;
import dev.irdmaemu.model.LatencyTable;
import dev.irdmaemu.model.PageListWriter;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.Trace;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The driver's side of memory registration for the tests, touching the model only through MMIO and host memory:
 * the probe's CQP / HMC / CCQ bring-up (hw.c irdma_create_cqp, irdma_hmc_setup, irdma_create_ccq), the PBLE
 * object as pble.c fills it (a PBLE at HMC offset base + 8 x index, the driver writing through its own backing
 * pages), and the STag WQEs as verbs.c builds them (irdma_hwreg_mr, irdma_reg_phys_mr, irdma_hw_alloc_stag,
 * irdma_hwdereg_mr, irdma_post_send IB_WR_REG_MR / IB_WR_LOCAL_INV). The STag values follow irdma_create_stag:
 * a driver key in the bits above the index.
 */
final class MrDriver implements AutoCloseable {
    static final long RAM_BASE = 0x4000_0000L;
    static final long RAM_SIZE = 64L << 20;
    static final long PAGE = 4096;

    final SimScheduler scheduler = new SimScheduler(11);
    final HostMemory memory = new HostMemory();
    final HostRam ram;
    final RecordingTraceSink sink = new RecordingTraceSink();
    final Trace trace = new Trace(scheduler).enableAll(sink);
    final E810RdmaFunction dev;
    final MemoryRegionTable mrs;

    private long sqBase;
    private int sqSize;
    private int head;
    private boolean polarity;
    private long ccqRing;
    private long ccqShadow;
    private int ccqSize;
    private int ccqHead;
    private boolean ccqPolarity = true;

    final Map<HmcObjectType, Long> committedCount = new EnumMap<>(HmcObjectType.class);
    final Map<HmcObjectType, Long> committedBase = new EnumMap<>(HmcObjectType.class);
    /** The backing page of each 4 KiB HMC page, by HMC page number (hmc.c irdma_add_pd_table_entry). */
    final List<Long> hmcPages = new ArrayList<>();
    final List<Long> pdPages = new ArrayList<>();
    private PageListWriter pbles;
    private long lastSqWqe;

    /** One CQP completion as the driver polls it from the CCQ. */
    record Completion(boolean error, int major, int minor) {
    }

    static Map<HmcObjectType, Long> counts(long mrs, long pbles) {
        Map<HmcObjectType, Long> m = new EnumMap<>(HmcObjectType.class);
        m.put(HmcObjectType.QP, 64L);
        m.put(HmcObjectType.CQ, 128L);
        m.put(HmcObjectType.HTE, 1024L);
        m.put(HmcObjectType.ARP, 32L);
        m.put(HmcObjectType.MR, mrs);
        m.put(HmcObjectType.XF, 64L);
        m.put(HmcObjectType.XFFL, 1L);
        m.put(HmcObjectType.Q1, 128L);
        m.put(HmcObjectType.Q1FL, 2L);
        m.put(HmcObjectType.TIMER, 32L);
        m.put(HmcObjectType.FSIMC, 16L);
        m.put(HmcObjectType.FSIAV, 16L);
        m.put(HmcObjectType.PBLE, pbles);
        m.put(HmcObjectType.RRF, 64L);
        m.put(HmcObjectType.RRFFL, 1L);
        m.put(HmcObjectType.HDR, 64L);
        m.put(HmcObjectType.MD, 64L);
        m.put(HmcObjectType.OOISC, 16L);
        m.put(HmcObjectType.OOISCFFL, 1L);
        return m;
    }

    /** A device brought up with 256 MRs and 4096 PBLEs. */
    MrDriver() {
        this(256, 4096);
    }

    MrDriver(long mrCount, long pbleCount) {
        this(mrCount, pbleCount, RAM_SIZE);
    }

    MrDriver(long mrCount, long pbleCount, long ramSize) {
        dev = new E810RdmaFunction(scheduler, memory, v -> { }, trace, new LatencyTable());
        mrs = dev.stags();
        ram = new HostRam(memory, RAM_BASE, ramSize);
        createCqp(64);
        queryAndCommit(counts(mrCount, pbleCount));
        backHmcPaged();
        createCcq(64);
    }

    BytesStore<?, ?> store() {
        return ram.store();
    }

    long off(long gpa) {
        return ram.offsetOf(gpa);
    }

    long alloc(long bytes) {
        return ram.allocate(bytes);
    }

    void run() {
        if (!scheduler.runUntilIdle(scheduler.now() + 10_000_000_000L)) {
            throw new AssertionError("model did not go idle");
        }
    }

    // ------------------------------------------------------------------ CQP

    private void createCqp(int entries) {
        sqSize = entries;
        sqBase = alloc((long) entries * CqpWqe.SIZE);
        long ctx = alloc(CqpHostContext.SIZE);
        CqpHostContext.Fields f = new CqpHostContext.Fields();
        f.sqEntries = entries;
        f.sqBase = sqBase;
        f.hmcProfile = 1;
        f.protocolUsed = 1;
        f.hwMajorVersion = CqpHostContext.HW_MAJVER_GEN_2;
        f.completionContext = 0x5eed;
        CqpHostContext.write(store(), off(ctx), f);
        dev.write32(Gen2Register.CCQPHIGH.offset(), (int) (ctx >>> 32));
        dev.write32(Gen2Register.CCQPLOW.offset(), (int) ctx);
        run();
        if (!Gen2Registers.ccqpDone(dev.read32(Gen2Register.CCQPSTATUS.offset()))) {
            throw new AssertionError("CQP not created");
        }
    }

    @FunctionalInterface
    interface WqeWriter {
        void write(long offset, boolean valid);
    }

    /** Posts one WQE (irdma_sc_cqp_get_next_send_wqe_idx: polarity flips at index 0), rings and runs. */
    void post(WqeWriter writer) {
        int index = head;
        if (head == 0) {
            polarity = !polarity;
        }
        head = (head + 1) % sqSize;
        writer.write(off(sqBase + (long) index * CqpWqe.SIZE), polarity);
        dev.write32(Gen2Register.CQPDB.offset(), head);
        run();
    }

    /** Posts and answers the completion: from the CCQ once it exists, else from the registers. */
    Completion op(WqeWriter writer) {
        post(writer);
        if (ccqRing == 0) {
            int codes = dev.read32(Gen2Register.CQPERRCODES.offset());
            return new Completion(Gen2Registers.cqpTailError(dev.read32(Gen2Register.CQPTAIL.offset())),
                    Gen2Registers.cqpErrMajor(codes), Gen2Registers.cqpErrMinor(codes));
        }
        Completion c = pollCcq();
        if (c == null) {
            throw new AssertionError("no CCQ completion");
        }
        return c;
    }

    private Completion pollCcq() {
        CqpCompletion c = new CqpCompletion().wrap(store(), off(ccqRing + (long) ccqHead * CqpCompletion.SIZE));
        if (c.valid() != ccqPolarity) {
            return null;
        }
        Completion r = new Completion(c.error(), c.majorCode(), c.minorCode());
        ccqHead++;
        if (ccqHead == ccqSize) {
            ccqHead = 0;
            ccqPolarity = !ccqPolarity;
        }
        store().writeLong(off(ccqShadow), ccqHead);
        return r;
    }

    private void queryAndCommit(Map<HmcObjectType, Long> counts) {
        long q = alloc(FpmQueryBuffer.SIZE);
        require(op((o, v) -> CqpWqeWriter.queryFpm(store(), o, 0, q, v)), "query FPM");
        long b = alloc(FpmCommitBuffer.SIZE);
        for (HmcObjectType t : HmcObjectType.values()) {
            FpmCommitBuffer.writeRequest(store(), off(b), t, counts.getOrDefault(t, 0L));
        }
        require(op((o, v) -> CqpWqeWriter.commitFpm(store(), o, 0, b, false, v)), "commit FPM");
        FpmCommitBuffer cb = new FpmCommitBuffer().wrap(store(), off(b));
        for (HmcObjectType t : HmcObjectType.values()) {
            committedCount.put(t, cb.committedCount(t));
            committedBase.put(t, cb.base(t));
        }
    }

    /** Paged SDs for the whole committed space, each PD pointing at a fresh 4 KiB backing page. */
    private void backHmcPaged() {
        long bytes = 0;
        for (HmcObjectType t : HmcObjectType.values()) {
            long cnt = committedCount.getOrDefault(t, 0L);
            if (cnt > 0) {
                bytes = Math.max(bytes, committedBase.get(t) + cnt * dev.hmc().objectSize(t));
            }
        }
        int sds = (int) FpmCommitBuffer.sdCount(bytes);
        long[] cmds = new long[sds];
        long[] data = new long[sds];
        for (int sd = 0; sd < sds; sd++) {
            long pdPage = alloc(PAGE);
            long inSd = Math.min(SegmentDescriptor.DIRECT_BP_SIZE, bytes - sd * SegmentDescriptor.DIRECT_BP_SIZE);
            int pds = (int) ((inSd + PAGE - 1) / PAGE);
            for (int pd = 0; pd < pds; pd++) {
                long page = alloc(PAGE);
                PageDescriptor.write(store(), off(pdPage), pd, PageDescriptor.encode(page));
                hmcPages.add(page);
            }
            pdPages.add(pdPage);
            cmds[sd] = SegmentDescriptor.command(sd);
            data[sd] = SegmentDescriptor.setData(pdPage, false);
        }
        long sdBuf = alloc(PAGE);
        require(op((o, v) -> CqpWqeWriter.updatePeSds(store(), o, 0, cmds, data, sds, sdBuf, store(), off(sdBuf),
                v)), "update SDs");
    }

    private void createCcq(int entries) {
        long ring = alloc((long) entries * 32);
        long shadow = alloc(64);
        CqOpFields f = new CqOpFields();
        f.cqId = 0;
        f.cqSize = entries;
        f.cqAddress = ring;
        f.shadowAreaAddress = shadow;
        f.ceqIdValid = true;
        f.checkOverflow = true;
        f.shadowReadThreshold = 16;
        ccqSize = entries;
        post((o, v) -> CqpWqeWriter.createCq(store(), o, f, v));
        // hw.c irdma_create_ccq: the Create CQ's own completion arrives in the CCQ it creates
        ccqRing = ring;
        ccqShadow = shadow;
        Completion c = pollCcq();
        if (c == null || c.error()) {
            throw new AssertionError("CCQ not created: " + c);
        }
    }

    private static void require(Completion c, String what) {
        if (c.error()) {
            throw new AssertionError(what + " failed: " + c);
        }
    }

    // ------------------------------------------------------------------ the PBLE object (pble.c)

    /** The guest-physical address of PBLE {@code index}: HMC offset base + 8 x index through the PD pages. */
    long pbleAddress(long index) {
        long hmcOffset = committedBase.get(HmcObjectType.PBLE) + 8 * index;
        return hmcPages.get((int) (hmcOffset / PAGE)) + hmcOffset % PAGE;
    }

    /**
     * Takes away the backing of the HMC page holding PBLE {@code index}: its PD entry becomes invalid
     * ({@code unmappedPage} 0) or points at {@code unmappedPage}, and PFHMC_PDINV drops the device's cached copy
     * (hmc.c irdma_invalidate_pf_hmc_pd).
     */
    void breakPbleBacking(long index, long unmappedPage) {
        long hmcPage = (committedBase.get(HmcObjectType.PBLE) + 8 * index) / PAGE;
        int sd = (int) (hmcPage / PageDescriptor.PDS_PER_SD);
        int pd = (int) (hmcPage % PageDescriptor.PDS_PER_SD);
        PageDescriptor.write(store(), off(pdPages.get(sd)), pd,
                unmappedPage == 0 ? 0 : PageDescriptor.encode(unmappedPage));
        dev.write32(Gen2Register.PFHMC_PDINV.offset(), Gen2Registers.pdInvalidate(sd, pd));
    }

    void writePble(long index, long value) {
        store().writeLong(off(pbleAddress(index)), value);
    }

    long pbleCount() {
        return committedCount.get(HmcObjectType.PBLE);
    }

    /** {@code n} consecutive PBLE indexes (pble.c irdma_prm_get_pbles hands out contiguous runs). */
    long allocPbles(long n) {
        return pbles().allocate(n);
    }

    /** A level-1 page list of {@code pages} (get_lvl1_pble); answers its first PBLE index. */
    long level1(long[] pages) {
        return pbles().level1(pages);
    }

    /** A two-level page list (get_lvl2_pble): root entries hold leaf PBLE indexes, 512 PBLEs per leaf. */
    long level2(long[] pages) {
        return pbles().level2(pages);
    }

    private PageListWriter pbles() {
        if (pbles == null) {
            pbles = new PageListWriter(pbleCount(), this::writePble);
        }
        return pbles;
    }

    /** {@code n} physically scattered 4 KiB pages, each with an unused guard page after it. */
    long[] scatteredPages(int n) {
        long[] p = new long[n];
        for (int i = 0; i < n; i++) {
            p[i] = alloc(2 * PAGE);
        }
        // reverse the order so that consecutive region pages are not ascending in memory either
        for (int i = 0; i < n / 2; i++) {
            long t = p[i];
            p[i] = p[n - 1 - i];
            p[n - 1 - i] = t;
        }
        return p;
    }

    // ------------------------------------------------------------------ STags (verbs.c)

    /** The STag irdma_create_stag builds: driver key in the bits above the index, the consumer key below. */
    int stag(int index, int driverKey, int consumerKey) {
        int indexBits = mrs.indexBits();
        return driverKey << (8 + indexBits) | index << 8 | consumerKey & 0xff;
    }

    /**
     * Register MR as irdma_hwreg_mr fills it: STag index = stag >> 8, key = low byte, rights with LOCALREAD, remote
     * access when the rights are remote, VA-based unless ZERO_BASED (then quadword 0 is va &amp; (page - 1)).
     */
    static StagFields regFields(int stag, int pd, long va, long len, int rights, int chunk, long firstPble,
                                long regAddress) {
        StagFields f = new StagFields();
        f.stagIndex = stag >>> 8;
        f.stagKey = stag & 0xff;
        f.pdId = pd;
        f.length = len;
        f.accessRights = (rights | MemoryRegions.LOCAL_READ) & 0x1f;
        f.remoteAccess = (rights & (MemoryRegions.REMOTE_READ | MemoryRegions.REMOTE_WRITE)) != 0;
        f.vaBased = (rights & MemoryRegions.ZERO_BASED) == 0;
        f.vaOrFbo = f.vaBased ? va : va & (PAGE - 1);
        f.pageSize = 0;
        f.pblChunkSize = chunk;
        f.firstPmPblIndex = (int) firstPble;
        f.regAddress = chunk == 0 ? regAddress : 0;
        f.mr = true;
        return f;
    }

    Completion register(StagFields f) {
        return op((o, v) -> CqpWqeWriter.registerMr(store(), o, f, v));
    }

    /** irdma_reg_user_mr with a level-1 PBL over {@code pages} (chunk size 1). */
    Completion registerLevel1(int stag, int pd, long va, long len, int rights, long[] pages) {
        return register(regFields(stag, pd, va, len, rights, 1, level1(pages), 0));
    }

    /** irdma_reg_user_mr with a two-level PBL (chunk size 3, the root's index). */
    Completion registerLevel2(int stag, int pd, long va, long len, int rights, long[] pages) {
        return register(regFields(stag, pd, va, len, rights, 3, level2(pages), 0));
    }

    /** irdma_reg_phys_mr: one physical buffer, no PBL, 4 KiB pages, iova {@code va}. */
    Completion registerPhysical(int stag, int pd, long pa, long len, long va, int rights) {
        return register(regFields(stag, pd, va, len, rights, 0, 0, pa));
    }

    /** irdma_hw_alloc_stag (irdma_alloc_mr): page size PAGE_SIZE, remote access, no rights, no PBL. */
    Completion allocStag(int stag, int pd, long len) {
        StagFields f = new StagFields();
        f.stagIndex = stag >>> 8;
        f.pdId = pd;
        f.length = len;
        f.remoteAccess = true;
        return op((o, v) -> CqpWqeWriter.allocStag(store(), o, f, v));
    }

    /** irdma_hw_alloc_mw (irdma_sc_mw_alloc): a window, type 2 when {@code wide}. */
    Completion allocWindow(int stag, int pd, boolean wide) {
        StagFields f = new StagFields();
        f.stagIndex = stag >>> 8;
        f.pdId = pd;
        f.mwWide = wide;
        return op((o, v) -> CqpWqeWriter.allocMw(store(), o, f, v));
    }

    /** irdma_hwdereg_mr (mr = true) or irdma_dealloc_mw (mr = false). */
    Completion dealloc(int stag, int pd, boolean mr) {
        StagFields f = new StagFields();
        f.stagIndex = stag >>> 8;
        f.pdId = pd;
        f.mr = mr;
        return op((o, v) -> CqpWqeWriter.deallocStag(store(), o, f, v));
    }

    // ------------------------------------------------------------------ SQ WQEs (host memory)

    /**
     * A Fast Register WQE as irdma_post_send IB_WR_REG_MR writes it into host memory (VA-based, the first page's
     * address as the PBL address, chunk size 1 with the level-1 index when more than one page), wrapped for the
     * device to execute.
     */
    SqWqe fastRegisterWqe(int stag, long va, long len, int rights, long firstPble, long firstPage, boolean level1) {
        long at = alloc(SqWqe.QUANTUM);
        lastSqWqe = at;
        SqWqe w = new SqWqe().wrap(store(), off(at), SqWqe.QUANTUM);
        w.writeFastRegister(true, va, true, firstPage, (int) firstPble, len, stag & 0xff, stag >>> 8,
                level1 ? 1 : 0, 0, (rights | MemoryRegions.LOCAL_READ) & 0x1f, false, SqWqe.SIGNALED);
        return w;
    }

    /** Rewrites the header (quadword 3) of the last SQ WQE written, as a hostile driver could. */
    void rewriteLastHeader(long clear, long set) {
        long o = off(lastSqWqe) + SqWqe.OFF_HEADER;
        store().writeLong(o, store().readLong(o) & ~clear | set);
    }

    /** Reads {@code len} bytes of host memory at {@code gpa}. */
    byte[] read(long gpa, int len) {
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) {
            b[i] = store().readByte(off(gpa) + i);
        }
        return b;
    }

    void fill(long gpa, long len, int value) {
        for (long i = 0; i < len; i++) {
            store().writeByte(off(gpa) + i, (byte) value);
        }
    }

    @Override
    public void close() {
        ram.close();
    }
}
