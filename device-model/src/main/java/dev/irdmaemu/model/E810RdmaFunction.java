package dev.irdmaemu.model;

import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.InterruptSink;
import dev.irdmaemu.model.pci.RdmaBlock;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.sim.SimScheduler;
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
import dev.irdmaemu.model.roce.RcQueuePairs;
import dev.irdmaemu.model.roce.RoceDataPath;
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
import dev.irdmaemu.model.reg.RegisterFile;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import dev.irdmaemu.model.ws.WorkSchedulerTree;
import dev.irdmaemu.model.ah.AddressHandleTable;

/**
 * The RDMA function of an E810 PF as the irdma driver sees it: BAR0 (Mmio, through {@link RdmaBlock}), DMA into host memory and
 * MSI-X toward the host. This class is the bus glue (it builds the state, resets it and wires it to the bus; the
 * register table is {@link RdmaRegisterTable}'s, the doorbells {@link Doorbells}'); the device core lives in the subpackages: {@code cqp} (control QP engine and op handlers), {@code hmc},
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
    /** Where SWINT_TRIG writes go besides the vector (the ice block's PFINT_OICR SWINT); kept over resets. */
    private java.util.function.IntConsumer softwareInterrupts = v -> { };
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
    private RoceDataPath roce;
    private Doorbells doorbells;
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
        this.irq = new InterruptController(scheduler, trace, vector -> interrupts.raise(vector), latency.interruptNanos);
        irq.onSoftwareTrigger(vector -> softwareInterrupts.accept(vector));
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
        this.roce = new RoceDataPath(memory, qps, cqs, stags, addressHandles, arp, aeq, trace, port::transmit,
                port::loopback);
        port.attachRoce(roce);
        roce.attachRc(new RcQueuePairs(scheduler, memory, qps, cqs, stags, arp, aeq, trace, port::transmit));
        CqpOperations ops = new CqpOperations(memory, trace, hmc, ceqs, aeq, cqs, qps, stags, qhash, apbvt, arp,
                hmcFunctionId, iwarp, workScheduler, addressHandles, roce);
        this.cqp = new CqpEngine(memory, scheduler, trace, latency, cqs, ops);
        this.doorbells = new Doorbells(scheduler, trace, latency, cqs, qps, iwarp, puda, roce);
        new RdmaRegisterTable(regs, cqp, irq, hmc, aeq, doorbells).define();
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
        roce.rc().releaseAll();
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

    /** Tells {@code hook} the vector of every GLINT_DYN_CTL SWINT_TRIG write, across this function's resets. */
    public void onSoftwareInterrupt(java.util.function.IntConsumer hook) {
        this.softwareInterrupts = hook == null ? v -> { } : hook;
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
        // the wire's receiver is whatever port the function has then (a reset builds a new one)
        LinkPort lp = link.attach(mac, outbound, (store, offset, length) -> port.receive(store, offset, length));
        port.setTransmitter(lp::transmit);
        this.linkPort = lp;
        return lp;
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

    /** The RoCEv2 QPs' data path (UD / QP1, counters). */
    public RoceDataPath roce() {
        return roce;
    }

    /** The memory-registration state the data path uses: the STag table, as the data path sees it. */
    public MemoryRegions memoryRegions() {
        return stags;
    }

    /** WQEALLOC doorbells ignored (no such QP, or no running engine). */
    public long wqeAllocIgnored() {
        return doorbells.ignored();
    }

    /** Reads of the user doorbell page's doorbells (all answered 0; the first traced). */
    public long doorbellPageReads() {
        return doorbells.pageReads();
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
