package dev.irdmaemu.model;

import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.InterruptSink;
import dev.irdmaemu.model.pci.RdmaBlock;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.sim.SimTimer;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.fw.wire.LinkPort;
import dev.irdmaemu.model.cqp.CqpEngine;
import dev.irdmaemu.model.cqp.CqpOperations;
import dev.irdmaemu.model.eq.AsyncEventQueue;
import dev.irdmaemu.model.eq.CompletionEventQueue;
import dev.irdmaemu.model.eq.InterruptController;
import dev.irdmaemu.model.eq.VectorCauses;
import dev.irdmaemu.model.hmc.HmcFunction;
import dev.irdmaemu.model.hmc.HmcLimits;
import dev.irdmaemu.model.iwarp.IwarpDataPath;
import dev.irdmaemu.model.mr.MemoryRegionTable;
import dev.irdmaemu.model.mr.MemoryRegions;
import dev.irdmaemu.model.port.Apbvt;
import dev.irdmaemu.model.port.ArpTable;
import dev.irdmaemu.model.port.EthernetPort;
import dev.irdmaemu.model.port.QuadHashTable;
import dev.irdmaemu.model.port.ReceiveClassifier;
import dev.irdmaemu.model.puda.PudaQueues;
import dev.irdmaemu.model.qp.CompletionQueue;
import dev.irdmaemu.model.qp.CqTable;
import dev.irdmaemu.model.qp.QpTable;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.reg.RegisterFile;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import dev.irdmaemu.model.ws.WorkSchedulerTree;
import dev.irdmaemu.model.ah.AddressHandleTable;

/**
 * The RDMA function of an E810 PF as the irdma driver sees it: BAR0 (Mmio, through {@link RdmaBlock}), DMA into host memory and
 * MSI-X toward the host. This class is the bus glue (the register table and what each side-effect register
 * does); the device core lives in the subpackages: {@code cqp} (control QP engine and op handlers), {@code hmc},
 * {@code eq} (CEQs, AEQ, interrupt routing), {@code qp} (CQs, QPs), {@code mr} (STags and memory registration), {@code port} (quad hash, APBVT, ARP,
 * classifier, Ethernet port), {@code puda} (ILQ / IEQ) and {@code iwarp} (the offloaded QPs' data path). Every
 * action runs on the one {@link SimScheduler}; the model has no threads. Register offsets from
 * {@link Gen2Register} (icrdma_hw.h).
 */
public final class E810RdmaFunction implements RdmaBlock {
    private final SimScheduler scheduler;
    private final HostMemory memory;
    private final Trace trace;
    private final LatencyTable latency;
    private final int hmcFunctionId;
    /** Where the MSI-X messages go: the constructor's sink, or the PCI function's ({@link #routeInterrupts}). */
    private InterruptSink interrupts;
    /** Whatever {@link #attach} connected the port to: the link port frames go out on after a reset too. */
    private LinkPort linkPort;
    // Everything below is the function's state: built at power-on by build() and built anew by reset().
    private RegisterFile regs;
    private InterruptController irq;
    private HmcFunction hmc;
    private final CompletionEventQueue[] ceqs = new CompletionEventQueue[HmcLimits.MAX_CEQS];
    private AsyncEventQueue aeq;
    private CqTable cqs;
    private QpTable qps;
    private MemoryRegionTable stags;
    private QuadHashTable qhash;
    private Apbvt apbvt;
    private ArpTable arp;
    private WorkSchedulerTree workScheduler;
    private AddressHandleTable addressHandles;
    private CqpEngine cqp;
    private EthernetPort port;
    private PudaQueues puda;
    private IwarpDataPath iwarp;
    private int[] wqeAllocQueue;
    private boolean[] wqeAllocPending;
    private int wqeAllocHead;
    private int wqeAllocCount;
    private SimTimer wqeAllocTimer;
    private long wqeAllocIgnored;
    private long doorbellPageReads;
    private long resets;

    /** The E810 function with HMC function id 0 (the PF's), latencies from {@code latency}. */
    public E810RdmaFunction(SimScheduler scheduler, HostMemory memory, InterruptSink interrupts, Trace trace,
                            LatencyTable latency) {
        this(scheduler, memory, interrupts, trace, latency, 0);
    }

