package dev.irdmaemu.model.cqp;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.cqp.CqpCompletion;
import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.fw.cqp.CqpHostContext;
import dev.irdmaemu.fw.cqp.CqpHostContextCheck;
import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.CqpWqeCheck;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.sim.SimTimer;
import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.model.qp.CompletionQueue;
import dev.irdmaemu.model.qp.CqTable;
import dev.irdmaemu.model.trace.OpLatencyStats;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The control QP: created when the driver writes the host context address to PFPE_CCQPHIGH / PFPE_CCQPLOW (ctrl.c
 * irdma_sc_cqp_create polls PFPE_CCQPSTATUS until non-zero, then tests CCQP_ERR), fed through PFPE_CQPDB (the
 * driver's SQ head, irdma_sc_cqp_post_sq). Each posted WQE is fetched (copied out of host memory, so the driver
 * cannot change it under the device), checked (valid bit at the ring polarity: 1 on the first pass, as
 * irdma_sc_cqp_get_next_send_wqe_idx flips the driver's polarity from 0 at index 0; then {@link CqpWqe#validate()}),
 * executed and completed: PFPE_CQPTAIL advances (the register-polling path of irdma_cqp_poll_registers, with
 * CQP_OP_ERR and PFPE_CQPERRCODES for a failed op) and, once the CCQ exists, a CCQ completion is written
 * (irdma_sc_ccq_get_cqe_info). Each fetch and each execution is one event on the scheduler, costed by the
 * {@link LatencyTable}. No guest value can make it throw; nothing is allocated per WQE.
 *
 * <p>Two faults can be injected, for debugging a driver's error paths and for tests: {@link
 * #withholdNextCompletion(CqpOpcode)} and {@link #failNextOp(CqpOpcode, CqpFault)}. They are off unless a host asks
 * for them; the guest cannot arm them.
 */
public final class CqpEngine {
    private final HostMemory memory;
    private final SimScheduler scheduler;
    private final Trace trace;
    private final LatencyTable latency;
    private final CqTable cqs;
    private final CqpOpHandler ops;
    private final BytesStore<?, Void> fetched = BytesStore.nativeStoreWithFixedCapacity(CqpWqe.SIZE);
    private final BytesStore<?, Void> hostCtxBuf = BytesStore.nativeStoreWithFixedCapacity(CqpHostContext.SIZE);
    private final CqpWqe wqe = new CqpWqe();
    private final CqpHostContext hostContext = new CqpHostContext();
    private final CqpResult result = new CqpResult();
    private final SimTimer createTimer;
    private final SimTimer fetchTimer;
    private final SimTimer executeTimer;
    private final OpLatencyStats stats;

    private int contextHigh;
    private int contextLow;
    private long contextAddress;
    private int ccqpStatus;
    private int errCodes;
    private boolean opError;
    private boolean created;
    private long sqBase;
    private int sqSize;
    private long completionContext;
    private int tail;
    private int head;
    private boolean polarity = true;
    private long pendingSince;
    private CqpOpcode fetchedOp;
    private int fetchedCode;
    private CqpFault fetchFault = CqpFault.NONE;
    private String fetchDetail;
    private long completed;
    private long failed;
    private long ccqLost;
    private boolean withholdArmed;
    private CqpOpcode withholdOp;
    private long withheld;
    private CqpFault failFault;
    private CqpOpcode failOp;
    private long failedOnPurpose;

    public CqpEngine(HostMemory memory, SimScheduler scheduler, Trace trace, LatencyTable latency, CqTable cqs,
                     CqpOpHandler ops) {
        this.memory = memory;
        this.scheduler = scheduler;
        this.trace = trace;
        this.latency = latency;
        this.cqs = cqs;
        this.ops = ops;
        this.createTimer = scheduler.newTimer("cqp-create", this::createOrDestroy);
        this.fetchTimer = scheduler.newTimer("cqp-fetch", this::fetch);
        this.executeTimer = scheduler.newTimer("cqp-execute", this::execute);
        String[] names = new String[64];
        for (int i = 0; i < 64; i++) {
            CqpOpcode op = CqpOpcode.of(i);
            names[i] = op == null ? "OP_0x" + Integer.toHexString(i) : op.name();
        }
        this.stats = new OpLatencyStats(names);
    }

    // --- register handlers

    public void writeContextHigh(int value) {
        contextHigh = value;
    }

    /** PFPE_CCQPLOW: the low half completes the address; a zero address (irdma_sc_cqp_destroy) tears down. */
    public void writeContextLow(int value) {
        contextLow = value;
        contextAddress = Gen2Registers.hostContextAddress(contextHigh, contextLow);
        createTimer.scheduleIn(latency.cqpCreateNanos);
    }

    public int readContextHigh() {
        return contextHigh;
    }

    public int readContextLow() {
        return contextLow;
    }

    public int readStatus() {
        return ccqpStatus;
    }

    /** The driver clears PFPE_CCQPSTATUS (irdma_sc_cqp_init writes 0). */
    public void writeStatus(int value) {
        ccqpStatus = value;
    }

    public int readTail() {
        return Gen2Registers.cqpTail(tail, opError);
    }

    /** irdma_sc_cqp_init writes 0 before the CQP exists; once it runs, the tail is the device's. */
    public void writeTail(int value) {
        if (!created) {
            tail = Gen2Registers.cqpTailIndex(value);
            opError = false;
        }
    }

    public int readErrCodes() {
        return errCodes;
    }

    public int readDoorbell() {
        return head;
    }

    /** PFPE_CQPDB: the driver's new SQ head. */
    public void doorbell(int value) {
        if (!created) {
            if (value != 0) {
                traceError(CqpFault.BAD_DOORBELL, "doorbell before the CQP exists", -1, -1);
            }
            return;
        }
        if (value < 0 || value >= sqSize) {
            opError = true;
            errCodes = CqpFault.BAD_DOORBELL.errCodes();
            failed++;
            traceError(CqpFault.BAD_DOORBELL, "doorbell past the SQ size", value, -1);
            return;
        }
        if (head == tail && value != tail) {
            pendingSince = scheduler.now();
        }
        head = value;
        kick(latency.mmioWriteNanos + latency.cqpWqeFetchNanos);
    }

    private void kick(long delay) {
        if (tail != head && !fetchTimer.isPending() && !executeTimer.isPending()) {
            fetchTimer.scheduleIn(delay);
        }
    }

    // --- create / destroy

    private void createOrDestroy() {
        if (contextAddress == 0) {
            created = false;
            ccqpStatus = 0;
            fetchTimer.cancel();
            executeTimer.cancel();
            traceCreate("destroy", CqpFault.NONE, null);
            return;
        }
        if (!memory.copyOut(contextAddress, hostCtxBuf, 0, CqpHostContext.SIZE)) {
            createFailed(CqpFault.DMA_FAULT, "host context outside mapped memory");
            return;
        }
        hostContext.wrap(hostCtxBuf, 0);
        CqpHostContextCheck check = hostContext.validate();
        if (!check.accepted()) {
            createFailed(CqpFault.BAD_HOST_CONTEXT, check.describe());
            return;
        }
        int entries = hostContext.sqEntries();
        long base = hostContext.sqBase();
        if (!memory.contains(base, (long) entries * CqpWqe.SIZE)) {
            createFailed(CqpFault.DMA_FAULT, "SQ ring outside mapped memory");
            return;
        }
        sqBase = base;
        sqSize = entries;
        completionContext = hostContext.completionContext();
        tail = 0;
        head = 0;
        polarity = true;
        opError = false;
        errCodes = 0;
        created = true;
        ccqpStatus = Gen2Registers.ccqpStatus(true, false);
        traceCreate("create", CqpFault.NONE, null);
    }

    private void createFailed(CqpFault f, String why) {
        created = false;
        errCodes = f.errCodes();
        ccqpStatus = Gen2Registers.ccqpStatus(false, true);
        traceCreate("create", f, why);
    }

    private void traceCreate(String action, CqpFault f, String why) {
        TraceEvent t = trace.start(TraceKind.CQP_CREATE);
        if (t != null) {
            t.text("action", action).hex("ctx", contextAddress).num("sq_size", sqSize).hex("sq", sqBase)
                    .text("result", f.name());
            if (why != null) {
                t.text("why", why);
            }
            t.emit();
        }
    }

    // --- the pipeline: fetch, then execute and complete

    private void fetch() {
        if (!created || tail == head) {
            return;
        }
        long gpa = sqBase + (long) tail * CqpWqe.SIZE;
        fetchFault = CqpFault.NONE;
        fetchDetail = null;
        fetchedOp = null;
        fetchedCode = -1;
        if (!memory.copyOut(gpa, fetched, 0, CqpWqe.SIZE)) {
            fetchFault = CqpFault.DMA_FAULT;
            fetchDetail = "WQE outside mapped memory";
        } else {
            wqe.wrap(fetched, 0);
            fetchedCode = wqe.opcodeCode();
            fetchedOp = wqe.opcode();
            if (wqe.valid() != polarity) {
                fetchFault = CqpFault.WQE_NOT_VALID;
                fetchDetail = polarity ? "valid bit 0, expected 1" : "valid bit 1, expected 0";
            } else {
                CqpWqeCheck c = wqe.validate();
                if (!c.accepted()) {
                    fetchFault = switch (c) {
                        case UNKNOWN_OPCODE -> CqpFault.UNKNOWN_OPCODE;
                        case UNSUPPORTED_OPCODE -> CqpFault.UNSUPPORTED_OPCODE;
                        default -> CqpFault.INVALID_FIELD;
                    };
                    fetchDetail = c.describe();
                }
            }
        }
        executeTimer.scheduleIn(latency.cqpOp(Math.max(0, fetchedCode)));
    }

    private void execute() {
        if (!created) {
            return;
        }
        int index = tail;
        result.reset();
        if (fetchFault.isError()) {
            result.fail(fetchFault, fetchDetail);
        } else if (failFault != null && (failOp == null || failOp == fetchedOp)) {
            failOnPurpose(index);
        } else {
            ops.execute(fetchedOp, wqe, index, result);
        }
        complete(index);
        tail++;
        if (tail == sqSize) {
            tail = 0;
            polarity = !polarity;
        }
        pendingSince = scheduler.now();
        kick(latency.cqpWqeFetchNanos);
    }

    private void complete(int index) {
        CqpFault f = result.fault;
        boolean error = f.isError();
        opError = error;
        if (error) {
            errCodes = f.errCodes();
            failed++;
        }
        long lat = scheduler.now() - pendingSince;
        stats.record(Math.max(0, fetchedCode) & 63, lat, error);
        TraceEvent t = trace.start(error ? TraceKind.CQP_ERROR : TraceKind.CQP_OP);
        if (t != null) {
            t.text("op", fetchedOp == null ? "0x" + Integer.toHexString(fetchedCode) : fetchedOp.name())
                    .num("wqe", index).text("result", f.name()).hex("major", f.major()).hex("minor", f.minor())
                    .num("ret", result.opReturnValue).num("latency_ns", lat);
            if (result.detail != null) {
                t.text("why", result.detail);
            }
            if (fetchedOp != null && fetchFault != CqpFault.DMA_FAULT) {
                decodedFields(t);
            }
            t.emit();
        }
        CompletionQueue ccq = cqs.ccq();
        if (ccq == null) {
            // Before the CCQ exists the driver polls PFPE_CQPTAIL (irdma_cqp_poll_registers): the op is done.
            completed++;
            return;
        }
        if (withholdArmed && (withholdOp == null || withholdOp == fetchedOp)) {
            withhold(index);
            return;
        }
        if (!ccq.hasRoom(1)) {
            ccq.overflow();
            return;
        }
        long gpa = ccq.slotAddress(0);
        int r = memory.find(gpa, CqpCompletion.SIZE);
        if (r < 0) {
            // No completion can be written: the CCQ's AE (CqTable.lost traces and raises it); the op is not done
            // as far as the driver can see.
            ccqLost++;
            cqs.lost(CqTable.Loss.CQE_UNMAPPED, CqTable.CCQ_ID, -1);
            return;
        }
        CqpCompletion.write(memory.store(r), memory.offset(r, gpa), completionContext, result.opReturnValue, index,
                error, f.major(), error ? f.minor() : result.successMinor, ccq.polarity(0));
        ccq.produced(1, false);
        completed++;
    }

    /** The armed fault bites: the op ran, its CCQ entry is never written, the driver is left waiting. */
    private void withhold(int index) {
        withholdArmed = false;
        withheld++;
        TraceEvent t = trace.start(TraceKind.FAULT_INJECTED);
        if (t != null) {
            t.text("fault", "withheld_completion").text("op", fetchedOp == null ? "0x" + Integer.toHexString(
                    fetchedCode) : fetchedOp.name()).num("wqe", index).emit();
        }
    }

    /** The armed failure bites: the op is not executed, its completion carries the armed codes. */
    private void failOnPurpose(int index) {
        CqpFault f = failFault;
        failFault = null;
        failedOnPurpose++;
        result.fail(f, "injected by the host");
        TraceEvent t = trace.start(TraceKind.FAULT_INJECTED);
        if (t != null) {
            t.text("fault", "failed_completion").text("op", fetchedOp.name()).num("wqe", index)
                    .text("result", f.name()).hex("major", f.major()).hex("minor", f.minor()).emit();
        }
    }

    // --- fault injection (a debugging and test feature: never armed by the guest)

    /**
     * Fails exactly one op: the next well-formed WQE of {@code op} (of any opcode when null) is not executed, and
     * its completion (the CCQ entry, or PFPE_CQPTAIL's CQP_OP_ERR with PFPE_CQPERRCODES before the CCQ exists)
     * carries {@code fault}'s major and minor, as the device's own refusal would. For the pairs irdma gives a
     * meaning to that the model has no condition for: {@link CqpFault#FATAL_RESET} (0xffff/0x8029, utils.c
     * irdma_wait_event requests a reset), or {@link CqpFault#INVALID_STATE} on an op the model would have run
     * (0xffff/0x8002, -EBUSY). A WQE the engine refuses on its own (bad valid bit, a field the checks reject) keeps
     * its own error and leaves the arm in place. Arming again replaces the pending arm; a function reset disarms it
     * (the engine is made anew). Traced as {@link TraceKind#FAULT_INJECTED} when it bites.
     *
     * @throws IllegalArgumentException for {@link CqpFault#NONE}: a completion without an error is no fault
     */
    public void failNextOp(CqpOpcode op, CqpFault fault) {
        if (fault == null || !fault.isError()) {
            throw new IllegalArgumentException("a failed op needs an error, not " + fault);
        }
        failFault = fault;
        failOp = op;
    }

    /** Whether {@link #failNextOp} is armed and has not bitten yet. */
    public boolean failArmed() {
        return failFault != null;
    }

    /** Ops failed so far by {@link #failNextOp}. */
    public long failedOnPurpose() {
        return failedOnPurpose;
    }

    /**
     * Withholds exactly one CCQ completion: the next op of {@code op} (of any opcode when null) that completes
     * once the CCQ exists is executed and retired as usual (PFPE_CQPTAIL moves past it), but no CCQ entry is written
     * for it. A driver waiting for that op sees no progress: irdma 7.3 gives up after its CQP timeout (utils.c
     * irdma_wait_event: CQP_TIMEOUT_THRESHOLD polls of CQP_COMPL_WAIT_TIME_MS with completed_ops unchanged, about
     * 5 s), sets rf->reset and asks ice for a PF reset (icrdma_if.c icrdma_request_reset), which is how this
     * reaches the driver's reset path. Arming again replaces the pending arm; a function reset disarms it (the
     * engine is made anew). Traced as {@link TraceKind#FAULT_INJECTED} when it bites.
     */
    public void withholdNextCompletion(CqpOpcode op) {
        withholdArmed = true;
        withholdOp = op;
    }

    /** Whether {@link #withholdNextCompletion} is armed and has not bitten yet. */
    public boolean withholdArmed() {
        return withholdArmed;
    }

    /** Completions withheld so far by {@link #withholdNextCompletion}. */
    public long withheldCompletions() {
        return withheld;
    }

    /** The fields of the fetched WQE that say what the op was about (as the kernel's WQE dumps would). */
    private void decodedFields(TraceEvent t) {
        switch (fetchedOp) {
            case CREATE_QP, MODIFY_QP, DESTROY_QP -> t.num("qp", wqe.qpId()).num("qp_type", wqe.qpType())
                    .num("next_state", wqe.qpNextIwarpState()).hex("ctx", wqe.qpHostContextAddress())
                    .flag("tcp_ctx", wqe.qpTcpContextValid()).flag("rm_hash", wqe.qpRemoveHashEntry());
            case CREATE_CQ, MODIFY_CQ, DESTROY_CQ -> t.num("cq", wqe.cqId()).num("size", wqe.cqSize())
                    .num("ceq", wqe.cqCeqId()).hex("ring", wqe.cqAddress());
            case CREATE_CEQ, DESTROY_CEQ -> t.num("ceq", wqe.eqId()).num("elements", wqe.eqElementCount())
                    .hex("ring", wqe.eqAddress());
            case CREATE_AEQ, DESTROY_AEQ -> t.num("elements", wqe.eqElementCount()).hex("ring", wqe.eqAddress());
            case QUERY_FPM_VAL, COMMIT_FPM_VAL -> t.num("hmc_fn", wqe.fpmHmcFnId()).hex("buf", wqe.fpmBufferAddress());
            case UPDATE_PE_SDS -> t.num("hmc_fn", wqe.sdHmcFnId()).num("entries", wqe.sdTotalCount());
            case MANAGE_QUAD_HASH_TABLE_ENTRY -> t.num("qp", wqe.qhashQpNumber()).num("manage", wqe.qhashManage())
                    .num("entry_type", wqe.qhashEntryType()).num("local_port", wqe.qhashDestPort())
                    .num("qs_handle", wqe.qhashQsHandle());
            case MANAGE_APBVT -> t.num("port", wqe.apbvtPort()).flag("add", wqe.apbvtAdd());
            case MANAGE_ARP -> t.num("arp", wqe.arpIndex()).flag("valid", wqe.arpEntryValid());
            case ALLOC_STAG, REG_MR, DEALLOC_STAG -> t.num("stag_index", wqe.stagIndex()).num("pd", wqe.stagPdId());
            case QUERY_RDMA_FEATURES -> t.hex("buf", wqe.featuresBufferAddress()).num("len",
                    wqe.featuresBufferLength());
            case SHMC_PAGES_ALLOCATED -> t.num("hmc_fn", wqe.shmcHmcFnId());
            case CREATE_ADDR_HANDLE, MODIFY_ADDR_HANDLE, DESTROY_ADDR_HANDLE -> t.num("ah", wqe.ahIndex())
                    .num("arp", wqe.ahArpIndex()).flag("ipv4", wqe.ahIpv4()).flag("loopback", wqe.ahLoopback());
            case GATHER_STATS -> t.hex("buf", wqe.statsBufferAddress()).num("hmc_fn", wqe.statsHmcFnIndex());
            case WORK_SCHED_NODE -> t.num("node_op", wqe.wsNodeOp()).num("node", wqe.wsNodeId())
                    .num("parent", wqe.wsParentId()).flag("leaf", wqe.wsLeaf()).flag("enable", wqe.wsEnable())
                    .num("tc", wqe.wsTrafficClass()).num("vsi", wqe.wsVsi()).num("weight", wqe.wsWeight());
            default -> {
            }
        }
    }

    private void traceError(CqpFault f, String why, long value, int index) {
        TraceEvent t = trace.start(TraceKind.CQP_ERROR);
        if (t != null) {
            t.text("result", f.name()).text("why", why).num("value", value).num("wqe", index).emit();
        }
    }

    // --- state

    public boolean created() {
        return created;
    }

    public int sqSize() {
        return sqSize;
    }

    public long sqBase() {
        return sqBase;
    }

    public int tail() {
        return tail;
    }

    public int head() {
        return head;
    }

    /** The polarity the next WQE must carry. */
    public boolean expectedPolarity() {
        return polarity;
    }

    public boolean busy() {
        return fetchTimer.isPending() || executeTimer.isPending() || createTimer.isPending();
    }

    /** Ops whose completion the driver can see: a CCQ entry written, or (before the CCQ exists) the tail moved. */
    public long completedOps() {
        return completed;
    }

    public long failedOps() {
        return failed;
    }

    /** Ops executed whose CCQ completion could not be written (the CCQ slot unmapped). */
    public long ccqLostOps() {
        return ccqLost;
    }

    public OpLatencyStats stats() {
        return stats;
    }
}
