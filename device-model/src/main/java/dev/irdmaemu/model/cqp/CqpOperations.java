package dev.irdmaemu.model.cqp;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.GatherStatsBuffer;
import dev.irdmaemu.fw.cqp.QpFlushFields;
import dev.irdmaemu.fw.cqp.RdmaFeatureBuffer;
import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.hmc.PbleLayout;
import dev.irdmaemu.fw.hmc.SdCheck;
import dev.irdmaemu.fw.hmc.SegmentDescriptor;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.fw.qp.QpContextCheck;
import dev.irdmaemu.fw.queue.Aeqe;
import dev.irdmaemu.fw.queue.Ceqe;
import dev.irdmaemu.model.eq.AsyncEventQueue;
import dev.irdmaemu.model.eq.CompletionEventQueue;
import dev.irdmaemu.model.hmc.HmcFault;
import dev.irdmaemu.model.hmc.HmcFunction;
import dev.irdmaemu.model.hmc.HmcLimits;
import dev.irdmaemu.model.hmc.PbleWalker;
import dev.irdmaemu.model.hmc.RingPages;
import dev.irdmaemu.model.iwarp.IwarpDataPath;
import dev.irdmaemu.model.mr.MemoryRegionTable;
import dev.irdmaemu.model.mr.RegistrationFault;
import dev.irdmaemu.model.port.Apbvt;
import dev.irdmaemu.model.port.ArpTable;
import dev.irdmaemu.model.port.QuadHashTable;
import dev.irdmaemu.model.qp.CompletionQueue;
import dev.irdmaemu.model.qp.CqTable;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.qp.QpTable;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import dev.irdmaemu.model.ws.WorkSchedulerTree;
import dev.irdmaemu.model.ah.AddressHandleTable;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The CQP ops the model executes, one method per op, each checking every guest value before using it and answering
 * a {@link CqpFault} (never an exception). The WQE has passed {@link CqpWqe#validate()} (layout and reserved bits);
 * what is checked here is meaning: ids against the committed HMC counts and the device tables, addresses against
 * mapped host memory, object existence and QP state transitions. CQ, AEQ and iWARP SQ/RQ rings may be mapped
 * through PBLs (VIRTMAP / VQ, {@link RingPages}): the page list is resolved and checked once, here; a PBL-mapped
 * CEQ or PUDA QP (which irdma never creates) answers {@link CqpFault#UNSUPPORTED_FIELD}.
 */
public final class CqpOperations implements CqpOpHandler {
    /** LPBLSIZE 2 of the CQ / CEQ / AEQ ops: two PBL levels (the STag ops' code for two levels is 3). */
    static final int QUEUE_CHUNK_LEVEL_2 = 2;
    /**
     * The ring pages the model keeps resolved at once, over all PBL-mapped rings (4 GiB of guest rings, 8 MiB of
     * page addresses): the model's stand-in for the device's finite context memory; beyond it a create answers
     * {@link CqpFault#TABLE_FULL}.
     */
    public static final long MAX_MAPPED_RING_PAGES = 1L << 20;
    /** user.h IRDMA_QP_CTX_SIZE. */
    public static final int QP_CONTEXT_SIZE = QpContext.SIZE;
    /**
     * The firmware version the model reports in the FEATURE_FW_INFO entry (IRDMA_FW_VER_MAJOR / _MINOR): the
     * model's own choice; the kernel only shows it (verbs.c irdma_query_device fw_ver, irdma_get_dev_fw_str) and
     * otherwise assumes IRDMA_FW_VER_DEFAULT (main.h, 2) when no query is made.
     */
    public static final int FW_VERSION_MAJOR = 1;
    public static final int FW_VERSION_MINOR = 0;
    /** The IRDMA_HW_VERSION_INFO entry's info: IRDMA_GEN_2 of enum irdma_vers (irdma.h); no kernel code reads it. */
    public static final int HW_VERSION = 2;
    /**
     * The IRDMA_FTN_FLAGS entry's info for gen2: neither IRDMA_ATOMICS_ALLOWED_BIT (so ctrl.c
     * irdma_get_rdma_features leaves IRDMA_FEATURE_ATOMIC_OPS off) nor IRDMA_MANAGE_RSRC_VER2 (the gen3 FPM
     * paths of irdma_sc_parse_fpm_query_buf / irdma_cfg_fpm_val stay off).
     */
    public static final long FTN_FLAGS = 0L;
    /** The entries the model reports: FW info (with the count), HW version, function flags. */
    public static final int FEATURE_COUNT = 3;

    private final HostMemory memory;
    private final Trace trace;
    private final HmcFunction hmc;
    private final CompletionEventQueue[] ceqs;
    private final AsyncEventQueue aeq;
    private final CqTable cqs;
    private final QpTable qps;
    private final MemoryRegionTable stags;
    private final QuadHashTable qhash;
    private final Apbvt apbvt;
    private final ArpTable arp;
    private final int hmcFunctionId;
    private final IwarpDataPath dataPath;
    private final WorkSchedulerTree ws;
    private final AddressHandleTable ahs;
    private final PbleWalker pbles;
    /** Page lists being resolved by a create op, copied into the object once the op succeeds. */
    private final RingPages ringScratch = new RingPages();
    private final RingPages rqScratch = new RingPages();
    private final BytesStore<?, Void> qpCtxBuf = BytesStore.nativeStoreWithFixedCapacity(QP_CONTEXT_SIZE);
    private final QpContext qpContext = new QpContext();
    private final QpFlushFields flushFields = new QpFlushFields();
    private final long[] word = new long[2];

    /** With the iWARP data path that Create / Modify / Destroy QP and Flush WQEs drive. */
    public CqpOperations(HostMemory memory, Trace trace, HmcFunction hmc, CompletionEventQueue[] ceqs,
                         AsyncEventQueue aeq, CqTable cqs, QpTable qps, MemoryRegionTable stags, QuadHashTable qhash,
                         Apbvt apbvt, ArpTable arp, int hmcFunctionId, IwarpDataPath dataPath,
                         WorkSchedulerTree ws, AddressHandleTable ahs) {
        this.dataPath = dataPath;
        this.ahs = ahs;
        this.ws = ws;
        this.memory = memory;
        this.trace = trace;
        this.hmc = hmc;
        this.pbles = new PbleWalker(memory, hmc);
        this.ceqs = ceqs;
        this.aeq = aeq;
        this.cqs = cqs;
        this.qps = qps;
        this.stags = stags;
        this.qhash = qhash;
        this.apbvt = apbvt;
        this.arp = arp;
        this.hmcFunctionId = hmcFunctionId;
    }

    @Override
    public void execute(CqpOpcode op, CqpWqe w, int wqeIndex, CqpResult r) {
        switch (op) {
            case NOP -> r.ok();
            case QUERY_FPM_VAL -> queryFpm(w, r);
            case COMMIT_FPM_VAL -> commitFpm(w, r);
            case UPDATE_PE_SDS -> updateSds(w, r);
            case CREATE_CEQ -> createCeq(w, r);
            case DESTROY_CEQ -> destroyCeq(w, r);
            case CREATE_AEQ -> createAeq(w, r);
            case DESTROY_AEQ -> destroyAeq(r);
            case CREATE_CQ -> createCq(w, r);
            case MODIFY_CQ -> modifyCq(w, r);
            case DESTROY_CQ -> destroyCq(w, r);
            case CREATE_QP -> createQp(w, r);
            case MODIFY_QP -> modifyQp(w, r);
            case DESTROY_QP -> destroyQp(w, r);
            case MANAGE_QUAD_HASH_TABLE_ENTRY -> manageQhash(w, r);
            case MANAGE_APBVT -> manageApbvt(w, r);
            case MANAGE_ARP -> manageArp(w, r);
            case ALLOC_STAG -> stag(w, r, false);
            case REG_MR -> stag(w, r, true);
            case DEALLOC_STAG -> deallocStag(w, r);
            case FLUSH_WQES -> flushWqes(w, r);
            case QUERY_RDMA_FEATURES -> queryRdmaFeatures(w, r);
            case SHMC_PAGES_ALLOCATED -> staticHmcPagesAllocated(w, r);
            case WORK_SCHED_NODE -> workSchedNode(w, r);
            case GATHER_STATS -> gatherStats(w, r);
            case CREATE_ADDR_HANDLE, MODIFY_ADDR_HANDLE, DESTROY_ADDR_HANDLE -> addressHandle(op, w, r);
            default -> r.fail(CqpFault.UNSUPPORTED_OPCODE, "op not modelled");
        }
    }

    // --- HMC

    private boolean ownFunction(int fnId, CqpResult r) {
        if (fnId != hmcFunctionId) {
            r.fail(CqpFault.INVALID_FIELD, "HMC function id is not this PF's");
            return false;
        }
        return true;
    }

    private void queryFpm(CqpWqe w, CqpResult r) {
        if (!ownFunction(w.fpmHmcFnId(), r)) {
            return;
        }
        if (!hmc.writeQueryBuffer(w.fpmBufferAddress())) {
            r.fail(CqpFault.DMA_FAULT, "query buffer outside mapped memory");
        }
    }

    private void commitFpm(CqpWqe w, CqpResult r) {
        if (!ownFunction(w.fpmHmcFnId(), r)) {
            return;
        }
        switch (hmc.commit(w.fpmBufferAddress())) {
            case OK -> {
                // the ARP cache is an HMC object (IRDMA_HMC_IW_ARP): a new layout starts it empty
                arp.clearAll();
                arp.setLimit(hmc.count(HmcObjectType.ARP));
            }
            case DMA_FAULT -> r.fail(CqpFault.DMA_FAULT, "commit buffer outside mapped memory");
            case COUNT_ABOVE_MAX -> r.fail(CqpFault.INDEX_OUT_OF_RANGE, "a count above the queried maximum");
            case TOO_MANY_SDS -> r.fail(CqpFault.INDEX_OUT_OF_RANGE, "objects need more SDs than max_pe_sds");
        }
    }

    /**
     * Query RDMA features (ctrl.c irdma_sc_query_rdma_features): the feature entries go to the buffer at quadword
     * 4, entry 0 carrying IRDMA_FEATURE_CNT so that a driver whose buffer holds fewer entries can retry with a
     * larger one (irdma_get_rdma_features); entries beyond the buffer's length are not written. The whole buffer
     * the WQE declares must be mapped; a length that is 0 or not whole quadwords is refused.
     */
    private void queryRdmaFeatures(CqpWqe w, CqpResult r) {
        long pa = w.featuresBufferAddress();
        // IRDMA_CQPSQ_QUERY_RDMA_FEATURES_BUF_LEN is 32 bits, unsigned
        long len = Integer.toUnsignedLong(w.featuresBufferLength());
        if (len == 0 || (len & 7) != 0) {
            r.fail(CqpFault.INVALID_FIELD, "feature buffer length is 0 or not whole quadwords");
            return;
        }
        int region = memory.find(pa, len);
        if (region < 0) {
            r.fail(CqpFault.DMA_FAULT, "feature buffer outside mapped memory");
            return;
        }
        BytesStore<?, ?> store = memory.store(region);
        long at = memory.offset(region, pa);
        int room = (int) Math.min(len, 8L * FEATURE_COUNT);
        RdmaFeatureBuffer.write(store, at, room, 0,
                RdmaFeatureBuffer.firstEntry(FEATURE_COUNT, FW_VERSION_MAJOR, FW_VERSION_MINOR));
        RdmaFeatureBuffer.write(store, at, room, 1, RdmaFeatureBuffer.entry(RdmaFeatureBuffer.HW_VERSION_INFO,
                HW_VERSION));
        RdmaFeatureBuffer.write(store, at, room, 2, RdmaFeatureBuffer.entry(RdmaFeatureBuffer.FTN_FLAGS,
                FTN_FLAGS));
    }

    /**
     * Static HMC pages allocated (ctrl.c irdma_sc_static_hmc_pages_allocated, the end of hw.c irdma_create_hmc_objs):
     * the model backs nothing statically, so the op only acknowledges; the function id must be this PF's.
     */
    private void staticHmcPagesAllocated(CqpWqe w, CqpResult r) {
        ownFunction(w.shmcHmcFnId(), r);
    }

    /**
     * Gather stats (ctrl.c irdma_sc_gather_stats, sent every 60 s by utils.c irdma_hw_stats_timeout): the
     * function's counters into the 1024-byte buffer at quadword 4 in the gen2 layout (icrdma_hw_stat_map). The gen2
     * PF gathers its own function's counters: it sets neither USE_HMC_FCN_INDEX nor USE_INST (hw.c
     * irdma_rt_init_hw leaves alloc_stats_inst off). An index naming another function, a statistics instance (the
     * model has no Manage Stats) or a buffer outside host memory is refused with an error completion.
     */
    private void gatherStats(CqpWqe w, CqpResult r) {
        if (w.statsUseHmcFnIndex() && !ownFunction(w.statsHmcFnIndex(), r)) {
            return;
        }
        if (w.statsUseInstance()) {
            r.fail(CqpFault.INVALID_FIELD, "statistics instances are not modelled (no Manage Stats)");
            return;
        }
        long pa = w.statsBufferAddress();
        int region = memory.find(pa, GatherStatsBuffer.SIZE);
        if (region < 0) {
            r.fail(CqpFault.DMA_FAULT, "stats buffer outside mapped memory");
            return;
        }
        dataPath.counters().gather(memory.store(region), memory.offset(region, pa), dataPath.retransmittedSegments());
    }

    private void updateSds(CqpWqe w, CqpResult r) {
        if (!ownFunction(w.sdHmcFnId(), r)) {
            return;
        }
        int inline = w.sdInlineCount();
        for (int i = 0; i < inline; i++) {
            if (!programSd(w.sdEntryCommand(i), w.sdEntryData(i), r)) {
                return;
            }
        }
        int buffered = w.sdBufferEntryCount();
        long buf = w.sdBufferAddress();
        for (int i = 0; i < buffered; i++) {
            long at = buf + (long) i * SegmentDescriptor.ENTRY_SIZE;
            if (!memory.readLong(at, word, 0) || !memory.readLong(at + 8, word, 1)) {
                r.fail(CqpFault.DMA_FAULT, "SD buffer outside mapped memory");
                return;
            }
            if (!programSd(word[0], word[1], r)) {
                return;
            }
        }
        if (hmc.validSds() == 0) {
            // irdma's teardown cleared the last SD (hmc.c irdma_del_hmc_objects): the HMC memory the ARP cache
            // lived in is gone, and with it the entries irdma never deletes one by one (its own addresses')
            arp.clearAll();
        }
    }

    private boolean programSd(long command, long data, CqpResult r) {
        SdCheck c = hmc.programSd(command, data);
        if (c == null) {
            r.fail(CqpFault.INDEX_OUT_OF_RANGE, "SD index beyond max_pe_sds");
            return false;
        }
        if (!c.accepted()) {
            r.fail(CqpFault.INVALID_FIELD, c.describe());
            return false;
        }
        return true;
    }

    // --- CEQ / AEQ

    private void createCeq(CqpWqe w, CqpResult r) {
        int id = w.eqId();
        int n = w.eqElementCount();
        if (id < 0 || id >= ceqs.length) {
            r.fail(CqpFault.INDEX_OUT_OF_RANGE, "CEQ id beyond max_ceqs");
        } else if (ceqs[id].live()) {
            r.fail(CqpFault.OBJECT_IN_USE, "CEQ exists");
        } else if (w.eqVirtualMap()) {
            r.fail(CqpFault.UNSUPPORTED_FIELD, "PBL-mapped CEQ");
        } else if (n <= 0) {
            r.fail(CqpFault.INVALID_FIELD, "CEQ of 0 elements");
        } else if (!memory.contains(w.eqAddress(), (long) n * Ceqe.SIZE)) {
            r.fail(CqpFault.DMA_FAULT, "CEQ ring outside mapped memory");
        } else {
            ceqs[id].create(w.eqAddress(), n);
        }
    }

    private void destroyCeq(CqpWqe w, CqpResult r) {
        int id = w.eqId();
        if (id < 0 || id >= ceqs.length) {
            r.fail(CqpFault.INDEX_OUT_OF_RANGE, "CEQ id beyond max_ceqs");
        } else if (!ceqs[id].live()) {
            r.fail(CqpFault.NO_SUCH_OBJECT, "no such CEQ");
        } else {
            ceqs[id].destroy();
        }
    }

    private void createAeq(CqpWqe w, CqpResult r) {
        int n = w.eqElementCount();
        if (aeq.live()) {
            r.fail(CqpFault.OBJECT_IN_USE, "AEQ exists");
        } else if (n <= 0) {
            r.fail(CqpFault.INVALID_FIELD, "AEQ of 0 elements");
        } else if (w.eqVirtualMap()) {
            // hw.c irdma_create_virt_aeq: the ring's pages in a level-1 PBL, chunk size 1
            if (mapRing(ringScratch, w.pblChunkSize(), w.eqFirstPmPblIndex(), (long) n * Aeqe.SIZE, r)) {
                aeq.create(ringScratch, n);
            }
        } else if (!memory.contains(w.eqAddress(), (long) n * Aeqe.SIZE)) {
            r.fail(CqpFault.DMA_FAULT, "AEQ ring outside mapped memory");
        } else {
            aeq.create(w.eqAddress(), n);
        }
    }

    private void destroyAeq(CqpResult r) {
        if (!aeq.live()) {
            r.fail(CqpFault.NO_SUCH_OBJECT, "no AEQ");
        } else {
            aeq.destroy();
        }
    }

    // --- PBL-mapped rings

    /**
     * Resolves the page list of a ring of {@code bytes} whose PBL starts at PBLE {@code first} into {@code into}.
     * {@code chunkCode} is the op's LPBLSIZE: 1 one level (the only code irdma writes for queues: verbs.c
     * irdma_create_cq, hw.c irdma_create_aeq), 2 two levels (the queue ops' two-level code, see
     * {@link CqpWqe#pblChunkSize()}); 0 with VIRTMAP names no PBL and is refused. False with the CQP error: a
     * PBLE beyond the committed count is out of range, an unbacked PBLE an HMC fault, an unmapped page a DMA fault.
     */
    private boolean mapRing(RingPages into, int chunkCode, long first, long bytes, CqpResult r) {
        if (chunkCode != PbleLayout.CHUNK_LEVEL_1 && chunkCode != QUEUE_CHUNK_LEVEL_2) {
            r.fail(CqpFault.INVALID_FIELD, "VIRTMAP with an LPBLSIZE that names no PBL level");
            return false;
        }
        long pages = (bytes + RingPages.PAGE_SIZE - 1) / RingPages.PAGE_SIZE;
        if (pages > MAX_MAPPED_RING_PAGES - mappedRingPages()) {
            // a two-level PBL may name one page many times: the page lists the model copies are bounded here
            r.fail(CqpFault.TABLE_FULL, "the model's cache of ring page lists is full");
            return false;
        }
        RingPages.Fault f = into.map(pbles, memory, chunkCode == QUEUE_CHUNK_LEVEL_2, first, bytes);
        CqpFault c = switch (f) {
            case NONE -> CqpFault.NONE;
            case INDEX_OUT_OF_RANGE -> CqpFault.INDEX_OUT_OF_RANGE;
            case PBLE_NOT_RESOLVED -> CqpFault.HMC_NOT_READY;
            case PAGE_NOT_MAPPED -> CqpFault.DMA_FAULT;
            case EMPTY_RING -> CqpFault.INVALID_FIELD;
        };
        if (c.isError()) {
            r.fail(c, f.describe());
            TraceEvent t = trace.start(TraceKind.HMC);
            if (t != null) {
                t.text("ring_fault", f.name()).num("first_pble", first).num("page", into.faultPage()).emit();
            }
            return false;
        }
        return true;
    }

    /** Pages of the PBL-mapped rings the live CQs, QPs and the AEQ hold (allocation-free, CQP-op time only). */
    public long mappedRingPages() {
        long n = aeq.ringPages().pageCount();
        for (int i = 0; i < cqs.capacity(); i++) {
            CompletionQueue cq = cqs.get(i);
            if (cq != null) {
                n += cq.ringPages().pageCount();
            }
        }
        for (int i = 0; i < qps.capacity(); i++) {
            QueuePair qp = qps.get(i);
            if (qp != null) {
                n += qp.sqRing().pageCount() + qp.rqRing().pageCount();
            }
        }
        return n;
    }

    // --- CQ

    private boolean hmcObject(HmcObjectType t, long index, CqpResult r) {
        if (hmc.resolve(t, index) >= 0) {
            return true;
        }
        HmcFault f = hmc.lastFault();
        r.fail(f == HmcFault.INDEX_OUT_OF_RANGE ? CqpFault.INDEX_OUT_OF_RANGE : CqpFault.HMC_NOT_READY,
                f.describe());
        return false;
    }

    private void createCq(CqpWqe w, CqpResult r) {
        int id = w.cqId();
        long size = w.cqSize();
        int stride = w.cqAvoidMemConflict() ? 64 : 32;
        if (!hmcObject(HmcObjectType.CQ, id, r)) {
            return;
        }
        if (id >= cqs.capacity()) {
            r.fail(CqpFault.INDEX_OUT_OF_RANGE, "CQ id beyond the model's table");
        } else if (cqs.get(id) != null) {
            r.fail(CqpFault.OBJECT_IN_USE, "CQ exists");
        } else if (size < 2) {
            r.fail(CqpFault.INVALID_FIELD, "CQ of fewer than 2 entries");
        } else if (w.cqCeqIdValid() && w.cqCeqId() >= ceqs.length) {
            r.fail(CqpFault.INDEX_OUT_OF_RANGE, "CEQ id beyond max_ceqs");
        } else if (!w.cqVirtualMap() && !memory.contains(w.cqAddress(), size * stride)) {
            r.fail(CqpFault.DMA_FAULT, "CQ ring outside mapped memory");
        } else if (!memory.contains(w.cqShadowAreaAddress(), CompletionQueue.SHADOW_AREA_SIZE)) {
            r.fail(CqpFault.DMA_FAULT, "CQ shadow area outside mapped memory");
        } else if (!w.cqVirtualMap()
                || mapRing(ringScratch, w.pblChunkSize(), w.cqFirstPmPblIndex(), size * stride, r)) {
            // verbs.c irdma_create_cq (user CQ of more than one page): VIRTMAP, chunk size 1, first PBLE index
            CompletionQueue cq = cqs.create(id, w.cqAddress(), (int) size, w.cqShadowAreaAddress(), w.cqCeqId(),
                    w.cqCeqIdValid(), w.cqCheckOverflow(), w.cqAvoidMemConflict());
            if (w.cqVirtualMap()) {
                cqs.mapRing(cq, ringScratch);
            }
        }
    }

    private void modifyCq(CqpWqe w, CqpResult r) {
        CompletionQueue cq = cqs.get(w.cqId());
        if (cq == null) {
            r.fail(CqpFault.NO_SUCH_OBJECT, "no such CQ");
            return;
        }
        if (w.cqResize()) {
            long size = w.cqSize();
            if (size < 2) {
                r.fail(CqpFault.INVALID_FIELD, "CQ of fewer than 2 entries");
            } else if (!w.cqVirtualMap() && !memory.contains(w.cqAddress(), size * cq.stride())) {
                r.fail(CqpFault.DMA_FAULT, "resized CQ ring outside mapped memory");
            } else if (!w.cqVirtualMap()) {
                cqs.modify(cq, (int) size, w.cqAddress());
            } else if (mapRing(ringScratch, w.pblChunkSize(), w.cqFirstPmPblIndex(), size * cq.stride(), r)) {
                // ctrl.c irdma_sc_cq_resize: the new ring by its first PBLE index
                cqs.modify(cq, (int) size, 0);
                cqs.mapRing(cq, ringScratch);
            }
        }
    }

    private void destroyCq(CqpWqe w, CqpResult r) {
        CompletionQueue cq = cqs.get(w.cqId());
        if (cq == null) {
            r.fail(CqpFault.NO_SUCH_OBJECT, "no such CQ");
        } else {
            cqs.destroy(cq);
        }
    }

    // --- QP

    /** Copies the 256-byte host context into the QP's HMC object and wraps {@link #qpContext} on it. */
    private long loadContext(int qpId, long hostContext, CqpResult r) {
        long obj = hmc.resolve(HmcObjectType.QP, qpId);
        if (obj < 0) {
            HmcFault f = hmc.lastFault();
            r.fail(f == HmcFault.INDEX_OUT_OF_RANGE ? CqpFault.INDEX_OUT_OF_RANGE : CqpFault.HMC_NOT_READY,
                    f.describe());
            return -1;
        }
        if (!memory.copyOut(hostContext, qpCtxBuf, 0, QP_CONTEXT_SIZE)) {
            r.fail(CqpFault.DMA_FAULT, "QP host context outside mapped memory");
            return -1;
        }
        if (!memory.copyIn(obj, qpCtxBuf, 0, QP_CONTEXT_SIZE)) {
            r.fail(CqpFault.HMC_NOT_READY, "QP object page too small");
            return -1;
        }
        int region = memory.find(obj, QP_CONTEXT_SIZE);
        qpContext.wrap(memory.store(region), memory.offset(region, obj), QP_CONTEXT_SIZE);
        return obj;
    }

    private void createQp(CqpWqe w, CqpResult r) {
        int id = w.qpId();
        int type = w.qpType();
        if (id >= qps.capacity()) {
            r.fail(CqpFault.INDEX_OUT_OF_RANGE, "QP id beyond the model's table");
            return;
        }
        if (qps.get(id) != null) {
            r.fail(CqpFault.OBJECT_IN_USE, "QP exists");
            return;
        }
        if (type != QueuePair.TYPE_IWARP && type != QueuePair.TYPE_UDA) {
            r.fail(CqpFault.UNSUPPORTED_FIELD, "RoCE QP types are not modelled");
            return;
        }
        if (w.qpVirtualMap() && type != QueuePair.TYPE_IWARP) {
            r.fail(CqpFault.UNSUPPORTED_FIELD, "PBL-mapped PUDA QP (hw.c creates the ILQ/IEQ rings coherent)");
            return;
        }
        QpState next = QpState.of(w.qpNextIwarpState());
        if (next == QpState.INVALID) {
            next = QpState.IDLE;
        }
        if (next != QpState.IDLE && next != QpState.RTS) {
            r.fail(CqpFault.INVALID_STATE, "a QP is created IDLE or RTS");
            return;
        }
        long obj = loadContext(id, w.qpHostContextAddress(), r);
        if (obj < 0) {
            return;
        }
        boolean withTcp = w.qpTcpContextValid();
        if (type == QueuePair.TYPE_IWARP) {
            QpContextCheck c = qpContext.validate(withTcp);
            if (!c.accepted()) {
                r.fail(CqpFault.INVALID_FIELD, c.describe());
                return;
            }
        }
        if (w.qpCqNumValid()
                && (cqs.get(qpContext.txCqNum()) == null || cqs.get(qpContext.rxCqNum()) == null)) {
            r.fail(CqpFault.NO_SUCH_OBJECT, "the QP's send or receive CQ does not exist");
            return;
        }
        long sqBytes = (long) QueuePair.QUANTUM * (4L << qpContext.sqSize());
        long rqBytes = (long) QueuePair.QUANTUM * (4L << qpContext.rqSize());
        if (w.qpVirtualMap()) {
            // verbs.c irdma_setup_virt_qp: context quadwords 1 and 2 carry the SQ's and RQ's first PBLE index
            // (irdma_handle_q_mem: one level-1 PBL, the RQ's pages after the SQ's); the QP op has no chunk size
            if (!mapRing(ringScratch, PbleLayout.CHUNK_LEVEL_1, qpContext.sqPbleIndex(), sqBytes, r)
                    || !mapRing(rqScratch, PbleLayout.CHUNK_LEVEL_1, qpContext.rqPbleIndex(), rqBytes, r)) {
                return;
            }
        } else if (!memory.contains(qpContext.sqAddress(), sqBytes)
                || !memory.contains(qpContext.rqAddress(), rqBytes)) {
            r.fail(CqpFault.DMA_FAULT, "SQ or RQ outside mapped memory");
            return;
        }
        if (type == QueuePair.TYPE_IWARP && next == QpState.RTS && withTcp && refusesRts(r)) {
            return;
        }
        QueuePair qp = qps.create(id, type, obj, w.qpShadowAreaAddress(), qpContext, withTcp, next);
        if (w.qpVirtualMap()) {
            qps.mapRings(qp, ringScratch, rqScratch);
        }
        if (type == QueuePair.TYPE_IWARP && next == QpState.RTS && withTcp && !takeOverHashEntry(qp, r)) {
            qps.destroy(qp);
            return;
        }
        traceState(qp, QpState.INVALID, next);
        dataPath.stateChanged(qp, QpState.INVALID, next, withTcp ? qpContext : null, 0, false);
    }

    private void modifyQp(CqpWqe w, CqpResult r) {
        QueuePair qp = qps.get(w.qpId());
        if (qp == null) {
            r.fail(CqpFault.NO_SUCH_OBJECT, "no such QP");
            return;
        }
        QpState next = QpState.of(w.qpNextIwarpState());
        if (next == null || next == QpState.INVALID || !qp.state().canMoveTo(next)) {
            r.fail(CqpFault.INVALID_STATE, "QP state transition not allowed");
            return;
        }
        boolean withTcp = w.qpTcpContextValid();
        if (withTcp || w.qpCachedVarValid()) {
            if (loadContext(qp.id(), w.qpHostContextAddress(), r) < 0) {
                return;
            }
            if (qp.type() == QueuePair.TYPE_IWARP) {
                QpContextCheck c = qpContext.validate(withTcp);
                if (!c.accepted()) {
                    r.fail(CqpFault.INVALID_FIELD, c.describe());
                    return;
                }
                if (next == QpState.RTS && qp.state() != QpState.RTS && withTcp && refusesRts(r)) {
                    return;
                }
            }
            qps.reload(qp, qpContext, withTcp);
        }
        if (w.qpRemoveHashEntry()) {
            removeHashEntry(qp);
        }
        if (qp.type() == QueuePair.TYPE_IWARP && next == QpState.RTS && withTcp && !takeOverHashEntry(qp, r)) {
            return;
        }
        QpState was = qp.state();
        qps.setState(qp, next);
        traceState(qp, was, next);
        dataPath.stateChanged(qp, was, next, withTcp ? qpContext : null, w.qpTermActions(), w.qpResetConnection());
    }

    /** Whether the loaded context cannot go to RTS ({@link IwarpDataPath#refuseRts}); if so the op fails. */
    private boolean refusesRts(CqpResult r) {
        String why = IwarpDataPath.refuseRts(qpContext);
        if (why != null) {
            r.fail(CqpFault.UNSUPPORTED_FIELD, why);
            return true;
        }
        return false;
    }

    /**
     * IRDMA_CQPSQ_QP_REMOVEHASHENTRY (ctrl.c irdma_sc_qp_destroy: irdma always sets it, verbs.c irdma_destroy_qp;
     * irdma_sc_qp_modify with the terminate path's hte flag): drop the established entry of the QP's own 4-tuple.
     */
    private void removeHashEntry(QueuePair qp) {
        hashKey(qp);
        QuadHashTable.Change c = qhash.remove(QuadHashTable.TYPE_ESTABLISHED, keyLh, keyLl, qp.localPort(), keyRh,
                keyRl, qp.remotePort(), keyVlan);
        traceHashEntry(qp, "remove", c);
    }

    /**
     * The hash takeover at RTS (verbs.c irdma_modify_qp to IB_QPS_RTS sets tcp_ctx_valid and hte_added; cm.c
     * irdma_accept / irdma_cm_event_connected clear the CM node's qhash_set, so the driver never deletes the
     * ILQ-pointing established entry it added): the device installs the established entry of the QP's 4-tuple,
     * or re-points the existing one, to the QP, so the classifier steers the connection to it from now on. A full
     * table fails the op (TABLE_FULL) before the QP changes state. False when it failed.
     */
    private boolean takeOverHashEntry(QueuePair qp, CqpResult r) {
        hashKey(qp);
        QuadHashTable.Change c = qhash.put(QuadHashTable.TYPE_ESTABLISHED, keyLh, keyLl, qp.localPort(), keyRh,
                keyRl, qp.remotePort(), keyVlan, qp.id(), false);
        if (c == QuadHashTable.Change.EXISTS) {
            c = qhash.put(QuadHashTable.TYPE_ESTABLISHED, keyLh, keyLl, qp.localPort(), keyRh, keyRl,
                    qp.remotePort(), keyVlan, qp.id(), true);
        }
        traceHashEntry(qp, "take_over", c);
        if (c != QuadHashTable.Change.OK) {
            r.fail(CqpFault.TABLE_FULL, "no room for the QP's established hash entry");
            return false;
        }
        return true;
    }

    private long keyLh;
    private long keyLl;
    private long keyRh;
    private long keyRl;
    private int keyVlan;

    /** The QP's 4-tuple and VLAN in the quad-hash table's form (IPv4 in address word 3, IPv4-mapped). */
    private void hashKey(QueuePair qp) {
        if (qp.ipv4()) {
            keyLh = IpAddress.IPV4_MAPPED_HI;
            keyLl = IpAddress.mappedLo(qp.localIp(3));
            keyRh = IpAddress.IPV4_MAPPED_HI;
            keyRl = IpAddress.mappedLo(qp.remoteIp(3));
        } else {
            keyLh = (long) qp.localIp(0) << 32 | (qp.localIp(1) & 0xffff_ffffL);
            keyLl = (long) qp.localIp(2) << 32 | (qp.localIp(3) & 0xffff_ffffL);
            keyRh = (long) qp.remoteIp(0) << 32 | (qp.remoteIp(1) & 0xffff_ffffL);
            keyRl = (long) qp.remoteIp(2) << 32 | (qp.remoteIp(3) & 0xffff_ffffL);
        }
        keyVlan = qp.insertVlan() ? qp.vlanTag() & 0xfff : -1;
    }

    private void traceHashEntry(QueuePair qp, String what, QuadHashTable.Change c) {
        TraceEvent t = trace.start(TraceKind.QHASH);
        if (t != null) {
            t.text("op", what).text("by", "qp").num("qp", qp.id()).num("local_port", qp.localPort())
                    .num("remote_port", qp.remotePort()).num("vlan", keyVlan).text("result", c.name()).emit();
        }
    }

    private void destroyQp(CqpWqe w, CqpResult r) {
        QueuePair qp = qps.get(w.qpId());
        if (qp == null) {
            r.fail(CqpFault.NO_SUCH_OBJECT, "no such QP");
            return;
        }
        if (w.qpRemoveHashEntry()) {
            removeHashEntry(qp);
        }
        QpState was = qp.state();
        dataPath.release(qp.id());
        qps.destroy(qp);
        traceState(qp, was, QpState.INVALID);
    }

    /**
     * Flush WQEs and Generate AE (opcode 0x22; ctrl.c irdma_sc_qp_flush_wqes / irdma_sc_gen_ae): the QP's
     * outstanding SQ / RQ work completes with the flush error, and / or the AE of quadword 1 is raised.
     */
    private void flushWqes(CqpWqe w, CqpResult r) {
        flushFields.readFrom(w);
        QueuePair qp = qps.get(flushFields.qpId);
        if (qp == null) {
            r.fail(CqpFault.NO_SUCH_OBJECT, "no such QP");
            return;
        }
        if (qp.role() != QueuePair.Role.IWARP) {
            r.fail(CqpFault.UNSUPPORTED_FIELD, "flush of a QP without an iWARP data path");
            return;
        }
        int minor = dataPath.flush(qp, flushFields);
        if (minor < 0) {
            r.fail(CqpFault.FLUSH_NO_WQE_PENDING, "nothing outstanding on the queues asked for");
        } else {
            r.okWithMinor(minor);
        }
    }

    private void traceState(QueuePair qp, QpState from, QpState to) {
        TraceEvent t = trace.start(TraceKind.QP_STATE);
        if (t != null) {
            t.num("qp", qp.id()).text("role", qp.role().name()).text("from", from.name()).text("to", to.name())
                    .num("tcp_state", qp.tcpState()).num("local_port", qp.localPort())
                    .num("remote_port", qp.remotePort()).emit();
        }
    }

    // --- work scheduler

    /**
     * Work scheduler node (ctrl.c irdma_sc_manage_ws_node, enum irdma_ws_node_op): add, modify or delete a node of
     * {@link WorkSchedulerTree}; a leaf's add answers its qs_handle in op_ret_val (utils.c irdma_cqp_ws_node_cmd).
     */
    private void workSchedNode(CqpWqe w, CqpResult r) {
        int op = w.wsNodeOp();
        int id = w.wsNodeId();
        WorkSchedulerTree.Result res = switch (op) {
            case CqpWqe.WS_NODE_OP_ADD -> ws.add(id, w.wsParentId(), w.wsLeaf(), w.wsEnable(), w.wsPrioType(),
                    w.wsTrafficClass(), w.wsVsi(), w.wsWeight());
            case CqpWqe.WS_NODE_OP_MODIFY -> ws.modify(id, w.wsParentId(), w.wsLeaf(), w.wsEnable(),
                    w.wsPrioType(), w.wsTrafficClass(), w.wsVsi(), w.wsWeight());
            case CqpWqe.WS_NODE_OP_DELETE -> ws.delete(id);
            default -> null;
        };
        if (res == null) {
            r.fail(CqpFault.INVALID_FIELD, "IRDMA_CQPSQ_WS_NODEOP is no enum irdma_ws_node_op");
            return;
        }
        switch (res) {
            case OK -> {
                if (op == CqpWqe.WS_NODE_OP_ADD && w.wsLeaf()) {
                    r.returnValue(ws.lastQsHandle());
                }
            }
            case BAD_NODE_ID -> r.fail(CqpFault.INDEX_OUT_OF_RANGE, res.describe());
            case EXISTS, ROOT_EXISTS, HAS_CHILDREN -> r.fail(CqpFault.OBJECT_IN_USE, res.describe());
            case NO_PARENT, NO_SUCH_NODE -> r.fail(CqpFault.NO_SUCH_OBJECT, res.describe());
            case FULL -> r.fail(CqpFault.TABLE_FULL, res.describe());
            case BAD_FIELD, LEAF_ROOT, PARENT_IS_LEAF, MODIFY_MOVES_NODE -> r.fail(CqpFault.INVALID_FIELD,
                    res.describe());
        }
    }

    // --- address handles

    /**
     * Create / Modify / Destroy Address Handle (uda.c irdma_sc_access_ah): the AH index must lie below the
     * committed FSIAV count (the driver's rf->max_ah, hw.c irdma_initialize_hw_rsrc); create needs a free index,
     * modify and destroy an existing AH. Success completes with op_ret_val 0, which utils.c irdma_ilq_ah_cb /
     * irdma_ieq_ah_cb read as "AH valid".
     */
    private void addressHandle(CqpOpcode op, CqpWqe w, CqpResult r) {
        long committed = hmc.count(HmcObjectType.FSIAV);
        AddressHandleTable.Result res = switch (op) {
            case CREATE_ADDR_HANDLE -> ahs.create(w, committed);
            case MODIFY_ADDR_HANDLE -> ahs.modify(w, committed);
            default -> ahs.destroy(w.ahIndex(), committed);
        };
        switch (res) {
            case OK -> r.returnValue(0);
            case OUT_OF_RANGE -> r.fail(CqpFault.INDEX_OUT_OF_RANGE, res.describe());
            case EXISTS -> r.fail(CqpFault.OBJECT_IN_USE, res.describe());
            case NO_SUCH_AH -> r.fail(CqpFault.NO_SUCH_OBJECT, res.describe());
        }
    }

    // --- quad hash, APBVT, ARP

    private static long hi(CqpWqe w, boolean dest) {
        if (w.qhashIpv4()) {
            return IpAddress.IPV4_MAPPED_HI;
        }
        int a = dest ? w.qhashDestIp(0) : w.qhashSrcIp(0);
        int b = dest ? w.qhashDestIp(1) : w.qhashSrcIp(1);
        return (long) a << 32 | (b & 0xffff_ffffL);
    }

    private static long lo(CqpWqe w, boolean dest) {
        if (w.qhashIpv4()) {
            return IpAddress.mappedLo(dest ? w.qhashDestIp(0) : w.qhashSrcIp(0));
        }
        int a = dest ? w.qhashDestIp(2) : w.qhashSrcIp(2);
        int b = dest ? w.qhashDestIp(3) : w.qhashSrcIp(3);
        return (long) a << 32 | (b & 0xffff_ffffL);
    }

    private void manageQhash(CqpWqe w, CqpResult r) {
        int type = w.qhashEntryType();
        if (type != QuadHashTable.TYPE_ESTABLISHED && type != QuadHashTable.TYPE_SYN) {
            r.fail(CqpFault.UNSUPPORTED_FIELD, "only TCP established and SYN entries are modelled");
            return;
        }
        int qpn = w.qhashQpNumber();
        long qpCount = hmc.count(HmcObjectType.QP);
        if (qpn >= qpCount) {
            r.fail(CqpFault.INDEX_OUT_OF_RANGE, "qhash QP number beyond the committed QP count");
            return;
        }
        int vlan = w.qhashVlanValid() ? w.qhashVlanId() : -1;
        long lh = hi(w, true);
        long ll = lo(w, true);
        long rh = hi(w, false);
        long rl = lo(w, false);
        int manage = w.qhashManage();
        QuadHashTable.Change c = switch (manage) {
            case CqpWqe.QHASH_MANAGE_ADD -> qhash.put(type, lh, ll, w.qhashDestPort(), rh, rl, w.qhashSrcPort(), vlan,
                    qpn, false);
            case CqpWqe.QHASH_MANAGE_MODIFY -> qhash.put(type, lh, ll, w.qhashDestPort(), rh, rl, w.qhashSrcPort(),
                    vlan, qpn, true);
            default -> qhash.remove(type, lh, ll, w.qhashDestPort(), rh, rl, w.qhashSrcPort(), vlan);
        };
        TraceEvent t = trace.start(TraceKind.QHASH);
        if (t != null) {
            StringBuilder local = IpAddress.format(lh, ll, new StringBuilder());
            StringBuilder remote = IpAddress.format(rh, rl, new StringBuilder());
            t.text("action", manage == CqpWqe.QHASH_MANAGE_ADD ? "add"
                            : manage == CqpWqe.QHASH_MANAGE_MODIFY ? "modify" : "delete")
                    .text("type", type == QuadHashTable.TYPE_SYN ? "listen" : "established")
                    .text("local", local.toString()).num("local_port", w.qhashDestPort())
                    .text("remote", remote.toString()).num("remote_port", w.qhashSrcPort()).num("vlan", vlan)
                    .num("qp", qpn).text("result", c.name()).emit();
        }
        switch (c) {
            case OK -> r.ok();
            case EXISTS -> r.fail(CqpFault.OBJECT_IN_USE, "qhash entry exists");
            case NOT_FOUND -> r.fail(CqpFault.NO_SUCH_OBJECT, "no such qhash entry");
            case FULL -> r.fail(CqpFault.TABLE_FULL, "qhash table full");
        }
    }

    private void manageApbvt(CqpWqe w, CqpResult r) {
        int port = w.apbvtPort();
        boolean changed = w.apbvtAdd() ? apbvt.add(port) : apbvt.remove(port);
        TraceEvent t = trace.start(TraceKind.QHASH);
        if (t != null) {
            t.text("action", w.apbvtAdd() ? "apbvt_add" : "apbvt_delete").num("local_port", port)
                    .flag("changed", changed).emit();
        }
        r.returnValue(changed ? 1 : 0);
    }

    private void manageArp(CqpWqe w, CqpResult r) {
        int idx = w.arpIndex();
        if (!arp.inRange(idx)) {
            r.fail(CqpFault.INDEX_OUT_OF_RANGE, "ARP index beyond the committed ARP count");
        } else if (w.arpEntryValid()) {
            arp.set(idx, w.arpMac(), w.arpPermanent());
        } else {
            arp.clear(idx);
        }
    }

    // --- STags (the checks and the table are model.mr's; here the HMC MR object and the CQP error codes)

    private void stag(CqpWqe w, CqpResult r, boolean register) {
        // verbs.c irdma_create_stag: the index field carries the driver key above the MR index
        int idx = stags.indexOf(w.stagIndex());
        if (!hmcObject(HmcObjectType.MR, idx, r)) {
            return;
        }
        stagResult(register ? stags.register(w) : stags.allocate(w), r);
    }

    private void deallocStag(CqpWqe w, CqpResult r) {
        stagResult(stags.deallocate(w), r);
    }

    private static void stagResult(RegistrationFault f, CqpResult r) {
        CqpFault c = switch (f) {
            case NONE -> CqpFault.NONE;
            case INDEX_OUT_OF_RANGE, PBL_INDEX_OUT_OF_RANGE -> CqpFault.INDEX_OUT_OF_RANGE;
            case IN_USE -> CqpFault.OBJECT_IN_USE;
            case NO_SUCH_STAG -> CqpFault.NO_SUCH_OBJECT;
            case PBLE_NOT_RESOLVED -> CqpFault.HMC_NOT_READY;
            case BUFFER_NOT_MAPPED -> CqpFault.DMA_FAULT;
            default -> CqpFault.INVALID_FIELD;
        };
        if (c.isError()) {
            r.fail(c, f.describe());
        }
    }

    /** The HMC QP count the model's tables are sized for. */
    public static int qpTableCapacity() {
        return (int) HmcLimits.maxCount(HmcObjectType.QP);
    }
}