    /** The function with HMC function id {@code hmcFunctionId}; its data path places through its own STag table. */
    public E810RdmaFunction(SimScheduler scheduler, HostMemory memory, InterruptSink interrupts, Trace trace,
                            LatencyTable latency, int hmcFunctionId) {
        this.scheduler = scheduler;
        this.memory = memory;
        this.trace = trace;
        this.latency = latency;
        this.hmcFunctionId = hmcFunctionId;
        this.interrupts = interrupts == null ? InterruptSink.NONE : interrupts;
        build();
    }

    /**
     * The power-on state: every table, queue and engine new. The timers made here belong to this function on the
     * scheduler ({@link SimScheduler#ownTimersFor}), so that {@link #reset} can disarm them; the per-QP engines'
     * timers go with their engines ({@link IwarpDataPath#releaseAll}).
     */
    private void build() {
        Object previousOwner = scheduler.ownTimersFor(this);
        try {
            buildState();
        } finally {
            scheduler.endOwnership(previousOwner);
        }
    }

    private void buildState() {
        this.regs = new RegisterFile(trace);
        this.irq = new InterruptController(scheduler, trace, this::deliverMsix, latency.interruptNanos);
        this.hmc = new HmcFunction(memory, trace);
        for (int i = 0; i < ceqs.length; i++) {
            ceqs[i] = new CompletionEventQueue(i, memory, trace, irq);
        }
        this.aeq = new AsyncEventQueue(memory, trace, irq);
        AsyncEventQueue aeq = this.aeq;
        CompletionEventQueue[] ceqs = this.ceqs;
        CompletionQueue.CqEvents cqEvents = new CompletionQueue.CqEvents() {
            @Override
            public void cqNotify(int ceqId, int cqId) {
                if (ceqId >= 0 && ceqId < ceqs.length) {
                    ceqs[ceqId].post(cqId);
                }
            }

            @Override
            public void cqOverflow(CompletionQueue cq) {
                aeq.post(cq.id(), cq.id(), AeCode.CQ_OPERATION_ERROR.code(), AeSource.CQ, 0, 0, 0);
            }

            @Override
            public void cqLost(int cqId, int qpId, CqTable.Loss why) {
                // user.h IRDMA_AE_CQ_OPERATION_ERROR with IRDMA_AE_SOURCE_CQ: ctrl.c irdma_sc_get_next_aeqe marks
                // it a CQ event, and hw.c irdma_process_aeq raises IB_EVENT_CQ_ERR on the CQ (or logs a CQ it no
                // longer has, the CCQ included).
                TraceEvent t = trace.start(TraceKind.COMPLETION_LOST);
                if (t != null) {
                    t.num("cq", cqId).num("qp", qpId).text("reason", why.name())
                            .text("ae", "IRDMA_AE_CQ_OPERATION_ERROR").emit();
                }
                aeq.post(cqId, cqId, AeCode.CQ_OPERATION_ERROR.code(), AeSource.CQ, 0, 0, 0);
            }
        };
        this.cqs = new CqTable(memory, cqEvents, (int) HmcLimits.maxCount(HmcObjectType.CQ));
        this.qps = new QpTable(CqpOperations.qpTableCapacity());
        this.stags = new MemoryRegionTable(memory, hmc, trace, (int) HmcLimits.maxCount(HmcObjectType.MR));
        this.qhash = new QuadHashTable(1 << 16);
        this.apbvt = new Apbvt();
        this.arp = new ArpTable((int) HmcLimits.maxCount(HmcObjectType.ARP));
        this.workScheduler = new WorkSchedulerTree();
        this.addressHandles = new AddressHandleTable();
        this.port = new EthernetPort(scheduler, trace, latency, new ReceiveClassifier(qhash, apbvt), qps, aeq);
        this.puda = new PudaQueues(memory, cqs, qps, scheduler, trace, port, aeq, addressHandles, arp);
        port.attachPuda(puda);
        this.iwarp = new IwarpDataPath(scheduler, memory, trace, latency, cqs, qps, aeq, arp, stags,
                port::transmit);
        port.attachDataPath(iwarp);
        // one set of PE counters for the function (Gather Stats): the port's packets, the data path's messages
        port.attachCounters(iwarp.counters());
        CqpOperations ops = new CqpOperations(memory, trace, hmc, ceqs, aeq, cqs, qps, stags, qhash, apbvt, arp,
                hmcFunctionId, iwarp, workScheduler, addressHandles);
        this.cqp = new CqpEngine(memory, scheduler, trace, latency, cqs, ops);
        this.wqeAllocQueue = new int[qps.capacity()];
        this.wqeAllocPending = new boolean[qps.capacity()];
        this.wqeAllocHead = 0;
        this.wqeAllocCount = 0;
        this.wqeAllocIgnored = 0;
        this.doorbellPageReads = 0;
        this.wqeAllocTimer = scheduler.newTimer("wqe-alloc", this::serviceWqeAlloc);
        defineRegisters();
    }

