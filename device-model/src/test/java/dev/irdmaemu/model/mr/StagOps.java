package dev.irdmaemu.model.mr;

import dev.irdmaemu.driver.PbleResource;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.StagFields;
import dev.irdmaemu.fw.hmc.FpmCommitBuffer;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.hmc.PageDescriptor;
import dev.irdmaemu.fw.hmc.PbleLayout;
import dev.irdmaemu.fw.hmc.SegmentDescriptor;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.model.DriverNode;
import dev.irdmaemu.model.E810RdmaFunction;
import dev.irdmaemu.model.PageListWriter;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.Trace;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The registrations the memory-region tests make, on a model the real driver brought up ({@link DriverNode}): each
 * STag WQE exactly as the test wants it (any index, key, PD, page list, hostile fields too), written with the
 * firmware-iface writers and posted on the driver's own CQP; page lists in the driver's PBLE resource (pble.c
 * runs: level 1, and level 2 built by hand so a test can place root and leaves); and the hostile acts a driver
 * never commits (an HMC page taken from under a PBLE, a Fast Register header rewritten). The STag values follow
 * irdma_create_stag: a driver key in the bits above the index.
 */
final class StagOps implements AutoCloseable {
    static final long PAGE = 4096;
    static final long RAM_BASE = DriverNode.RAM_BASE;
    static final long RAM_SIZE = DriverNode.RAM_SIZE;

    final DriverNode node;
    final RecordingTraceSink sink;
    final Trace trace;
    final E810RdmaFunction dev;
    final MemoryRegionTable mrs;
    private final PbleResource pbles;
    private final PageListWriter pageLists;
    private long lastSqWqe;

    StagOps() {
        node = new DriverNode();
        sink = node.sink;
        trace = node.trace;
        dev = node.dev;
        mrs = dev.stags();
        pbles = node.driver.hmc().pbles();
        pageLists = new PageListWriter(n -> {
            PbleResource.Allocation a = pbles.allocate((int) n, false);
            if (a == null) {
                throw new AssertionError("the driver's PBLEs are used up");
            }
            return a.first;
        }, (index, value) -> {
            if (!pbles.write((int) index, value)) {
                throw new AssertionError("PBLE " + index + " is not backed");
            }
        });
    }

    BytesStore<?, ?> store() {
        return node.store();
    }

    long off(long gpa) {
        return node.off(gpa);
    }

    long alloc(long bytes) {
        return node.alloc(bytes);
    }

    byte[] read(long gpa, int len) {
        return node.read(gpa, len);
    }

    void fill(long gpa, long len, int value) {
        node.fill(gpa, len, value);
    }

    /** Posts one STag WQE written by {@code writer} on the driver's CQP; its completion. */
    DriverNode.Completion op(dev.irdmaemu.driver.IrdmaDriver.WqeWriter writer) {
        return node.op("test STag op", writer);
    }

    // ------------------------------------------------------------------ the PBLE object (pble.c)

    /** The committed PBLE count (Commit FPM): an index at or past it is out of the device's range. */
    long pbleCount() {
        return node.driver.hmc().committedCount(HmcObjectType.PBLE);
    }

    /** The committed MR count: STag indexes at or past it are out of the HMC MR object. */
    long mrCount() {
        return node.driver.hmc().committedCount(HmcObjectType.MR);
    }

    /**
     * A second Commit FPM with the driver's counts but {@code mrs} MRs, which a driver never sends once its objects
     * exist: the only way to name a STag index past the committed count, since the real driver commits the model's
     * 32768 MRs and so fills all 15 index bits. The other objects move (their bases follow the MR object), so a test
     * that does this uses no PBLE, queue or context afterwards.
     */
    void recommitMrs(long mrs) {
        long b = alloc(FpmCommitBuffer.SIZE);
        for (HmcObjectType t : HmcObjectType.values()) {
            FpmCommitBuffer.writeRequest(store(), off(b), t, t == HmcObjectType.MR ? mrs
                    : node.driver.hmc().committedCount(t));
        }
        DriverNode.Completion c = op((o, v) -> CqpWqeWriter.commitFpm(store(), o, 0, b, false, v));
        if (c.error() || mrCount() == 0 && mrs != 0) {
            throw new AssertionError("the second Commit FPM failed: " + c);
        }
    }

    void writePble(long index, long value) {
        pageLists.write(index, value);
    }

    /** {@code n} consecutive PBLE indexes from the driver's resource (irdma_prm_get_pbles hands out runs). */
    long allocPbles(long n) {
        return pageLists.allocate(n);
    }

    /** A level-1 page list of {@code pages} (get_lvl1_pble); answers its first PBLE index. */
    long level1(long[] pages) {
        return pageLists.level1(pages);
    }

    /** A two-level page list (get_lvl2_pble): root entries hold leaf PBLE indexes, 512 PBLEs per leaf. */
    long level2(long[] pages) {
        return pageLists.level2(pages);
    }

