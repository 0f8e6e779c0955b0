package dev.irdmaemu.model.cqp;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.model.ah.AddressHandleTable;
import dev.irdmaemu.model.eq.AsyncEventQueue;
import dev.irdmaemu.model.eq.CompletionEventQueue;
import dev.irdmaemu.model.hmc.HmcFunction;
import dev.irdmaemu.model.hmc.HmcLimits;
import dev.irdmaemu.model.hmc.RingPages;
import dev.irdmaemu.model.iwarp.IwarpDataPath;
import dev.irdmaemu.model.mr.MemoryRegionTable;
import dev.irdmaemu.model.port.Apbvt;
import dev.irdmaemu.model.port.ArpTable;
import dev.irdmaemu.model.port.QuadHashTable;
import dev.irdmaemu.model.qp.CqTable;
import dev.irdmaemu.model.qp.QpTable;
import dev.irdmaemu.model.roce.RoceDataPath;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.ws.WorkSchedulerTree;

/**
 * The CQP ops the model executes, dispatched by opcode to the op family that runs them, in the grouping of the
 * kernel's ctrl.c: {@link HmcOps} (Query / Commit FPM Values, Update PE SDs, Static HMC Pages Allocated),
 * {@link EventQueueOps} (CEQ, AEQ), {@link CqOps}, {@link QpOps} (with Flush WQEs), {@link MemoryRegistrationOps}
 * (Alloc STag, Register MR, Deallocate STag), {@link PortTableOps} (quad hash, APBVT, ARP),
 * {@link WorkSchedulerOps}, {@link AddressHandleOps} (uda.c) and {@link DeviceQueryOps} (Query RDMA Features,
 * Gather Stats). Each op checks every guest value before using it and answers a {@link CqpFault} (never an
 * exception). The WQE has passed {@link CqpWqe#validate()} (layout and reserved bits);
 * what is checked here is meaning: ids against the committed HMC counts and the device tables, addresses against
 * mapped host memory, object existence and QP state transitions. CQ, AEQ and iWARP SQ/RQ rings may be mapped
 * through PBLs (VIRTMAP / VQ, {@link RingPages}): the page list is resolved and checked once, here; a PBL-mapped
 * CEQ or PUDA QP (which irdma never creates) answers {@link CqpFault#UNSUPPORTED_FIELD}.
 */
public final class CqpOperations implements CqpOpHandler {
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

    private final HmcOps hmcOps;
    private final DeviceQueryOps queries;
    private final RingMapping rings;
    private final EventQueueOps eventQueues;
    private final CqOps cqOps;
    private final QpOps qpOps;
    private final MemoryRegistrationOps stagOps;
    private final PortTableOps portTables;
    private final WorkSchedulerOps workScheduler;
    private final AddressHandleOps addressHandles;

    /** With the iWARP and RoCE data paths that Create / Modify / Destroy QP and Flush WQEs drive. */
    public CqpOperations(HostMemory memory, Trace trace, HmcFunction hmc, CompletionEventQueue[] ceqs,
                         AsyncEventQueue aeq, CqTable cqs, QpTable qps, MemoryRegionTable stags, QuadHashTable qhash,
                         Apbvt apbvt, ArpTable arp, int hmcFunctionId, IwarpDataPath dataPath,
                         WorkSchedulerTree ws, AddressHandleTable ahs, RoceDataPath roce) {
        this.hmcOps = new HmcOps(memory, hmc, arp, hmcFunctionId);
        this.queries = new DeviceQueryOps(memory, hmcOps, dataPath);
        this.rings = new RingMapping(memory, trace, hmc, aeq, cqs, qps);
        this.eventQueues = new EventQueueOps(memory, ceqs, aeq, rings);
        this.cqOps = new CqOps(memory, hmcOps, cqs, ceqs.length, rings);
        this.qpOps = new QpOps(memory, trace, hmc, hmcOps, cqs, qps, dataPath, rings, new QpHashEntry(qhash, trace),
                roce, new RoceContextRules(cqs, arp));
        this.stagOps = new MemoryRegistrationOps(stags, hmcOps);
        this.portTables = new PortTableOps(trace, hmc, qhash, apbvt, arp);
        this.workScheduler = new WorkSchedulerOps(ws);
        this.addressHandles = new AddressHandleOps(hmc, ahs);
    }

    @Override
    public void execute(CqpOpcode op, CqpWqe w, int wqeIndex, CqpResult r) {
        switch (op) {
            case NOP -> r.ok();
            case QUERY_FPM_VAL -> hmcOps.queryFpm(w, r);
            case COMMIT_FPM_VAL -> hmcOps.commitFpm(w, r);
            case UPDATE_PE_SDS -> hmcOps.updateSds(w, r);
            case SHMC_PAGES_ALLOCATED -> hmcOps.staticHmcPagesAllocated(w, r);
            case CREATE_CEQ -> eventQueues.createCeq(w, r);
            case DESTROY_CEQ -> eventQueues.destroyCeq(w, r);
            case CREATE_AEQ -> eventQueues.createAeq(w, r);
            case DESTROY_AEQ -> eventQueues.destroyAeq(r);
            case CREATE_CQ -> cqOps.createCq(w, r);
            case MODIFY_CQ -> cqOps.modifyCq(w, r);
            case DESTROY_CQ -> cqOps.destroyCq(w, r);
            case CREATE_QP -> qpOps.createQp(w, r);
            case MODIFY_QP -> qpOps.modifyQp(w, r);
            case DESTROY_QP -> qpOps.destroyQp(w, r);
            case FLUSH_WQES -> qpOps.flushWqes(w, r);
            case MANAGE_QUAD_HASH_TABLE_ENTRY -> portTables.manageQhash(w, r);
            case MANAGE_APBVT -> portTables.manageApbvt(w, r);
            case MANAGE_ARP -> portTables.manageArp(w, r);
            case ALLOC_STAG -> stagOps.allocateOrRegister(w, r, false);
            case REG_MR -> stagOps.allocateOrRegister(w, r, true);
            case DEALLOC_STAG -> stagOps.deallocate(w, r);
            case QUERY_RDMA_FEATURES -> queries.queryRdmaFeatures(w, r);
            case GATHER_STATS -> queries.gatherStats(w, r);
            case WORK_SCHED_NODE -> workScheduler.manageNode(w, r);
            case CREATE_ADDR_HANDLE, MODIFY_ADDR_HANDLE, DESTROY_ADDR_HANDLE -> addressHandles.access(op, w, r);
            default -> r.fail(CqpFault.UNSUPPORTED_OPCODE, "op not modelled");
        }
    }

    /** Pages of the PBL-mapped rings the live CQs, QPs and the AEQ hold (allocation-free, CQP-op time only). */
    public long mappedRingPages() {
        return rings.mappedRingPages();
    }

    /** The HMC QP count the model's tables are sized for. */
    public static int qpTableCapacity() {
        return (int) HmcLimits.maxCount(HmcObjectType.QP);
    }
}