    /**
     * Returns the whole RDMA block to its power-on state, as a function-level reset of the E810 does (PCIe FLR, the
     * vfio-user DEVICE_RESET, ice's PF reset with irdma on top): the CQP engine, the HMC, every CQ, QP, STag,
     * quad-hash, APBVT, ARP, work-scheduler and address-handle entry, the CEQs and the AEQ, the interrupt routing
     * and GLINT_DYN_CTL, the PUDA queues, the iWARP engines with their offloaded TCP connections, and the timers
     * they had armed on the scheduler; GLPE_CPUSTATUS0..2 read 0x80 again (ctrl.c irdma_wait_pe_ready). What the
     * host owns stays: host memory (the function's DMA simply stops), the link the port is attached to (with its
     * tap and LAN sink) and the MSI-X sink. Modelled as a rebuild of the whole state, so that no table can keep a
     * leftover a per-table clear forgot.
     */
    public void reset() {
        // The engines first: their timers are not the function's own (they are made as QPs come up).
        int engines = iwarp.liveEngines();
        iwarp.releaseAll();
        int cancelled = scheduler.cancelOwnedBy(this);
        int liveQps = qps.liveCount();
        int liveCqs = cqs.liveCount();
        EthernetPort old = port;
        build();
        port.setTransmitter(old.transmitter());
        port.setLanTransmitter(old.lanTransmitter());
        port.setTap(old.tap());
        port.setLanSink(old.lanSink());
        resets++;
        TraceEvent t = trace.start(TraceKind.FUNCTION_RESET);
        if (t != null) {
            t.text("block", "rdma").num("qps", liveQps).num("cqs", liveCqs).num("engines", engines)
                    .num("timers_cancelled", cancelled).emit();
        }
    }

    /** Function resets so far ({@link #reset}). */
    public long resets() {
        return resets;
    }

    /**
     * Sends the function's MSI-X messages to {@code sink} from now on (the PCI function takes them over, gating
     * them on the MSI-X capability's enable bit).
     */
    public void routeInterrupts(InterruptSink sink) {
        this.interrupts = sink == null ? InterruptSink.NONE : sink;
    }

    private void deliverMsix(int vector) {
        interrupts.raise(vector);
    }

    /**
     * A cause on an MSI-X vector from another block of the PF (ice's OICR and queue vectors), through the one
     * GLINT_DYN_CTL array this function's {@link InterruptController} keeps: the vector fires when armed, else it
     * stays pending until INTENA is written. Hand this to the ice block as its {@link InterruptSink}.
     */
    public InterruptSink vectorCauses() {
        return vector -> irq.vectorCause(vector);
    }

    /**
     * The same, for causes that name the ITR they wait on (ice's queue causes: QINT_RQCTL / QINT_TQCTL ITR_INDX), so
     * GLINT_ITR and GLINT_RATE throttle them as the hardware does.
     */
    public VectorCauses throttledVectorCauses() {
        return (vector, itrIndex) -> irq.vectorCause(vector, itrIndex);
    }

    // --- the register table