    /**
     * Takes away the backing of the HMC page holding PBLE {@code index}, which a driver never does: the SD holding
     * it becomes a paged SD (Update PE SDs) whose PDs map the same memory as before except that page's, which is
     * invalid ({@code unmappedPage} 0) or points at {@code unmappedPage}; PFHMC_PDINV drops the device's cached
     * copy of that PD (hmc.c irdma_invalidate_pf_hmc_pd). Every other object in the SD keeps its bytes.
     */
    void breakPbleBacking(long index, long unmappedPage) {
        long fpm = PbleLayout.fpmAddress(node.driver.hmc().committedBase(HmcObjectType.PBLE), index);
        int sd = (int) (fpm / SegmentDescriptor.DIRECT_BP_SIZE);
        int brokenPd = (int) (fpm % SegmentDescriptor.DIRECT_BP_SIZE / PAGE);
        long backing = node.driver.hmc().sdAddress(sd).orElseThrow();
        long pdPage;
        if (node.driver.hmc().sdDirect(sd)) {
            pdPage = alloc(PAGE);
            for (int pd = 0; pd < PageDescriptor.PDS_PER_SD; pd++) {
                PageDescriptor.write(store(), off(pdPage), pd, PageDescriptor.encode(backing + pd * PAGE));
            }
            long[] cmds = {SegmentDescriptor.command(sd)};
            long[] data = {SegmentDescriptor.setData(pdPage, false)};
            long sdBuf = alloc(PAGE);
            DriverNode.Completion c = op((o, v) -> CqpWqeWriter.updatePeSds(store(), o, 0, cmds, data, 1, sdBuf,
                    store(), off(sdBuf), v));
            if (c.error()) {
                throw new AssertionError("Update PE SDs to a paged SD failed: " + c);
            }
        } else {
            pdPage = backing;
        }
        PageDescriptor.write(store(), off(pdPage), brokenPd,
                unmappedPage == 0 ? 0 : PageDescriptor.encode(unmappedPage));
        node.dev.write32(Gen2Register.PFHMC_PDINV.offset(), Gen2Registers.pdInvalidate(sd, brokenPd));
        node.run();
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
        return driverKey << (StagFields.STAG_IDX_SHIFT + indexBits) | StagFields.stag(index, consumerKey);
    }

    /**
     * Register MR as irdma_hwreg_mr fills it: STag index = stag >> 8, key = low byte, rights with LOCALREAD, remote
     * access when the rights are remote, VA-based unless ZERO_BASED (then quadword 0 is va &amp; (page - 1)).
     */
    static StagFields regFields(int stag, int pd, long va, long len, int rights, int chunk, long firstPble,
                                long regAddress) {
        StagFields f = new StagFields();
        f.stagIndex = StagFields.stagIndexOf(stag);
        f.stagKey = StagFields.stagKeyOf(stag);
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

    DriverNode.Completion register(StagFields f) {
        return op((o, v) -> CqpWqeWriter.registerMr(store(), o, f, v));
    }

    /** irdma_reg_user_mr with a level-1 PBL over {@code pages} (chunk size 1). */
    DriverNode.Completion registerLevel1(int stag, int pd, long va, long len, int rights, long[] pages) {
        return register(regFields(stag, pd, va, len, rights, 1, level1(pages), 0));
    }

    /** irdma_reg_user_mr with a two-level PBL (chunk size 3, the root's index). */
    DriverNode.Completion registerLevel2(int stag, int pd, long va, long len, int rights, long[] pages) {
        return register(regFields(stag, pd, va, len, rights, 3, level2(pages), 0));
    }

    /** irdma_reg_phys_mr: one physical buffer, no PBL, 4 KiB pages, iova {@code va}. */
    DriverNode.Completion registerPhysical(int stag, int pd, long pa, long len, long va, int rights) {
        return register(regFields(stag, pd, va, len, rights, 0, 0, pa));
    }

    /** irdma_hw_alloc_stag (irdma_alloc_mr): page size PAGE_SIZE, remote access, no rights, no PBL. */
    DriverNode.Completion allocStag(int stag, int pd, long len) {
        StagFields f = new StagFields();
        f.stagIndex = StagFields.stagIndexOf(stag);
        f.pdId = pd;
        f.length = len;
        f.remoteAccess = true;
        return op((o, v) -> CqpWqeWriter.allocStag(store(), o, f, v));
    }

    /** irdma_hw_alloc_mw (irdma_sc_mw_alloc): a window, type 2 when {@code wide}. */
    DriverNode.Completion allocWindow(int stag, int pd, boolean wide) {
        StagFields f = new StagFields();
        f.stagIndex = StagFields.stagIndexOf(stag);
        f.pdId = pd;
        f.mwWide = wide;
        return op((o, v) -> CqpWqeWriter.allocMw(store(), o, f, v));
    }

    /** irdma_hwdereg_mr (mr = true) or irdma_dealloc_mw (mr = false). */
    DriverNode.Completion dealloc(int stag, int pd, boolean mr) {
        StagFields f = new StagFields();
        f.stagIndex = StagFields.stagIndexOf(stag);
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
        w.writeFastRegister(true, va, true, firstPage, (int) firstPble, len, StagFields.stagKeyOf(stag),
                StagFields.stagIndexOf(stag), level1 ? 1 : 0, 0, (rights | MemoryRegions.LOCAL_READ) & 0x1f, false,
                SqWqe.SIGNALED);
        return w;
    }

    /** Rewrites the header (quadword 3) of the last SQ WQE written, as a hostile driver could. */
    void rewriteLastHeader(long clear, long set) {
        long o = off(lastSqWqe) + SqWqe.OFF_HEADER;
        store().writeLong(o, store().readLong(o) & ~clear | set);
    }

    @Override
    public void close() {
        node.close();
    }
}
