package dev.irdmaemu.driver.verbs;

import dev.irdmaemu.driver.AsyncEvent;
import dev.irdmaemu.driver.CeqZeroCq;
import dev.irdmaemu.driver.CqpException;
import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.driver.PbleResource;
import dev.irdmaemu.fw.cqp.CqOpFields;
import dev.irdmaemu.fw.cqp.QpOpFields;
import dev.irdmaemu.fw.cqp.StagAccess;
import dev.irdmaemu.fw.cqp.StagFields;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.hmc.PbleLayout;
import dev.irdmaemu.fw.qp.Q2Buffer;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.SqWqe;
import java.util.SplittableRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The verbs of one irdma device (verbs.c's ib_device ops for a kernel consumer) on an {@link IrdmaDriver} that is
 * up: protection domains, completion queues, iWARP RC queue pairs and memory regions, each made and destroyed with
 * the CQP ops irdma issues, their memory in the driver's host RAM. It takes the driver's CEQ and AEQ events
 * ({@link IrdmaDriver.DeviceEvents}): a CEQE calls the named CQ's completion handler, an AEQE goes to its QP
 * (hw.c irdma_process_aeq). Single-threaded on the driver's scheduler, like the driver.
 */
public final class IrdmaVerbs implements IrdmaDriver.DeviceEvents, CqRing.QpLookup {
    private static final Logger LOG = LoggerFactory.getLogger(IrdmaVerbs.class);

    /** user.h IRDMA_MAX_PDS, IRDMA_MAX_CQ_SIZE, IRDMA_MAX_INLINE_DATA_SIZE, IRDMA_MAX_WQ_FRAGMENT_COUNT. */
    public static final int MAX_PDS = 262144;
    public static final int MAX_CQE = 1048575;
    public static final int MAX_INLINE = 101;
    public static final int MAX_SGE = 13;
    /** defs.h IRDMA_QP_SW_MAX_WQ_QUANTA / _RQ_QUANTA and icrdma_hw.h ICRDMA_MIN_WQ_SIZE (gen2). */
    public static final int MAX_WQ_QUANTA = 32768;
    public static final int MIN_WQ_SIZE = 8;
    /** defs.h IRDMA_SQ_RSVD / IRDMA_RQ_RSVD. */
    public static final int SQ_RSVD = 258;
    public static final int RQ_RSVD = 1;
    /** defs.h IRDMA_MAX_CQ_READ_THRESH. */
    static final int MAX_CQ_READ_THRESH = 0x3ffff;
    /** The completion context a QP's CQEs carry: a tag and the QP id (irdma puts its struct irdma_sc_qp pointer). */
    static final long QP_HANDLE_TAG = 0x4952_444d_0000_0000L;

    private final IrdmaDriver driver;
    private final ResourceIds pdIds;
    private final ResourceIds cqIds;
    private final ResourceIds qpIds;
    private final ResourceIds mrIds;
    private final CompletionQueue[] cqs;
    private final QueuePair[] qps;
    private final MemoryRegion[] mrs;
    private final PbleResource pbles;
    /** Work-request tracking arrays of destroyed QPs, handed to the next QP of the same depths. */
    final SpareWorkRequestTracking spareTracking = new SpareWorkRequestTracking();
    private boolean userModeRings;
    private final SplittableRandom stagRandom;
    private final CqOpFields cqf = new CqOpFields();
    private final QpOpFields qpf = new QpOpFields();
    private final StagFields stagf = new StagFields();
    private long unknownQpEvents;
    private long cqErrors;

    /** The verbs on {@code driver} (brought up); it takes the driver's CEQ / AEQ events from now on. */
    public IrdmaVerbs(IrdmaDriver driver) {
        if (!driver.isUp()) {
            throw new IllegalStateException("the driver is not up");
        }
        this.driver = driver;
        // hw.c irdma_initialize_hw_rsrc: PDs 0..2, CQs and QPs 0 (CQP, QP 0), 1 (ILQ) and 2 (IEQ), MR 0 reserved
        this.pdIds = new ResourceIds(MAX_PDS, 0, 1, 2);
        int maxCq = (int) driver.hmc().committedCount(HmcObjectType.CQ);
        int maxQp = (int) driver.hmc().committedCount(HmcObjectType.QP);
        int maxMr = (int) driver.hmc().committedCount(HmcObjectType.MR);
        this.cqIds = new ResourceIds(maxCq, 0, 1, 2);
        this.qpIds = new ResourceIds(maxQp, 0, 1, 2);
        this.mrIds = new ResourceIds(maxMr, 0);
        this.cqs = new CompletionQueue[maxCq];
        this.qps = new QueuePair[maxQp];
        this.mrs = new MemoryRegion[maxMr];
        // the function's PBLE resource (pble.c, made at bring-up; a virtual AEQ may already hold PBLEs)
        this.pbles = driver.hmc().pbles();
        this.stagRandom = driver.scheduler().random(0x57a6L);
        driver.attachEvents(this);
    }

    public IrdmaDriver driver() {
        return driver;
    }

    long macAddress() {
        return driver.macAddress();
    }

    PbleResource pbles() {
        return pbles;
    }

    static long qpHandle(int qpId) {
        return QP_HANDLE_TAG | qpId;
    }

    // ------------------------------------------------------------------------------------------------ PDs

    /** verbs.c irdma_alloc_pd. */
    public ProtectionDomain allocatePd() {
        int id = pdIds.allocate()
                .orElseThrow(() -> new VerbsException(VerbsException.Kind.NO_MEMORY, "no PD id left"));
        return new ProtectionDomain(this, id);
    }

    /** verbs.c irdma_dealloc_pd. */
    public void deallocatePd(ProtectionDomain pd) {
        if (!pd.deallocated) {
            pd.deallocated = true;
            pdIds.free(pd.id());
        }
    }

    // ------------------------------------------------------------------------------------------------ CQs

    /** A CQ for at least {@code entries} completions on CEQ 0 (comp_vector 0). */
    public CompletionQueue createCq(int entries) {
        // verbs.c irdma_create_cq (kernel mode): the consumer's count is checked against max_cqe first
        if (entries < 1 || entries > MAX_CQE) {
            throw new VerbsException(VerbsException.Kind.INVALID_ARGUMENT, "CQ of " + entries + " entries");
        }
        int id = cqIds.allocate()
                .orElseThrow(() -> new VerbsException(VerbsException.Kind.NO_MEMORY, "no CQ id left"));
        int cqe = Math.max(entries, 4);
        // gen2 without 64-byte CQEs: two CQE slots per completion (+2 spare), an even count, never exactly a page
        int ringEntries = (entries + 2) * 2;
        if ((ringEntries & 1) != 0) {
            ringEntries++;
        }
        if (ringEntries * Cqe.SIZE == 4096) {
            ringEntries += 2;
        }
        long ringBytes = (((long) ringEntries * Cqe.SIZE + 255) / 256) * 256;
        if (userModeRings) {
            return createUserCq(id, cqe, ringEntries, ringBytes);
        }
        long ring = -1;
        long shadow = -1;
        try {
            ring = driver.allocate(ringBytes);
            shadow = driver.allocate(64);
        } catch (IllegalStateException e) {
            freeMemory(ring, ringBytes);
            cqIds.free(id);
            throw new VerbsException(VerbsException.Kind.NO_MEMORY, "CQ ring of " + ringBytes + " bytes");
        }
        // verbs.c irdma_create_cq: CEQE mask and overflow check, the shadow area read at half the ring at most
        CeqZeroCq.fields(cqf, id, ringEntries, ring, shadow).ceqeMask = true;
        cqf.checkOverflow = true;
        cqf.shadowReadThreshold = Math.min(ringEntries / 2, MAX_CQ_READ_THRESH);
        try {
            driver.cqp().createCq(cqf);
        } catch (CqpException e) {
            freeMemory(ring, ringBytes);
            freeMemory(shadow, 64);
            cqIds.free(id);
            throw new VerbsException("create CQ " + id, e);
        }
        CompletionQueue cq = new CompletionQueue(this, id, cqe, ringEntries, ring, ringBytes, shadow);
        cqs[id] = cq;
        return cq;
    }

    /**
     * verbs.c irdma_create_cq for a user-space CQ: the ring pinned page by page (irdma_reg_user_mr_type_cq), a
     * level-1 PBL when it spans more than one page and the pages are not contiguous, then Create CQ with VIRTMAP,
     * chunk size 1 and the first PBLE index, or with the first page's address.
     */
    private CompletionQueue createUserCq(int id, int cqe, int ringEntries, long ringBytes) {
        int n = PinnedRing.pagesFor(ringBytes);
        PinnedRing pinned = PinnedRing.pin(driver, n);
        long shadow = -1;
        try {
            shadow = pinned == null ? -1 : driver.allocate(64);
        } catch (IllegalStateException e) {
            shadow = -1;
        }
        if (pinned == null || shadow < 0) {
            if (pinned != null) {
                pinned.release(driver, pbles);
            }
            cqIds.free(id);
            throw new VerbsException(VerbsException.Kind.NO_MEMORY, "CQ ring of " + n + " pages");
        }
        if (n > 1 && !pinned.contiguous(0, n) && !pinned.registerPbl(pbles)) {
            pinned.release(driver, pbles);
            freeMemory(shadow, 64);
            cqIds.free(id);
            throw new VerbsException(VerbsException.Kind.NO_MEMORY, "no PBLEs for a CQ of " + n + " pages");
        }
        CeqZeroCq.fields(cqf, id, ringEntries, 0, shadow).ceqeMask = true;
        cqf.checkOverflow = true;
        cqf.shadowReadThreshold = Math.min(ringEntries / 2, MAX_CQ_READ_THRESH);
        cqRingFields(pinned);
        try {
            driver.cqp().createCq(cqf);
        } catch (CqpException e) {
            pinned.release(driver, pbles);
            freeMemory(shadow, 64);
            cqIds.free(id);
            throw new VerbsException("create CQ " + id, e);
        }
        CompletionQueue cq = new CompletionQueue(this, id, cqe, ringEntries, pinned, shadow);
        cqs[id] = cq;
        return cq;
    }

    /** The ring fields of a user CQ's ops (ctrl.c irdma_sc_cq_create / _destroy write them from the same info). */
    private void cqRingFields(PinnedRing pinned) {
        if (pinned.pbl != null) {
            cqf.virtualMap = true;
            cqf.pblChunkSize = PbleLayout.CHUNK_LEVEL_1;
            cqf.firstPmPblIndex = pinned.pbl.first;
        } else {
            cqf.cqAddress = pinned.pages[0];
        }
    }

    /**
     * From now on, create CQs and QPs as verbs.c creates a user-space consumer's (libirdma's): rings pinned page by
     * page and, when they span more than one page (CQ) or two (SQ + RQ), reached through a PBL (VIRTMAP / VQ).
     * Off by default: a kernel consumer's rings are coherent DMA buffers.
     */
    public IrdmaVerbs userModeRings(boolean on) {
        userModeRings = on;
        return this;
    }

    /** verbs.c irdma_destroy_cq: refused while a QP still completes to it (ib core's usecnt). */
    void destroy(CompletionQueue cq) {
        if (cq.destroyed) {
            return;
        }
        if (cq.users() > 0) {
            throw new VerbsException(VerbsException.Kind.BUSY, cq + " is used by " + cq.users() + " QP(s)");
        }
        cq.destroyed = true;
        cqf.clear();
        cqf.cqId = cq.id;
        cqf.cqSize = cq.ring.size;
        cqf.shadowAreaAddress = cq.shadowAddress;
        cqf.ceqId = 0;
        cqf.ceqIdValid = true;
        cqf.ceqeMask = true;
        if (cq.pinned != null) {
            cqRingFields(cq.pinned);
            cqf.cqAddress = 0;
        }
        CqpException failure = null;
        try {
            driver.cqp().destroyCq(cqf);
        } catch (CqpException e) {
            failure = e;
        }
        cqs[cq.id] = null;
        cqIds.free(cq.id);
        if (cq.pinned != null) {
            cq.pinned.release(driver, pbles);
        } else {
            freeMemory(cq.ringAddress, cq.ringBytes);
        }
        freeMemory(cq.shadowAddress, 64);
        if (failure != null) {
            throw new VerbsException("destroy CQ " + cq.id, failure);
        }
    }

    public CompletionQueue cq(int id) {
        return id >= 0 && id < cqs.length ? cqs[id] : null;
    }

    // ------------------------------------------------------------------------------------------------ QPs

    /**
     * verbs.c irdma_create_qp for a kernel iWARP RC QP: the attributes checked (irdma_validate_qp_attrs), the ring
     * depths (uk.c irdma_uk_calc_depth_shift_sq / _rq), SQ + RQ + shadow area in one buffer
     * (irdma_setup_kmode_qp), Q2 and the context in another, the context written (irdma_iw_fill_and_set_qpctx_info)
     * and Create QP (MAC and CQ numbers valid, next state IDLE). The QP starts in RESET for the verbs and IDLE on
     * the device; the SQ head starts behind the three connection WQEs.
     */
    public QueuePair createQp(QpInit init) {
        init.validate();
        // gen2 counts an immediate slot in the SQ WQE size
        int sqShift = wqeShift(init.maxSendSge() + 1, init.maxInlineData());
        int rqShift = wqeShift(init.maxRecvSge(), 0);
        long sqDepth = depth((long) init.maxSendWr() << sqShift, SQ_RSVD, MIN_WQ_SIZE << sqShift);
        long rqDepth = depth((long) init.maxRecvWr() << rqShift, RQ_RSVD, MIN_WQ_SIZE << rqShift);
        if (sqDepth > MAX_WQ_QUANTA || rqDepth > MAX_WQ_QUANTA) {
            throw new VerbsException(VerbsException.Kind.INVALID_ARGUMENT, "queue depth beyond 32768 quanta");
        }
        int id = qpIds.allocate()
                .orElseThrow(() -> new VerbsException(VerbsException.Kind.NO_MEMORY, "no QP id left"));
        long ringBytes = ((sqDepth + rqDepth) * SqWqe.QUANTUM + 64 + 255) / 256 * 256;
        long ring = -1;
        long q2 = -1;
        PinnedRing pinned = null;
        // a user QP (irdma_reg_user_mr_type_qp): SQ pages, RQ pages and the shadow area's page, pinned
        int sqPages = PinnedRing.pagesFor(sqDepth * SqWqe.QUANTUM);
        int rqPages = PinnedRing.pagesFor(rqDepth * SqWqe.QUANTUM);
        try {
            if (userModeRings) {
                pinned = PinnedRing.pin(driver, sqPages + rqPages + 1);
                if (pinned == null) {
                    throw new IllegalStateException("no pages to pin");
                }
            } else {
                ring = driver.allocate(ringBytes);
            }
            q2 = driver.allocate(Q2Buffer.SIZE + QpContext.SIZE);
        } catch (IllegalStateException e) {
            freeMemory(ring, ringBytes);
            if (pinned != null) {
                pinned.release(driver, pbles);
            }
            qpIds.free(id);
            throw new VerbsException(VerbsException.Kind.NO_MEMORY, "QP rings of " + ringBytes + " bytes");
        }
        // irdma_handle_q_mem: PBLEs only when SQ + RQ span more than two pages and either is not contiguous
        if (pinned != null && sqPages + rqPages > 2
                && !(pinned.contiguous(0, sqPages) && pinned.contiguous(sqPages, rqPages))
                && !pinned.registerPbl(pbles)) {
            pinned.release(driver, pbles);
            freeMemory(q2, Q2Buffer.SIZE + QpContext.SIZE);
            qpIds.free(id);
            throw new VerbsException(VerbsException.Kind.NO_MEMORY, "no PBLEs for a QP of " + sqPages + " + "
                    + rqPages + " pages");
        }
        QueuePair qp = new QueuePair(this, id, init, sqShift, (int) sqDepth, rqShift, (int) rqDepth, ring, ringBytes,
                pinned, sqPages, q2);
        qp.ctx.writeCreate();
        qpf.clear();
        qpf.qpId = id;
        qpf.qpType = QueuePair.QP_TYPE_IWARP;
        qpf.hostContextAddress = qp.hostContextAddress;
        qpf.shadowAreaAddress = qp.shadowAddress;
        qpf.macValid = true;
        qpf.cqNumValid = true;
        qpf.virtualMap = qp.virtualMap;
        qpf.nextIwarpState = QueuePair.STATE_IDLE;
        try {
            driver.cqp().createQp(qpf);
        } catch (CqpException e) {
            if (pinned != null) {
                pinned.release(driver, pbles);
            }
            freeMemory(ring, ringBytes);
            freeMemory(q2, Q2Buffer.SIZE + QpContext.SIZE);
            qpIds.free(id);
            throw new VerbsException("create QP " + id, e);
        }
        qps[id] = qp;
        init.sendCq().attach(qp);
        if (init.recvCq() != init.sendCq()) {
            init.recvCq().attach(qp);
        }
        return qp;
    }

    /** uk.c irdma_get_wqe_shift (gen2): the WQE size, as a shift of 32 bytes, for SGEs and inline data. */
    static int wqeShift(int sges, int inlineData) {
        if (sges > 1 || inlineData > 8) {
            if (sges < 4 && inlineData <= 39) {
                return 1;
            }
            if (sges < 8 && inlineData <= 101) {
                return 2;
            }
            return 3;
        }
        return 0;
    }

    /** uk.c irdma_get_sqdepth / irdma_get_rqdepth: the quanta rounded up to a power of two, with a minimum. */
    static long depth(long quanta, int reserved, int min) {
        long v = quanta + reserved;
        long p = v <= 1 ? 1 : Long.highestOneBit(v - 1) << 1;
        return Math.max(p, min);
    }

    /** The QP's resources go back (the end of verbs.c _irdma_destroy_qp: irdma_free_qp_rsrc). */
    void released(QueuePair qp) {
        qps[qp.id] = null;
        spareTracking.give(qp.queues.tracking);
        qpIds.free(qp.id);
        qp.sendCq.detach(qp);
        if (qp.recvCq != qp.sendCq) {
            qp.recvCq.detach(qp);
        }
        if (qp.pinned != null) {
            qp.pinned.release(driver, pbles);
        } else {
            freeMemory(qp.ringAddress, qp.ringBytes);
        }
        freeMemory(qp.q2Address, Q2Buffer.SIZE + QpContext.SIZE);
        if (qp.lsmmBuffer != 0) {
            freeMemory(qp.lsmmBuffer, qp.lsmmBufferBytes);
            qp.lsmmBuffer = 0;
        }
    }

    public QueuePair qp(int id) {
        return id >= 0 && id < qps.length ? qps[id] : null;
    }

    @Override
    public QpQueues byHandle(long completionContext) {
        if ((completionContext & 0xffff_ffff_0000_0000L) != QP_HANDLE_TAG) {
            return null;
        }
        QueuePair qp = qp((int) completionContext);
        return qp == null ? null : qp.queues;
    }

    // ------------------------------------------------------------------------------------------------ MRs

    /**
     * verbs.c irdma_create_stag: a free MR index from a random starting point and a random consumer key. The
     * random driver-key bits irdma puts above the index are left 0 (the device reads IRDMA_CQPSQ_STAG_IDX as the
     * MR index).
     */
    private int createStag() {
        int r = stagRandom.nextInt();
        int start = Math.floorMod(r >>> 8, Math.max(1, mrIds.max()));
        int idx = mrIds.allocateFrom(start)
                .orElseThrow(() -> new VerbsException(VerbsException.Kind.NO_MEMORY, "no MR index left"));
        return StagFields.stag(idx, r);
    }

    /**
     * verbs.c irdma_reg_phys_mr: {@code size} bytes of physically contiguous host memory at {@code physical},
     * addressed from {@code iova}, with no PBL (Register MR carries the buffer's address).
     */
    public MemoryRegion registerPhysical(ProtectionDomain pd, long physical, long size, int access, long iova) {
        MemoryRegion mr = new MemoryRegion(this, pd, MemoryRegion.Kind.PHYSICAL, iova, size, access,
                new long[] {physical}, 1);
        mr.stag = createStag();
        hwRegister(mr, physical);
        return mr;
    }

    /** A contiguous buffer of host memory at {@code address} (its own iova), as a consumer registers it. */
    public MemoryRegion registerBuffer(ProtectionDomain pd, long address, long length, int access) {
        long first = address & ~(long) (MemoryRegion.PAGE_SIZE - 1);
        int n = (int) ((address + length - first + MemoryRegion.PAGE_SIZE - 1) / MemoryRegion.PAGE_SIZE);
        long[] pages = new long[Math.max(1, n)];
        for (int i = 0; i < pages.length; i++) {
            pages[i] = first + (long) i * MemoryRegion.PAGE_SIZE;
        }
        return registerPages(pd, address, pages, length, access);
    }

    /**
     * A consumer's region by its pages (verbs.c irdma_reg_user_mr_type_mem on an ib_umem): {@code iova} is the
     * region's first address, {@code pages} the physical pages behind it (page 0 holds iova rounded down). More
     * than one page takes PBLEs, level 1 or, when no run is free and the region is big, level 2
     * (irdma_setup_pbles); a physically contiguous region gives them back and is registered by its first page
     * (irdma_check_mr_contiguous).
     */
    public MemoryRegion registerPages(ProtectionDomain pd, long iova, long[] pages, long length, int access) {
        if (length <= 0 || pages.length == 0
                || ((iova & (MemoryRegion.PAGE_SIZE - 1)) + length + MemoryRegion.PAGE_SIZE - 1)
                / MemoryRegion.PAGE_SIZE > pages.length) {
            throw new VerbsException(VerbsException.Kind.INVALID_ARGUMENT, length + " bytes over " + pages.length
                    + " pages");
        }
        int n = pages.length;
        MemoryRegion mr = new MemoryRegion(this, pd, MemoryRegion.Kind.USER, iova, length, access, pages.clone(), n);
        if (n != 1) {
            PbleResource.Allocation a = pbles.allocate(n, true);
            if (a == null) {
                throw new VerbsException(VerbsException.Kind.NO_MEMORY, "no PBLEs for " + n + " pages");
            }
            for (int i = 0; i < n; i++) {
                pbles.writePage(a, i, pages[i]);
            }
            mr.pbles = a;
            if (mr.contiguous()) {
                pbles.free(a);
                mr.pbles = null;
            }
        }
        try {
            mr.stag = createStag();
        } catch (VerbsException e) {
            pbles.free(mr.pbles);
            throw e;
        }
        hwRegister(mr, pages[0]);
        return mr;
    }

    /** verbs.c irdma_hwreg_mr: Register MR (non-shared) with the region's PBL or its address. */
    private void hwRegister(MemoryRegion mr, long regAddress) {
        int rights = Access.hardwareRights(mr.access);
        stagf.clear();
        stagf.stagIndex = StagFields.stagIndexOf(mr.stag);
        stagf.stagKey = StagFields.stagKeyOf(mr.stag);
        stagf.pdId = mr.pd.id();
        stagf.length = mr.length;
        stagf.accessRights = rights;
        stagf.remoteAccess = Access.remoteAccess(rights);
        stagf.vaBased = (rights & StagAccess.ZERO_BASED) == 0;
        stagf.vaOrFbo = stagf.vaBased ? mr.iova : mr.iova & (MemoryRegion.PAGE_SIZE - 1);
        stagf.pageSize = 0;
        if (mr.pbles != null) {
            stagf.firstPmPblIndex = mr.pbles.first;
            stagf.pblChunkSize = mr.pbles.level == 1 ? PbleLayout.CHUNK_LEVEL_1 : PbleLayout.CHUNK_LEVEL_2;
        } else {
            stagf.regAddress = regAddress;
        }
        try {
            driver.cqp().registerMr(stagf);
        } catch (CqpException e) {
            mrIds.free(StagFields.stagIndexOf(mr.stag));
            pbles.free(mr.pbles);
            mr.pbles = null;
            throw new VerbsException("register " + mr, e);
        }
        mrs[StagFields.stagIndexOf(mr.stag)] = mr;
    }

    /**
     * verbs.c irdma_alloc_mr (IB_MR_TYPE_MEM_REG): an STag for fast registration through the SQ, with a level-1 PBL
     * of {@code maxPages} entries that {@link MemoryRegion#map} fills; Alloc STag with remote access.
     */
    public MemoryRegion allocateFastRegister(ProtectionDomain pd, int maxPages, int access) {
        if (maxPages <= 0) {
            throw new VerbsException(VerbsException.Kind.INVALID_ARGUMENT, "fast-register region of " + maxPages);
        }
        PbleResource.Allocation a = pbles.allocate(maxPages, false);
        if (a == null) {
            throw new VerbsException(VerbsException.Kind.NO_MEMORY, "no PBLEs for " + maxPages + " pages");
        }
        MemoryRegion mr = new MemoryRegion(this, pd, MemoryRegion.Kind.FAST_REGISTER, 0,
                (long) maxPages * MemoryRegion.PAGE_SIZE, access, new long[maxPages], 0);
        mr.pbles = a;
        try {
            mr.stag = createStag();
        } catch (VerbsException e) {
            pbles.free(a);
            throw e;
        }
        stagf.clear();
        stagf.stagIndex = StagFields.stagIndexOf(mr.stag);
        stagf.pdId = pd.id();
        stagf.length = mr.length;
        stagf.pageSize = 0;
        stagf.remoteAccess = true;
        try {
            driver.cqp().allocStag(stagf);
        } catch (CqpException e) {
            mrIds.free(StagFields.stagIndexOf(mr.stag));
            pbles.free(a);
            throw new VerbsException("allocate " + mr, e);
        }
        mrs[StagFields.stagIndexOf(mr.stag)] = mr;
        return mr;
    }

    /** verbs.c irdma_dereg_mr / irdma_hwdereg_mr: Deallocate STag, then the index and the PBLEs go back. */
    public void deregister(MemoryRegion mr) {
        if (mr.deregistered) {
            return;
        }
        stagf.clear();
        stagf.stagIndex = StagFields.stagIndexOf(mr.stag);
        stagf.pdId = mr.pd.id();
        stagf.mr = true;
        try {
            driver.cqp().deallocStag(stagf);
        } catch (CqpException e) {
            throw new VerbsException("deregister " + mr, e);
        }
        mr.deregistered = true;
        mrs[StagFields.stagIndexOf(mr.stag)] = null;
        mrIds.free(StagFields.stagIndexOf(mr.stag));
        pbles.free(mr.pbles);
        mr.pbles = null;
    }

    /** The live region an lkey / rkey names, or null (the consumer's own bookkeeping, not the device's). */
    public MemoryRegion regionOf(int stag) {
        int idx = StagFields.stagIndexOf(stag);
        MemoryRegion mr = idx < mrs.length ? mrs[idx] : null;
        return mr != null && mr.stag == stag ? mr : null;
    }

    /** PBLEs in use, and the allocator's level-1 / level-2 counts (observation). */
    public int pblesInUse() {
        return pbles.inUse();
    }

    public long pbleLevel2Allocations() {
        return pbles.level2Allocations();
    }

    /** The value of PBLE {@code index} as the device will read it through the HMC. */
    public long pble(int index) {
        return pbles.read(index);
    }

    // ------------------------------------------------------------------------------------------------ host memory

    /** A zeroed buffer of host RAM for the consumer (guest-physical address; page aligned). */
    public long allocateBuffer(long bytes) {
        try {
            return driver.allocate(bytes);
        } catch (IllegalStateException e) {
            throw new VerbsException(VerbsException.Kind.NO_MEMORY, bytes + " bytes of host memory");
        }
    }

    public void freeBuffer(long address, long bytes) {
        driver.ram().free(address, bytes);
    }

    private void freeMemory(long address, long bytes) {
        if (address > 0) {
            driver.ram().free(address, bytes);
        }
    }

    // ------------------------------------------------------------------------------------------------ events

    @Override
    public void completionEvent(int cqId) {
        CompletionQueue cq = cq(cqId);
        if (cq != null) {
            cq.completionEvent();
        }
    }

    /** hw.c irdma_process_aeq: QP events to their QP, CQ errors counted, the rest logged. */
    @Override
    public void asyncEvent(AsyncEvent ae) {
        if (ae.qp) {
            QueuePair qp = qp(ae.qpCqId);
            if (qp == null) {
                unknownQpEvents++;
                LOG.debug("AE for QP {} that is not a verbs QP: {}", ae.qpCqId, ae);
                return;
            }
            qp.events.asyncEvent(ae);
        } else if (ae.cq && ae.aeCode == AeCode.CQ_OPERATION_ERROR.code()) {
            cqErrors++;
            LOG.warn("CQ {} operation error", ae.qpCqId);
        }
    }

    /** AEs naming a QP id with no verbs QP (already freed, or a PUDA QP). */
    public long unknownQpEvents() {
        return unknownQpEvents;
    }

    public long cqErrors() {
        return cqErrors;
    }

    public int qpsInUse() {
        return qpIds.inUseCount() - 3;
    }

    public int cqsInUse() {
        return cqIds.inUseCount() - 3;
    }

    public int mrsInUse() {
        return mrIds.inUseCount() - 1;
    }
}