    private void defineRegisters() {
        reg(Gen2Register.CQPTAIL, "cqp_tail", (e, s) -> cqp.readTail(), "cqp_set_tail", (e, v) -> cqp.writeTail(v));
        reg(Gen2Register.CQPDB, "cqp_db_read", (e, s) -> cqp.readDoorbell(), "cqp_doorbell",
                (e, v) -> cqp.doorbell(v));
        reg(Gen2Register.CCQPSTATUS, "cqp_status", (e, s) -> cqp.readStatus(), "cqp_clear_status",
                (e, v) -> cqp.writeStatus(v));
        reg(Gen2Register.CCQPHIGH, "cqp_ctx_high", (e, s) -> cqp.readContextHigh(), "cqp_set_ctx_high",
                (e, v) -> cqp.writeContextHigh(v));
        reg(Gen2Register.CCQPLOW, "cqp_ctx_low", (e, s) -> cqp.readContextLow(), "cqp_set_ctx_low",
                (e, v) -> cqp.writeContextLow(v));
        reg(Gen2Register.CQARM, null, null, "cq_arm", (e, v) -> cqArm(v));
        reg(Gen2Register.CQACK, null, null, "cq_ack", (e, v) -> cqAck(v));
        reg(Gen2Register.AEQALLOC, null, null, "aeq_alloc", (e, v) -> aeq.allocate(v));
        readOnly(Gen2Register.CQPERRCODES, "cqp_err_codes", (e, s) -> cqp.readErrCodes());
        reg(Gen2Register.WQEALLOC, null, null, "wqe_alloc", (e, v) -> wqeAlloc(v));
        // The user doorbell page (verbs.c irdma_alloc_ucontext / irdma_mmap): libirdma rings the same doorbells
        // there as the kernel does through PFPE_WQEALLOC and PFPE_CQARM, with the same values. The rest of the
        // page is not backed (reads 0, writes dropped, each offset traced once as reg_unknown).
        long db = Gen2Register.DB_ADDR_OFFSET.offset();
        regs.define("DB_PAGE_WQEALLOC", db + Gen2Registers.DB_PAGE_WQE_ALLOC, 1, 0, "db_page_read",
                (e, s) -> doorbellPageRead(), "wqe_alloc", (e, v) -> wqeAlloc(v));
        regs.define("DB_PAGE_CQARM", db + Gen2Registers.DB_PAGE_CQ_ARM, 1, 0, "db_page_read",
                (e, s) -> doorbellPageRead(), "cq_arm", (e, v) -> cqArm(v));
        reg(Gen2Register.GLINT_DYN_CTL, "dyn_ctl", (e, s) -> irq.readDynCtl(e), "dyn_ctl_arm",
                (e, v) -> irq.writeDynCtl(e, v));
        int lbar = readOnly(Gen2Register.GLPCI_LBARCTRL, null, null);
        regs.store(lbar, 0, Gen2Registers.lbarCtrl(Gen2Registers.PE_DB_SIZE_8M));
        for (Gen2Register r : new Gen2Register[] {Gen2Register.GLPE_CPUSTATUS0, Gen2Register.GLPE_CPUSTATUS1,
                Gen2Register.GLPE_CPUSTATUS2}) {
            // ctrl.c irdma_wait_pe_ready: the PE firmware is up once all three read 0x80.
            int b = readOnly(r, null, null);
            regs.store(b, 0, Gen2Registers.CPUSTATUS_READY);
        }
        reg(Gen2Register.PFINT_AEQCTL, "aeq_ctl", (e, s) -> irq.readAeqCtl(), "aeq_route",
                (e, v) -> irq.writeAeqCtl(v));
        reg(Gen2Register.GLINT_CEQCTL, "ceq_ctl", (e, s) -> irq.readCeqCtl(e), "ceq_route",
                (e, v) -> irq.writeCeqCtl(e, v));
        reg(Gen2Register.VSIQF_PE_CTL1, null, null, null, null);
        reg(Gen2Register.PFHMC_PDINV, null, null, "pd_invalidate",
                (e, v) -> hmc.invalidatePd(Gen2Registers.pdInvalidateSdIndex(v), Gen2Registers.pdInvalidatePdIndex(v)));
        reg(Gen2Register.GLHMC_VFPDINV, null, null, null, null);
        reg(Gen2Register.GLPE_CRITERR, null, null, null, null);
        reg(Gen2Register.GLINT_RATE, "intrl", (e, s) -> irq.readRate(e), "intrl_set", (e, v) -> irq.writeRate(e, v));
        // GLINT_ITR(i, vector): ice's three throttling intervals per vector (ice_lib.c __ice_write_itr); one array for
        // every vector of the PF, like GLINT_DYN_CTL, so they live with it here.
        for (int i = 0; i < Gen2Registers.GLINT_ITR_INDEXES; i++) {
            int index = i;
            regs.define("GLINT_ITR" + i, Gen2Registers.GLINT_ITR + (long) i * Gen2Registers.GLINT_ITR_INDEX_STRIDE,
                    InterruptController.VECTORS, 4, "itr", (e, s) -> irq.readItr(index, e), "itr_set",
                    (e, v) -> irq.writeItr(index, e, v));
        }
        reg(Gen2Register.PFHMC_ERRORINFO, "hmc_error_info", (e, s) -> hmc.errorInfo(), "hmc_error_clear",
                (e, v) -> hmc.clearError());
        readOnly(Gen2Register.PFHMC_ERRORDATA, "hmc_error_data", (e, s) -> hmc.errorData());
    }

    private int readOnly(Gen2Register r, String readName, RegisterFile.OnRead read) {
        return regs.defineReadOnly(r.name(), r.offset(), r.count(), r.stride(), readName, read);
    }

    private void reg(Gen2Register r, String readName, RegisterFile.OnRead read, String writeName,
                     RegisterFile.OnWrite write) {
        regs.define(r.name(), r.offset(), r.count(), r.stride(), readName, read, writeName, write);
    }

    // --- doorbells

    private void cqArm(int cqId) {
        CompletionQueue cq = cqs.get(cqId);
        if (cq == null || !cq.arm()) {
            TraceEvent t = trace.start(TraceKind.CQE);
            if (t != null) {
                t.text("action", "arm_ignored").num("cq", cqId).emit();
            }
        }
    }

    private void cqAck(int cqId) {
        TraceEvent t = trace.start(TraceKind.CQE);
        if (t != null) {
            t.text("action", "ack").num("cq", cqId).flag("known", cqs.get(cqId) != null).emit();
        }
    }

    /**
     * The user doorbell page reads 0 (the device latches writes there, it holds nothing to read); the first read
     * is traced, every one counted.
     */
    private int doorbellPageRead() {
        if (doorbellPageReads++ == 0) {
            TraceEvent t = trace.start(TraceKind.DOORBELL);
            if (t != null) {
                t.text("action", "db_page_read").emit();
            }
        }
        return 0;
    }

    /**
     * PFPE_WQEALLOC or its user doorbell page alias: the QP id (uk.c irdma_uk_qp_post_wr). PUDA QPs transmit; an
     * iWARP QP's engine fetches its SQ (a QP with no running engine, or no such QP, ignores the doorbell: counted
     * and traced).
     */
    private void wqeAlloc(int value) {
        int qpId = Gen2Registers.wqeAllocQpId(value);
        QueuePair qp = qps.get(qpId);
        if (qp == null) {
            wqeAllocIgnored(value, "no_qp");
            return;
        }
        if (qp.role() == QueuePair.Role.IWARP) {
            if (!iwarp.doorbell(qp)) {
                wqeAllocIgnored(value, "not_running");
            }
            return;
        }
        if (!wqeAllocPending[qpId]) {
            wqeAllocPending[qpId] = true;
            wqeAllocQueue[(wqeAllocHead + wqeAllocCount) % wqeAllocQueue.length] = qpId;
            wqeAllocCount++;
        }
        if (!wqeAllocTimer.isPending()) {
            wqeAllocTimer.scheduleIn(latency.mmioWriteNanos + latency.pudaWqeFetchNanos);
        }
    }

    private void wqeAllocIgnored(int value, String reason) {
        wqeAllocIgnored++;
        TraceEvent t = trace.start(TraceKind.DOORBELL);
        if (t != null) {
            t.text("action", "wqe_alloc_ignored").hex("val", value & 0xffff_ffffL).text("reason", reason).emit();
        }
    }

    private void serviceWqeAlloc() {
        while (wqeAllocCount > 0) {
            int qpId = wqeAllocQueue[wqeAllocHead];
            wqeAllocHead = (wqeAllocHead + 1) % wqeAllocQueue.length;
            wqeAllocCount--;
            wqeAllocPending[qpId] = false;
            QueuePair qp = qps.get(qpId);
            if (qp != null) {
                puda.transmit(qp);
            }
        }
    }

    // --- Mmio

    @Override
    public int read32(long offset) {
        return regs.read32(offset);
    }

    @Override
    public void write32(long offset, int value) {
        regs.write32(offset, value);
    }

    // --- accessors for the glue (bridge, tests, demo)

    public SimScheduler scheduler() {
        return scheduler;
    }

    public HostMemory memory() {
        return memory;
    }

    public Trace trace() {
        return trace;
    }

    public LatencyTable latency() {
        return latency;
    }

    public RegisterFile registers() {
        return regs;
    }

    public CqpEngine cqp() {
        return cqp;
    }

    public HmcFunction hmc() {
        return hmc;
    }

    public CompletionEventQueue ceq(int id) {
        return ceqs[id];
    }

    public AsyncEventQueue aeq() {
        return aeq;
    }

    public InterruptController interrupts() {
        return irq;
    }

    public CqTable cqs() {
        return cqs;
    }

    public QpTable qps() {
        return qps;
    }

    /** The STag table: the CQP's and the tests' view (allocation state, counters). */
    public MemoryRegionTable stags() {
        return stags;
    }

    public QuadHashTable quadHash() {
        return qhash;
    }

    public Apbvt apbvt() {
        return apbvt;
    }

    /** The address handles of IRDMA_CQP_OP_CREATE / MODIFY / DESTROY_ADDR_HANDLE. */
    public AddressHandleTable addressHandles() {
        return addressHandles;
    }

    /** The work-scheduler tree of IRDMA_CQP_OP_WORK_SCHED_NODE. */
    public WorkSchedulerTree workScheduler() {
        return workScheduler;
    }

    public ArpTable arp() {
        return arp;
    }

    /**
     * Connects the Ethernet port to a simulated link: frames the port transmits go onto {@code link}, frames the
     * link delivers go to the port's receive path. Answers the port's end of the link.
     */
    public LinkPort attach(Link link, long mac, FaultProfile outbound) {
        LinkPort lp = link.attach(mac, outbound, this::receiveFromWire);
        port.setTransmitter(lp::transmit);
        this.linkPort = lp;
        return lp;
    }

    /** The wire's receiver: whatever port the function has now (a reset builds a new one). */
    private void receiveFromWire(net.openhft.chronicle.bytes.BytesStore<?, ?> store, long offset, int length) {
        port.receive(store, offset, length);
    }

    /** The link port {@link #attach} connected, or null. */
    public LinkPort linkPort() {
        return linkPort;
    }

    /** The Ethernet port: {@code port()::receive} is the wire's FrameReceiver. */
    public EthernetPort port() {
        return port;
    }

    public PudaQueues puda() {
        return puda;
    }

    /** The offloaded iWARP QPs' data path (engines, counters). */
    public IwarpDataPath iwarp() {
        return iwarp;
    }

    /** The memory-registration state the data path uses: the STag table, as the data path sees it. */
    public MemoryRegions memoryRegions() {
        return stags;
    }

    public long wqeAllocIgnored() {
        return wqeAllocIgnored;
    }

    /** Reads of the user doorbell page's doorbells (all answered 0; the first traced). */
    public long doorbellPageReads() {
        return doorbellPageReads;
    }

    /** A human-readable status: CQP op counts and latencies, queues, port and PUDA counters (for the demo). */
    public String summary() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("simulated time %d ns%n", scheduler.now()));
        sb.append(String.format("CQP: %s, %d ops, %d failed%n", cqp.created() ? "up" : "down", cqp.completedOps(),
                cqp.failedOps()));
        sb.append(cqp.stats().summary());
        sb.append(String.format("HMC: QP %d, CQ %d, MR %d committed; %d resolution failures%n",
                hmc.count(HmcObjectType.QP), hmc.count(HmcObjectType.CQ), hmc.count(HmcObjectType.MR),
                hmc.failures()));
        sb.append(String.format("CQs %d, QPs %d, STags %d, qhash %d established / %d listen, APBVT ports %d%n",
                cqs.liveCount(), qps.liveCount(), stags.liveCount(), qhash.establishedCount(), qhash.listenCount(),
                apbvt.size()));
        sb.append(String.format("MR: %d registered, %d fast-registered, %d invalidated, %d refused accesses%n",
                stags.registrations(), stags.fastRegistrations(), stags.invalidations(), stags.accessFailures()));
        sb.append(String.format("AEQ: %d posted, %d lost%n", aeq.posted(), aeq.lost()));
        sb.append(String.format("port rx %d (puda %d, qp %d, ieq %d, lan %d, bad qp %d, dropped %d), tx %d%n",
                port.rxFrames(), port.rxPuda(), port.rxQp(), port.rxIeq(), port.rxLan(), port.rxBadQp(),
                port.rxDropped(), port.txFrames()));
        sb.append(String.format("PUDA received %d, transmitted %d (%d looped back, %d errors), drops %d (last: %s)%n",
                puda.received(), puda.transmitted(), puda.loopedBack(), puda.transmitErrors(), puda.totalDrops(),
                puda.lastDrop()));
        sb.append(iwarp.summary());
        sb.append(String.format("registers: %d unknown offsets seen%n", regs.unknownOffsets()));
        return sb.toString();
    }
}
