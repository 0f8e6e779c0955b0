package dev.irdmaemu.driver;

import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.bus.InterruptSink;
import dev.irdmaemu.fw.bus.Mmio;
import dev.irdmaemu.fw.cqp.CqOpFields;
import dev.irdmaemu.fw.cqp.CqpCompletion;
import dev.irdmaemu.fw.cqp.CqpErrorCode;
import dev.irdmaemu.fw.cqp.CqpHostContext;
import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.EqOpFields;
import dev.irdmaemu.fw.cqp.QhashFields;
import dev.irdmaemu.fw.cqp.QpFlushFields;
import dev.irdmaemu.fw.cqp.QpOpFields;
import dev.irdmaemu.fw.cqp.RdmaFeatureBuffer;
import dev.irdmaemu.fw.cqp.StagFields;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.hmc.FpmCommitBuffer;
import dev.irdmaemu.fw.hmc.FpmQueryBuffer;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.hmc.PbleLayout;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.fw.qp.QpResources;
import dev.irdmaemu.fw.queue.Aeqe;
import dev.irdmaemu.fw.queue.Ceqe;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.CqeExtension;
import dev.irdmaemu.fw.queue.PudaLayout;
import dev.irdmaemu.fw.queue.RqWqe;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.fw.reg.Bits;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.sim.SimTimer;
import java.util.Arrays;
import java.util.BitSet;
import java.util.EnumMap;
import java.util.Map;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver layer: brings an E810 RDMA function up the way irdma's probe does (hw.c irdma_ctrl_init_hw, then
 * irdma_rt_init_hw) and then serves the CM, touching the device only through {@link Mmio}, host memory
 * ({@link HostRam}) and the {@link InterruptSink} it hands the device ({@link #interruptSink()}).
 *
 * <p>CQP ops are synchronous: post the WQE, ring PFPE_CQPDB, run the {@link SimScheduler} until the completion
 * for that WQE index arrives. Before the CCQ exists (and after it is destroyed) the completion is PFPE_CQPTAIL moving,
 * polled for at most {@link #CQP_TIMEOUT_NANOS} (ctrl.c irdma_cqp_poll_registers); with the CCQ it is a CCQ CQE,
 * waited for as utils.c irdma_wait_event does: in steps of {@link #CQP_COMPL_WAIT_NANOS}, each step without CQP
 * progress counted (ctrl.c irdma_check_cqp_progress), {@link #CQP_TIMEOUT_THRESHOLD} of them a timeout. A timeout
 * is a {@link CqpException} ({@link CqpException.Kind#TIMEOUT}), never a hang. A waited op's error completion is
 * -EIO ({@link CqpException.Kind#OP_ERROR}), or -EBUSY for major 0xffff minor 0x8002 ({@link CqpException.Kind#BUSY}).
 * A timeout, a waited op's 0xffff/0x8029 completion and an overflowed AEQE make the driver request a function reset
 * as irdma does ({@link #resetRequested()}, {@link #onResetRequest}, {@link ResetCause}); from then on every op is
 * refused ({@link CqpException.Kind#RESET_REQUESTED}). The requests irdma posts without waiting (the passive side's
 * AH create, every AH destroy, the stats timer's Gather Stats) go through {@link #post}: their completions reach
 * their callbacks from the interrupt handler, through the CCQ's CEQE (hw.c irdma_cqp_ce_handler), and the same
 * progress count over them ends in the same timeout.
 *
 * <p>Interrupts are handled per vector and per CEQE as hw.c does: the AEQ's vector drains the AEQ (irdma_dpc), CEQ
 * 0's drains the CEQ (irdma_ceq_dpc), each CEQE is acknowledged (PFPE_CQACK) and handed to its CQ's handler alone
 * (the CCQ's, a PUDA CQ's or a consumer's), which re-arms that CQ only; each vector is re-enabled by its handler.
 *
 * <p>{@link #tearDown()} destroys what the bring-up created, in the order of irdma's remove path (hw.c
 * irdma_rt_deinit_hw, then irdma_ctrl_deinit_hw).
 */
public final class IrdmaDriver {
    private static final Logger LOG = LoggerFactory.getLogger(IrdmaDriver.class);

    /**
     * Simulated-time bound of the register polls: GLPE_CPUSTATUS, PFPE_CCQPSTATUS at CQP create and destroy,
     * PFPE_CQPTAIL for the ops posted without a CCQ (ctrl.c irdma_cqp_poll_registers and irdma_sc_cqp_destroy poll
     * IRDMA_DONE_COUNT times with a udelay; the model answers in µs).
     */
    public static final long CQP_TIMEOUT_NANOS = 100_000_000L;
    /**
     * protos.h CQP_COMPL_WAIT_TIME_MS (10 ms): one step of utils.c irdma_wait_event (its
     * wait_for_completion_timeout), after which ctrl.c irdma_check_cqp_progress looks at the CQP's counters.
     */
    public static final long CQP_COMPL_WAIT_NANOS = 10_000_000L;
    /**
     * protos.h CQP_TIMEOUT_THRESHOLD: steps without progress (no CQP completion while requests are outstanding)
     * after which irdma_wait_event gives up with -ETIMEDOUT and requests a reset (utils.c
     * irdma_get_timeout_threshold, with no cqp_timeout_s from a virtchnl: gen2's PF). 500 x 10 ms: 5 s.
     */
    public static final int CQP_TIMEOUT_THRESHOLD = 500;
    /** Completion context the CQP host context carries back in every CCQ CQE (irdma_sc_cqp_init scratch). */
    public static final long CQP_COMPLETION_CONTEXT = 0x1dba_c0de_0000_0001L;
    /** Reserved ids (model package-info; hw.c irdma_initialize_ilq / irdma_initialize_ieq); the PUDA CQs share them. */
    public static final int CCQ_ID = 0;
    public static final int ILQ_QP = 1;
    public static final int IEQ_QP = 2;
    /** dev->hmc_fn_id: the PF's own HMC function (icrdma_fill_device_info: pf_id; the model's PF is 0). */
    public static final int HMC_FN_ID = 0;
    /**
     * irdma's vsi_idx on gen2: ice's vport_id (icrdma_if.c icrdma_probe: iwdev->vsi_num = vport_id), which the
     * WS nodes carry in IRDMA_CQPSQ_WS_VSI. Without an ice model the emulated PF's main VSI is number 0.
     */
    public static final int VSI_NUM = 0;
    /** ws.c irdma_alloc_node: the root keeps index 0 (hw.c irdma_initialize_hw_rsrc reserves bit 0 of the map). */
    public static final int WS_ROOT_NODE = 0;
    /** defs.h IRDMA_MAX_WS_NODES: the size of rf->allocated_ws_nodes. */
    static final int IRDMA_MAX_WS_NODES = 0x3ff;
    /** type.h enum irdma_sched_prio_type: IRDMA_PRIO_WEIGHTED_RR, the type irdma_alloc_node gives every node. */
    static final int IRDMA_PRIO_WEIGHTED_RR = 1;
    /** The user priority the PUDA QPs use (puda.c: rsrc->qp.user_pri stays 0), and so every QP of this driver. */
    static final int PUDA_USER_PRI = 0;
    /**
     * ice's QoS parameters without DCB (ice_dcb_lib.c ice_setup_dcb_qos_info from the default ETS table): every
     * user priority maps to TC 0 (up2tc[] = 0) and TC 0 has all the bandwidth (tcbwtable[0] = ICE_TC_MAX_BW).
     * irdma_sc_vsi_init copies them into vsi->qos[]; the leaf's weight is that rel_bw.
     */
    static final int UP0_TRAFFIC_CLASS = 0;
    static final int TC0_REL_BW = 100;
    /** MSI-X vectors: 0 for the AEQ, 1 for CEQ 0 (hw.c irdma_cfg_ceq_vector / irdma_cfg_aeq_vector). */
    public static final int AEQ_VECTOR = 0;
    public static final int CEQ0_VECTOR = 1;
    /** PUDA QP type (puda.c irdma_puda_qp_setctx: UDA) and the iWARP RTS state used for PUDA QPs. */
    static final int QP_TYPE_UDA = 2;
    static final int PUDA_NEXT_STATE = 2;
    /** IRDMAQPC_QPCOMPCTX of a PUDA QP (irdma writes the sc_qp's kernel address; any value the CQEs echo). */
    static final long PUDA_COMPLETION_CONTEXT = 0x90DA_0000L;

    /** Sizes chosen for the bring-up (hw.c: sc_dev.hw_attrs / irdma_puda_create_rsrc sizes, scaled down). */
    public static final int CQP_ENTRIES = 2048;
    public static final int CCQ_ENTRIES = 64;
    /** user.h IRDMA_MAX_CEQ_ENTRIES and IRDMA_MAX_AEQ_ENTRIES: the event queues never exceed these. */
    static final int MAX_CEQ_ENTRIES = 262143;
    /** main.h IRDMA_FW_VER_DEFAULT: feature_info[IRDMA_FEATURE_FW_INFO] before the query answers. */
    static final long IRDMA_FW_VER_DEFAULT = 2;
    /** defs.h IRDMA_FEATURE_BUF_ALIGNMENT. */
    static final int IRDMA_FEATURE_BUF_ALIGNMENT = 0x10;
    static final int MAX_AEQ_ENTRIES = 524287;
    /** user.h IRDMA_MIN_AEQ_ENTRIES (hw_attrs.min_hw_aeq_size). */
    static final int MIN_AEQ_ENTRIES = 1;
    public static final int PUDA_SQ = 64;
    public static final int PUDA_RQ = 64;
    public static final int PUDA_BUF = 2048;

    /** What the driver hands up from the ILQ and the AEQ (the CM side of irdma_receive_ilq / irdma_process_aeq). */
    public interface Upcalls {
        /** An ILQ receive: the frame is valid only during the call; the buffer is reposted after it returns. */
        void ilqReceive(BytesStore<?, ?> store, long offset, int length);

        /** An AEQE for a QP (irdma_process_aeq): the AE code and the QP id. */
        void asyncEvent(int qpId, int aeCode);
    }

    /**
     * What the driver hands the verbs layer from the event queues (hw.c irdma_ceq_dpc / irdma_process_ceq for a
     * non-PUDA CQ, irdma_process_aeq for every AEQE). Called from the interrupt handler, never inside a CQP op.
     */
    public interface DeviceEvents {
        /** A CEQE named CQ {@code cqId} (one that is neither the CCQ nor a PUDA CQ). */
        void completionEvent(int cqId);

        /** An AEQE, decoded as irdma_sc_get_next_aeqe does; {@code ae} is reused after the call returns. */
        void asyncEvent(AsyncEvent ae);
    }

    private Mmio mmio;
    private final HostRam ram;
    private final SimScheduler scheduler;
    private final BytesStore<?, ?> store;
    private Upcalls upcalls = new Upcalls() {
        @Override
        public void ilqReceive(BytesStore<?, ?> s, long o, int l) {
        }

        @Override
        public void asyncEvent(int qpId, int aeCode) {
        }
    };

    // CQP SQ (ctrl.c irdma_sc_cqp_get_next_send_wqe_idx: polarity flips when the head wraps to 0).
    private long cqpSq;
    private int cqpHead;
    private boolean cqpPolarity;
    private int lastWqeIndex;
    private boolean up;
    // CCQ (CQ 0).
    private long ccqRing;
    private long ccqShadow;
    private int ccqHead;
    private boolean ccqPolarity = true;
    private boolean ccqLive;
    // CEQ 0 and AEQ rings.
    private long ceqRing;
    private int ceqEntries;
    private int ceqHead;
    private boolean ceqPolarity = true;
    private long aeqRing;
    /** A virtual AEQ's pages (hw.c irdma_create_virt_aeq), in ring order; null for a coherent ring. */
    private long[] aeqPages;
    private PbleResource.Allocation aeqPbl;
    private boolean virtualAeq;
    private PbleResource pbles;
    private int aeqEntries;
    /** {@link #withAeqEntries}: 0 for irdma's own sizing. */
    private int aeqEntriesChosen;
    private int aeqHead;
    private boolean aeqPolarity = true;
    // FPM.
    private final Map<HmcObjectType, Long> committedCount = new EnumMap<>(HmcObjectType.class);
    private final Map<HmcObjectType, Long> committedBase = new EnumMap<>(HmcObjectType.class);
    private final Map<HmcObjectType, Long> objectSize = new EnumMap<>(HmcObjectType.class);

    private Puda ilq;
    private Puda ieq;
    private DeviceEvents deviceEvents;
    private final AsyncEvent asyncEvent = new AsyncEvent();
    // hmc_info->sd_table and the PBLE object's backed chunk (hmcSetup, initPble)
    private HmcBacking hmc;
    private FpmSizing sizing;
    private long pbleBacked;
    private int lastCompletionMinor;
    /**
     * Completions polled for an op other than the one being waited for: an op posted while another waited (a timer
     * that ran during the wait). hw.c irdma_cqp_ce_handler hands each CCQ CQE to the request its scratch names,
     * whichever it is; these hold them, by WQE index, until that op's wait takes them.
     */
    private final boolean[] ccqDone = new boolean[CQP_ENTRIES];
    private final boolean[] ccqError = new boolean[CQP_ENTRIES];
    private final int[] ccqMajor = new int[CQP_ENTRIES];
    private final int[] ccqMinor = new int[CQP_ENTRIES];
    private final long[] ccqReturn = new long[CQP_ENTRIES];
    /**
     * cqp_request->callback_fcn of the requests posted without waiting ({@link #post}), by WQE index; null for a
     * waited op. hw.c irdma_complete_cqp_request calls it from the CCQ handler (irdma_cqp_ce_handler).
     */
    private final CqpCallback[] ccqCallback = new CqpCallback[CQP_ENTRIES];
    /** Completed requests whose callback has not run yet (polled during a waited op), a FIFO of WQE indexes. */
    private final int[] callbacksDue = new int[CQP_ENTRIES];
    private int callbacksDueHead;
    private int callbacksDueCount;
    private int cqpRequestsPending;
    private long cqpCallbacksRun;

    // Reused flyweights and field holders: nothing allocated per op or per frame.
    private final CqpCompletion completion = new CqpCompletion();
    private final CqOpFields cqf = new CqOpFields();
    private final EqOpFields eqf = new EqOpFields();
    private final QpOpFields qpf = new QpOpFields();
    private final QhashFields qhf = new QhashFields();
    private final Cqe cqe = new Cqe();
    private final Ceqe ceqe = new Ceqe();
    private final Aeqe aeqe = new Aeqe();
    private final RqWqe rqWqe = new RqWqe();
    private final SqWqe sqWqe = new SqWqe();
    private final CqeExtension ext = new CqeExtension();
    private final QpContext pudaContext = new QpContext();
    /** The frame rebuilt from an ILQ receive (one buffer, reused: the upcall must not keep it). */
    private final BytesStore<?, ?> rxFrame = BytesStore.wrap(new byte[PUDA_BUF + 18]);
    private long localMac;
    private long ilqRefused;
    private final SimTimer irqTimer;
    private final HwStatistics statistics;
    private boolean postIlqBuffers = true;
    private int featureCount;
    /** dev->feature_info[]: each feature entry the device reported, by type (IRDMA_MAX_FEATURES of them). */
    private final long[] featureInfo = new long[RdmaFeatureBuffer.MAX_FEATURES];
    // ws.c state: rf->allocated_ws_nodes, the three nodes of the tree (-1: none) and vsi->qos[0] (valid, qs_handle)
    private final BitSet wsNodeIds = new BitSet(IRDMA_MAX_WS_NODES);
    private int wsRoot = -1;
    private int wsVsiNode = -1;
    private int wsLeaf = -1;
    private boolean qosValid;
    private int qsHandle;
    // the per-connection ops' writers, made once (a capturing lambda per op would allocate)
    private final WqeWriter nopWriter;
    private final WqeWriter qhashWriter;
    private int opDepth;
    private boolean irqDeferred;
    private long opsPosted;
    private long ilqReceived;
    private long ieqReceived;
    private long ieqRefused;
    private long ilqSendsCompleted;
    /** The AH bitmap (rf->allocated_ahs) and the next index to try (rf->next_ah). */
    private final boolean[] ahInUse = new boolean[4096];
    private int nextAh;
    private final AhFields[] ahFields = new AhFields[4096];
    /** irdma_sc_ah.ah_info.ah_valid: the device took the create; only a valid AH is destroyed by a CQP op. */
    private final boolean[] ahValid = new boolean[4096];
    /** A create posted without waiting whose completion has not come yet, and its caller's callback. */
    private final AhCompletion[] ahPending = new AhCompletion[4096];
    /** Freed while its create was in flight: the completion destroys it (if valid) and frees the index. */
    private final boolean[] ahFreeOnCreate = new boolean[4096];
    /** Freed while not valid: the index stays taken in the bitmap, as irdma_puda_free_ah leaves it. */
    private final boolean[] ahLeaked = new boolean[4096];
    private long addressHandlesLeaked;
    private long interruptsHandled;
    /** The vectors raised since their handlers last ran, one bit each (vector 0: the AEQ's, 1: CEQ 0's). */
    private int vectorsRaised;
    private long aeqOverflows;
    // the CQP's lifetime (hw.c init_state for irdma_ctrl_deinit_hw) and its progress counters (ctrl.c)
    private boolean cqpCreated;
    private boolean ceqLive;
    private boolean aeqLive;
    private boolean ccqCreated;
    /** cqp->completed_ops: CCQ CQEs taken and register-polled completions seen. */
    private long cqpCompletedOps;
    /** cqp_request->info.cqp_cmd's name of each request posted without waiting, for its timeout. */
    private final String[] ccqName = new String[CQP_ENTRIES];
    /** A request posted without waiting is in {@link #callbacksDue} (completed, or failed by a timeout). */
    private final boolean[] ccqDue = new boolean[CQP_ENTRIES];
    /** A request in {@link #callbacksDue} that will not complete: its callback gets {@link #cqpFailure}. */
    private final boolean[] ccqFailed = new boolean[CQP_ENTRIES];
    private CqpException cqpFailure;
    /** The posted requests' progress check (struct irdma_cqp_timeout over them), every CQP_COMPL_WAIT_NANOS. */
    private final SimTimer cqpWatchdog;
    private long watchdogSeen;
    private int watchdogCount;
    /** rf->reset: a reset was requested; irdma_handle_cqp_op refuses every op from then on. */
    private boolean resetRequested;
    private long resetRequests;
    private long cqpTimeouts;
    private ResetRequest resetHook = cause -> { };
    private ResetCause resetCause;
    private long requestsDropped;

    /**
     * A driver for the device behind {@code mmio}. When the device must be built with this driver's
     * {@link #interruptSink()}, use {@link #IrdmaDriver(HostRam, SimScheduler)} and {@link #bind(Mmio)}.
     */
    public IrdmaDriver(Mmio mmio, HostRam ram, SimScheduler scheduler) {
        this(ram, scheduler);
        bind(mmio);
    }

    /** A driver not yet bound to its device's BAR (the device is built with {@link #interruptSink()} first). */
    public IrdmaDriver(HostRam ram, SimScheduler scheduler) {
        this.ram = ram;
        this.scheduler = scheduler;
        this.store = ram.store();
        this.nopWriter = (o, v) -> CqpWqeWriter.nop(store, o, v);
        this.qhashWriter = (o, v) -> CqpWqeWriter.manageQhash(store, o, qhf, v);
        this.irqTimer = scheduler.newTimer("irdma-driver-irq", this::handleInterrupt);
        this.cqpWatchdog = scheduler.newBackgroundTimer("irdma-cqp-progress", this::cqpWatchdogTick);
        this.statistics = new HwStatistics(this, ram);
    }

    /** Binds the driver to the device's BAR0 (once, before {@link #bringUp()}). */
    public IrdmaDriver bind(Mmio deviceBar) {
        if (this.mmio != null) {
            throw new IllegalStateException("driver already bound");
        }
        this.mmio = deviceBar;
        return this;
    }

    /** The host memory the driver allocates in, and the store its addresses resolve to. */
    public BytesStore<?, ?> store() {
        return store;
    }

    /** The store offset of a guest-physical address of {@link #ram()}. */
    public long offsetOf(long gpa) {
        return ram.offsetOf(gpa);
    }

    /**
     * Services the device as the interrupt handler would, for a device built without this driver's interrupt
     * sink (polling mode): both vectors' handlers run as if raised, draining the AEQ and CEQ 0 (each CEQE to its
     * CQ's handler, which re-arms that CQ) and re-enabling both vectors.
     */
    public void poll() {
        vectorsRaised |= 1 << AEQ_VECTOR | 1 << CEQ0_VECTOR;
        handleInterrupt();
    }

    /**
     * The sink to give the device: a raised vector schedules the driver's handler on the scheduler (the
     * tasklet irdma_dpc / irdma_ceq_dpc runs after the hard IRQ returns).
     */
    public InterruptSink interruptSink() {
        return vector -> {
            if (vector == AEQ_VECTOR || vector == CEQ0_VECTOR) {
                vectorsRaised |= 1 << vector;
            }
            if (!irqTimer.isPending()) {
                irqTimer.scheduleIn(0);
            }
        };
    }

    /** The port's MAC, the destination of the frames rebuilt from ILQ receives. */
    public IrdmaDriver macAddress(long mac) {
        this.localMac = mac;
        return this;
    }

    /** The port's MAC (the QP context's IRDMAQPC_MACADDRESS, verbs.c irdma_iw_fill_and_set_qpctx_info). */
    public long macAddress() {
        return localMac;
    }

    /** ILQ receives not handed up: an error CQE or a placed length the headers contradict (PudaLayout.check). */
    public long ilqRefused() {
        return ilqRefused;
    }

    public void attach(Upcalls upcalls) {
        this.upcalls = upcalls;
    }

    /** Where CEQ and AEQ events go (the verbs layer); one consumer. */
    public void attachEvents(DeviceEvents events) {
        this.deviceEvents = events;
    }

    /** The FPM base address of an HMC object type as Commit FPM placed it. */
    public long committedBase(HmcObjectType t) {
        return committedBase.getOrDefault(t, 0L);
    }

    /**
     * The guest-physical address backing FPM address {@code fpmAddress} (the page the PD entry names, plus the
     * offset in it), or -1 outside the HMC space the driver backed.
     */
    public long hmcAddress(long fpmAddress) {
        return hmc == null ? -1 : hmc.hostAddress(fpmAddress);
    }

    /**
     * PBLE indexes (from the PBLE object's base) that the chunks pble.c backed cover (the first one at bring-up, more
     * as the PBLE pool grows on demand): the verbs allocate PBLEs below this.
     */
    public long pbleBackedCount() {
        return pbleBacked;
    }

    /**
     * The PF's hardware statistics (Gather Stats). irdma starts their 60 s timer in irdma_vsi_stats_init; this
     * driver gathers on demand ({@link HwStatistics#gather()}) and runs the timer only once started
     * ({@link HwStatistics#startTimer()}).
     */
    public HwStatistics statistics() {
        return statistics;
    }

    /** The HMC sizing this driver committed (the port of irdma_cfg_fpm_val), null before bring-up. */
    public FpmSizing fpmSizing() {
        return sizing;
    }

    /** SDs of the HMC (sd_cnt), the direct ones among them and the host bytes behind them; -1 before bring-up. */
    public int hmcSdCount() {
        return hmc == null ? -1 : hmc.sdCount();
    }

    public boolean hmcSdDirect(int sd) {
        return hmc != null && hmc.sdDirect(sd);
    }

    public boolean hmcSdValid(int sd) {
        return hmc != null && hmc.sdValid(sd);
    }

    /** The host address a valid SD names (2 MiB page or PD page); -1 if not valid. */
    public long hmcSdAddress(int sd) {
        return hmc == null ? -1 : hmc.sdAddress(sd);
    }

    /** Host memory the HMC backing took (direct SDs, PBLE chunk, PD pages, the CQP's SD buffer). */
    public long hmcBytesAllocated() {
        return hmc == null ? 0 : hmc.bytesAllocated();
    }

    /** The CQP WQE index of the WQE at store offset {@code storeOffset} (for the per-WQE SD buffer slot). */
    int cqpWqeIndexAt(long storeOffset) {
        return (int) ((storeOffset - off(cqpSq)) / CqpWqe.SIZE);
    }

    public SimScheduler scheduler() {
        return scheduler;
    }

    public HostRam ram() {
        return ram;
    }

    public boolean isUp() {
        return up;
    }

    /**
     * irdma's remove path for what this driver created (icrdma_if.c icrdma_remove -> irdma_ib_unregister_device ->
     * irdma_rt_deinit_hw, then irdma_ctrl_deinit_hw), in its order:
     * <ol>
     * <li>hw.c irdma_rt_deinit_hw: the IEQ, then the ILQ (puda.c irdma_puda_dele_rsrc: Destroy QP, ws.c
     * irdma_ws_remove once the TC has no QP left: leaf, VSI node, root; then Destroy CQ), then ctrl.c
     * irdma_vsi_stats_free (the 60 s timer stopped; a PF has no stats instance to free, so no op);</li>
     * <li>hw.c irdma_ctrl_deinit_hw: irdma_destroy_aeq (PFINT_AEQCTL cleared, Destroy AEQ), the PBLE pool (host
     * memory only), irdma_del_ceq_0 (Destroy CEQ 0, its completion polled from the CCQ), irdma_destroy_ccq (Destroy
     * CQ 0, completion by PFPE_CQPTAIL), irdma_del_hmc_objects (per object type in iw_hmc_obj_types order: its PDs
     * invalidated, its SDs cleared by Update PE SDs, now register-polled), irdma_destroy_cqp (PFPE_CCQPHIGH/LOW
     * zeroed, PFPE_CCQPSTATUS polled until not done) and irdma_cleanup_pending_cqp_op (the requests still posted
     * without waiting are dropped: their callbacks never run).</li>
     * </ol>
     * After a reset request ({@link #resetRequested()}) no op is issued, as irdma skips them when rf->reset is set;
     * the register writes (PD invalidation, CQP destroy) still happen. A refused op is logged and the teardown goes
     * on, as irdma's does. The objects the CM and the verbs made (QPs, CQs, MRs, qhash entries, APBVT ports, AHs) are
     * theirs to destroy first, as the RDMA core does before irdma_ib_dealloc_device. Nothing of this driver stays
     * armed on the scheduler, and it answers no interrupt afterwards.
     */
    public void tearDown() {
        boolean reset = resetRequested;
        // from here on the handler does nothing (irdma has freed its IRQs by the time the queues go)
        up = false;
        irqTimer.cancel();
        if (ieq != null) {
            Puda p = ieq;
            ieq = null;
            deletePuda(p, reset, false);
        }
        if (ilq != null) {
            Puda p = ilq;
            ilq = null;
            deletePuda(p, reset, true);
        }
        statistics.stopTimer();
        if (aeqLive) {
            destroyAeq(reset);
        }
        if (ceqLive) {
            destroyCeq0(reset);
        }
        if (ccqCreated) {
            destroyCcq(reset);
        }
        if (hmc != null) {
            hmc.deleteObjects(reset);
        }
        if (cqpCreated) {
            destroyCqp();
        }
        dropPendingRequests();
        irqTimer.cancel();
        cqpWatchdog.cancel();
    }

    /**
     * The first step of a remove without the rest: the driver stops answering its vectors and stops its timers, and
     * leaves every queue it made on the device. A debugging and test aid (what a driver that lost its IRQs looks
     * like to the device); its CQP ops still work, completed by polling. {@link #tearDown()} is the whole remove.
     */
    public void stopAnsweringInterrupts() {
        up = false;
        irqTimer.cancel();
        statistics.stopTimer();
    }

    /** A teardown op: refused or timed out, it is logged and the teardown goes on (hw.c's ibdev_dbg "ERR: ..."). */
    private void teardownOp(String name, WqeWriter writer) {
        try {
            op(name, writer);
        } catch (CqpException e) {
            LOG.debug("teardown: {} failed: {}", name, e.getMessage());
        }
    }

    /**
     * puda.c irdma_puda_dele_rsrc for a created PUDA resource: irdma_qp_rem_qos, then (without a reset)
     * irdma_puda_free_qp, Destroy QP waited for (irdma_cqp_qp_destroy_cmd: remove_hash_idx set) followed by
     * dev->ws_remove for the QP's user priority, then irdma_puda_free_cq, Destroy CQ. ws.c irdma_ws_remove deletes
     * the tree only when no QP of the TC is left: after the IEQ the ILQ still holds it, so only {@code lastOfTc}
     * (the ILQ) removes it. irdma calls ws_remove inside irdma_puda_free_qp, so a reset skips it too.
     */
    private void deletePuda(Puda p, boolean reset, boolean lastOfTc) {
        if (reset) {
            return;
        }
        qpf.clear();
        qpf.qpId = p.qpId;
        qpf.qpType = QP_TYPE_UDA;
        qpf.hostContextAddress = p.hostContext;
        qpf.shadowAreaAddress = p.qpShadow;
        qpf.removeHashEntry = true;
        teardownOp("DESTROY_QP", (o, v) -> CqpWqeWriter.destroyQp(store, o, qpf, v));
        if (lastOfTc) {
            wsRemove();
        }
        cqf.clear();
        cqf.cqId = p.cqId;
        cqf.cqSize = p.cqSize;
        cqf.cqAddress = p.cqRing;
        cqf.shadowAreaAddress = p.cqShadow;
        cqf.ceqId = 0;
        cqf.ceqIdValid = true;
        cqf.checkOverflow = true;
        teardownOp("DESTROY_CQ", (o, v) -> CqpWqeWriter.destroyCq(store, o, cqf, v));
    }

    /**
     * hw.c irdma_destroy_aeq (vectors not shared): irdma_cfg_aeq disables PFINT_AEQCTL, the IRQ is freed, then
     * (without a reset) Destroy AEQ with the create's fields (ctrl.c irdma_sc_aeq_destroy), waited for.
     */
    private void destroyAeq(boolean reset) {
        write(Gen2Register.PFINT_AEQCTL, Gen2Registers.aeqCtl(false, AEQ_VECTOR));
        aeqLive = false;
        if (!reset) {
            eqf.clear();
            eqf.elementCount = aeqEntries;
            if (aeqPbl != null) {
                eqf.virtualMap = true;
                eqf.pblChunkSize = PbleLayout.CHUNK_LEVEL_1;
                eqf.firstPmPblIndex = aeqPbl.first;
            }
            teardownOp("DESTROY_AEQ", (o, v) -> CqpWqeWriter.destroyAeq(store, o, eqf, v));
        }
        aeqEntries = 0;
    }

    /**
     * hw.c irdma_del_ceq_0 (vectors not shared: only the IRQ is freed, GLINT_CEQCTL is left) -> irdma_destroy_ceq:
     * without a reset, ctrl.c irdma_sc_ceq_destroy posted and irdma_sc_cceq_destroy_done polling the CCQ for it.
     */
    private void destroyCeq0(boolean reset) {
        ceqLive = false;
        if (!reset) {
            eqf.clear();
            eqf.ceqId = 0;
            eqf.elementCount = ceqEntries;
            teardownOp("DESTROY_CEQ", (o, v) -> CqpWqeWriter.destroyCeq(store, o, eqf, v));
        }
        ceqEntries = 0;
    }

    /**
     * hw.c irdma_destroy_ccq: without a reset, ctrl.c irdma_sc_ccq_destroy, whose completion cannot come through
     * the CCQ being destroyed: it polls PFPE_CQPTAIL (irdma_cqp_poll_registers). The ops after it are register-polled
     * too (irdma_update_sds_noccq).
     */
    private void destroyCcq(boolean reset) {
        ccqLive = false;
        ccqCreated = false;
        if (!reset) {
            cqf.clear();
            cqf.cqId = CCQ_ID;
            cqf.cqSize = CCQ_ENTRIES;
            cqf.shadowAreaAddress = ccqShadow;
            cqf.ceqId = 0;
            cqf.ceqIdValid = true;
            teardownOp("DESTROY_CQ", (o, v) -> CqpWqeWriter.destroyCcq(store, o, cqf, v));
        }
    }

    /**
     * ctrl.c irdma_sc_cqp_destroy: PFPE_CCQPHIGH and PFPE_CCQPLOW zeroed, then PFPE_CCQPSTATUS polled until
     * CCQP_DONE clears (bounded; a timeout is only logged, as hw.c irdma_destroy_cqp does).
     */
    private void destroyCqp() {
        cqpCreated = false;
        write(Gen2Register.CCQPHIGH, 0);
        write(Gen2Register.CCQPLOW, 0);
        long limit = scheduler.now() + CQP_TIMEOUT_NANOS;
        while (Gen2Registers.ccqpDone(reg(Gen2Register.CCQPSTATUS))) {
            if (!scheduler.runNext() || scheduler.now() > limit) {
                LOG.debug("teardown: PFPE_CCQPSTATUS still done after the CQP destroy");
                return;
            }
        }
    }

    /**
     * utils.c irdma_cleanup_pending_cqp_op: the requests posted without waiting that never completed are freed
     * (irdma_free_pending_cqp_request completes only waiters; a callback_fcn is not called).
     */
    private void dropPendingRequests() {
        for (int i = 0; i < CQP_ENTRIES; i++) {
            if (ccqCallback[i] != null) {
                ccqCallback[i] = null;
                ccqDue[i] = false;
                ccqFailed[i] = false;
                requestsDropped++;
            }
        }
        callbacksDueCount = 0;
        cqpRequestsPending = 0;
    }

    /** Requests posted without waiting that a teardown freed without running their callbacks. */
    public long requestsDropped() {
        return requestsDropped;
    }

    public long committedCount(HmcObjectType t) {
        return committedCount.getOrDefault(t, 0L);
    }

    public long ilqReceived() {
        return ilqReceived;
    }

    /**
     * Exception segments of offloaded QPs the IEQ received (out of order, or ending inside an FPDU). The model's QP
     * reassembles them itself, so this layer accounts for them and reposts the buffer; it does not run irdma's
     * IEQ reassembly (puda.c irdma_ieq_process_fpdus).
     */
    public long ieqReceived() {
        return ieqReceived;
    }

    /** IEQ completions with an error or a layout that irdma_puda_get_tcpip_info would refuse. */
    public long ieqRefused() {
        return ieqRefused;
    }

    public long ilqSendsCompleted() {
        return ilqSendsCompleted;
    }

    /** CQP ops posted since the CQP was created. */
    public long opsPosted() {
        return opsPosted;
    }

    public long interruptsHandled() {
        return interruptsHandled;
    }

    private int reg(Gen2Register r) {
        return mmio.read32(r.offset());
    }

    private void write(Gen2Register r, int v) {
        mmio.write32(r.offset(), v);
    }

    private void write(Gen2Register r, int index, int v) {
        mmio.write32(r.at(index), v);
    }

    private long off(long gpa) {
        return ram.offsetOf(gpa);
    }

    // ------------------------------------------------------------------ bring-up

    /**
     * The whole probe in irdma.ko 7.3's gen2 order: hw.c irdma_ctrl_init_hw (CQP, Query RDMA features, HMC with
     * Static HMC pages allocated, CCQ, CEQ 0, AEQ) then irdma_rt_init_hw (ILQ with the work-scheduler tree, IEQ).
     */
    public void bringUp() {
        waitPeReady();
        createCqp();
        // hw.c irdma_ctrl_init_hw (gen2): the feature query right after the CQP, still by register poll
        queryRdmaFeatures();
        hmcSetup();
        createCcq();
        setupCeq0();
        // hw.c irdma_ctrl_init_hw: the CCQ is armed once CEQ 0 exists; its completions then raise CEQEs
        armCq(CCQ_ID, ccqShadow);
        // hw.c irdma_ctrl_init_hw: the PBLE object's first chunk after the CEQs, before the AEQ
        initPble();
        initPbles();
        setupAeq();
        // hw.c irdma_rt_init_hw: ctrl.c irdma_vsi_stats_init after the VSI, before the ILQ: the stats buffer and
        // (gen2) the 60 s timer whose Gather Stats is posted without waiting (utils.c irdma_hw_stats_timeout)
        statistics.startTimer();
        ilq = createPuda(ILQ_QP);
        ieq = createPuda(IEQ_QP);
        armCq(ilq.cqId, ilq.cqShadow);
        armCq(ieq.cqId, ieq.cqShadow);
        up = true;
        // anything that arrived during the bring-up is looked at now
        irqTimer.scheduleIn(0);
        LOG.debug("irdma driver up: {} CQP ops", opsPosted);
    }

    /** ctrl.c irdma_wait_pe_ready: GLPE_CPUSTATUS0..2 must read 0x80, polled with a bound. */
    private void waitPeReady() {
        long limit = scheduler.now() + CQP_TIMEOUT_NANOS;
        while (!(reg(Gen2Register.GLPE_CPUSTATUS0) == Gen2Registers.CPUSTATUS_READY
                && reg(Gen2Register.GLPE_CPUSTATUS1) == Gen2Registers.CPUSTATUS_READY
                && reg(Gen2Register.GLPE_CPUSTATUS2) == Gen2Registers.CPUSTATUS_READY)) {
            if (!scheduler.runNext() || scheduler.now() > limit) {
                throw new CqpException(CqpException.Kind.PE_NOT_READY, "wait_pe_ready", 0, 0);
            }
        }
    }

    /** hw.c irdma_create_cqp + ctrl.c irdma_sc_cqp_init / irdma_sc_cqp_create: host context, SQ, CCQPHIGH/LOW. */
    private void createCqp() {
        cqpSq = ram.allocate((long) CQP_ENTRIES * CqpWqe.SIZE);
        long ctx = ram.allocate(CqpHostContext.SIZE);
        CqpHostContext.Fields f = new CqpHostContext.Fields();
        f.sqEntries = CQP_ENTRIES;
        f.sqBase = cqpSq;
        f.hmcProfile = 1;
        f.protocolUsed = 1; // iWARP
        f.hwMajorVersion = CqpHostContext.HW_MAJVER_GEN_2;
        f.completionContext = CQP_COMPLETION_CONTEXT;
        CqpHostContext.write(store, off(ctx), f);
        cqpHead = 0;
        cqpPolarity = false;
        write(Gen2Register.CQPTAIL, 0);
        write(Gen2Register.CQPDB, 0);
        write(Gen2Register.CCQPSTATUS, 0);
        write(Gen2Register.CCQPHIGH, (int) (ctx >>> 32));
        write(Gen2Register.CCQPLOW, (int) ctx);
        long limit = scheduler.now() + CQP_TIMEOUT_NANOS;
        int status;
        while (!Gen2Registers.ccqpDone(status = reg(Gen2Register.CCQPSTATUS))) {
            if (!scheduler.runNext() || scheduler.now() > limit) {
                throw new CqpException(CqpException.Kind.CQP_CREATE_FAILED, "cqp_create", 0, 0);
            }
        }
        if (Gen2Registers.ccqpError(status)) {
            int codes = reg(Gen2Register.CQPERRCODES);
            throw new CqpException(CqpException.Kind.CQP_CREATE_FAILED, "cqp_create",
                    Gen2Registers.cqpErrMajor(codes), Gen2Registers.cqpErrMinor(codes));
        }
        cqpCreated = true;
    }

    /**
     * ctrl.c irdma_get_rdma_features (gen2, between irdma_create_cqp and irdma_hmc_setup): query into a 272-byte
     * buffer; when the device reports more than IRDMA_MAX_FEATURES entries, query again into ALIGN(8 x count, 16)
     * bytes. Fewer than two entries is an error. Each entry whose type is below IRDMA_MAX_FEATURES is kept whole in
     * {@link #featureInfo(int)}, as dev->feature_info[type]; FW_INFO starts as IRDMA_FW_VER_DEFAULT.
     */
    public void queryRdmaFeatures() {
        Arrays.fill(featureInfo, 0);
        featureInfo[RdmaFeatureBuffer.FEATURE_FW_INFO] = IRDMA_FW_VER_DEFAULT;
        long buf = ram.allocate(RdmaFeatureBuffer.DRIVER_BUFFER_SIZE);
        op("QUERY_RDMA_FEATURES", (o, v) -> CqpWqeWriter.queryRdmaFeatures(store, o, buf,
                RdmaFeatureBuffer.DRIVER_BUFFER_SIZE, v));
        RdmaFeatureBuffer f = new RdmaFeatureBuffer().wrap(store, off(buf), RdmaFeatureBuffer.DRIVER_BUFFER_SIZE);
        int count = f.count();
        if (count >= 2 && count > RdmaFeatureBuffer.MAX_FEATURES) {
            int size = (8 * count + IRDMA_FEATURE_BUF_ALIGNMENT - 1) & -IRDMA_FEATURE_BUF_ALIGNMENT;
            long big = ram.allocate(size);
            op("QUERY_RDMA_FEATURES", (o, v) -> CqpWqeWriter.queryRdmaFeatures(store, o, big, size, v));
            f.wrap(store, off(big), size);
            count = f.count();
        }
        if (count < 2) {
            throw new CqpException(CqpException.Kind.BAD_FEATURES, "QUERY_RDMA_FEATURES", 0, 0);
        }
        for (int i = 0; i < Math.min(count, RdmaFeatureBuffer.MAX_FEATURES); i++) {
            int type = f.type(i);
            if (type < RdmaFeatureBuffer.MAX_FEATURES) {
                featureInfo[type] = f.entry(i);
            }
        }
        featureCount = count;
    }

    /** Feature entries the device reported (irdma_get_rdma_features' feature_cnt). */
    public int featureCount() {
        return featureCount;
    }

    /** dev->feature_info[type]: the whole entry the device reported for {@code type}, 0 if none. */
    public long featureInfo(int type) {
        return featureInfo[type];
    }

    /** verbs.h irdma_fw_major_ver: IRDMA_FW_VER_MAJOR of the FW_INFO entry. */
    public int fwMajorVersion() {
        return (int) Bits.get(featureInfo[RdmaFeatureBuffer.FEATURE_FW_INFO],
                RdmaFeatureBuffer.FW_VER_MAJOR);
    }

    /** verbs.h irdma_fw_minor_ver: IRDMA_FW_VER_MINOR of the FW_INFO entry. */
    public int fwMinorVersion() {
        return (int) Bits.get(featureInfo[RdmaFeatureBuffer.FEATURE_FW_INFO],
                RdmaFeatureBuffer.FW_VER_MINOR);
    }

    /** dev->feature_info[IRDMA_FTN_FLAGS]: the function's feature flags (0 when the device sent none). */
    public long featureFlags() {
        return featureInfo[RdmaFeatureBuffer.FTN_FLAGS];
    }

    /** IRDMA_FEATURE_ATOMIC_OPS: set when FTN_FLAGS carries IRDMA_ATOMICS_ALLOWED_BIT. */
    public boolean atomicsAllowed() {
        return (featureFlags() & RdmaFeatureBuffer.FLAG_ATOMICS_ALLOWED) != 0;
    }

    /**
     * hw.c irdma_hmc_setup: Query FPM values, size as ctrl.c irdma_cfg_fpm_val does ({@link FpmSizing}), Commit FPM
     * values, then irdma_create_hmc_objs: direct SDs for every object but PBLE ({@link HmcBacking}) and Static HMC
     * pages allocated.
     */
    private void hmcSetup() {
        long q = ram.allocate(FpmQueryBuffer.SIZE);
        op("QUERY_FPM_VAL", (o, v) -> CqpWqeWriter.queryFpm(store, o, HMC_FN_ID, q, v));
        FpmQueryBuffer query = new FpmQueryBuffer().wrap(store, off(q));
        sizing = FpmSizing.gen2(query);
        if (!sizing.ok()) {
            LOG.warn("HMC sizing refused the Query FPM answer: {} ({})", sizing.outcome(), sizing.check().describe());
            throw new CqpException(CqpException.Kind.BAD_FPM, "QUERY_FPM_VAL", 0, 0);
        }
        long b = ram.allocate(FpmCommitBuffer.SIZE);
        long[] sizes = new long[HmcObjectType.values().length];
        for (HmcObjectType t : HmcObjectType.values()) {
            FpmCommitBuffer.writeRequest(store, off(b), t, sizing.commitCount(t));
            sizes[t.ordinal()] = sizing.objectSize(t);
            objectSize.put(t, sizes[t.ordinal()]);
        }
        op("COMMIT_FPM_VAL", (o, v) -> CqpWqeWriter.commitFpm(store, o, HMC_FN_ID, b, false, v));
        FpmCommitBuffer cb = new FpmCommitBuffer().wrap(store, off(b));
        for (HmcObjectType t : HmcObjectType.values()) {
            committedCount.put(t, cb.committedCount(t));
            committedBase.put(t, cb.base(t));
        }
        int sdCount = HmcBacking.sdCountOf(cb, sizes);
        if (sdCount > sizing.maxSds()) {
            // not a kernel check (irdma backs whatever sd_cnt the commit answer implies): this driver backs no more
            // SDs than the query offered, so a device answer cannot make it allocate without bound
            LOG.warn("Commit FPM placed the objects over {} SDs, max_pe_sds is {}", sdCount, sizing.maxSds());
            throw new CqpException(CqpException.Kind.BAD_FPM, "COMMIT_FPM_VAL", 0, 0);
        }
        hmc = new HmcBacking(this, ram, sdCount, v -> write(Gen2Register.PFHMC_PDINV, v));
        for (HmcObjectType t : HmcObjectType.values()) {
            hmc.recordObject(t, cb.base(t), cb.committedCount(t), sizes[t.ordinal()]);
        }
        for (HmcObjectType t : HmcBacking.CREATE_ORDER) {
            if (t != HmcObjectType.PBLE) {
                hmc.createObject(t, cb.base(t), cb.committedCount(t), sizes[t.ordinal()]);
            }
        }
        // hw.c irdma_create_hmc_objs: once every object type has its SDs, tell the device the pages are there
        op("SHMC_PAGES_ALLOCATED", (o, v) -> CqpWqeWriter.staticHmcPagesAllocated(store, o, HMC_FN_ID, v));
        LOG.debug("HMC: {}, {} direct SDs, {} bytes", sizing, hmc.directSds(), hmc.bytesAllocated());
    }

    /** pble.c irdma_hmc_init_pble: back the PBLE object's first chunk. */
    private void initPble() {
        pbleBacked = hmc.initPble(committedBase(HmcObjectType.PBLE), committedCount(HmcObjectType.PBLE));
    }

    /** hw.c irdma_create_ccq: CQ 0 on CEQ 0; its own completion is the first one read from it. */
    private void createCcq() {
        ccqRing = ram.allocate((long) CCQ_ENTRIES * Cqe.SIZE);
        ccqShadow = ram.allocate(64);
        ccqHead = 0;
        ccqPolarity = true;
        cqf.clear();
        cqf.cqId = CCQ_ID;
        cqf.cqSize = CCQ_ENTRIES;
        cqf.cqAddress = ccqRing;
        cqf.shadowAreaAddress = ccqShadow;
        cqf.ceqId = 0;
        cqf.ceqIdValid = true;
        cqf.checkOverflow = true;
        cqf.shadowReadThreshold = 16;
        ccqLive = true;
        try {
            op("CREATE_CQ", (o, v) -> CqpWqeWriter.createCq(store, o, cqf, v));
        } catch (CqpException e) {
            ccqLive = false;
            throw e;
        }
        ccqCreated = true;
    }

    /** hw.c irdma_setup_ceq_0 / icrdma_cfg_ceq (route to the vector) / irdma_ena_intr, then Create CEQ. */
    private void setupCeq0() {
        write(Gen2Register.GLINT_CEQCTL, 0, Gen2Registers.ceqCtl(true, CEQ0_VECTOR));
        write(Gen2Register.GLINT_DYN_CTL, CEQ0_VECTOR, Gen2Registers.dynCtlEnable(0));
        // hw.c irdma_create_ceq: one entry per committed CQ, at most the hardware's maximum
        ceqEntries = (int) Math.min(committedCount(HmcObjectType.CQ), MAX_CEQ_ENTRIES);
        ceqRing = ram.allocate((long) ceqEntries * Ceqe.SIZE);
        eqf.clear();
        eqf.ceqId = 0;
        eqf.elementCount = ceqEntries;
        eqf.address = ceqRing;
        op("CREATE_CEQ", (o, v) -> CqpWqeWriter.createCeq(store, o, eqf, v));
        ceqLive = true;
    }

    /**
     * pble.c irdma_hmc_init_pble, which hw.c irdma_ctrl_init_hw runs after CEQ 0 and before the AEQ: the PBLE
     * resource over the committed PBLE object (its backing is already in place, see {@link #hmcSetup()}).
     */
    private void initPbles() {
        pbles = new PbleResource(store, fpm -> {
            long pa = hmcAddress(fpm);
            return pa < 0 ? -1 : ram.offsetOf(pa);
        }, committedBase(HmcObjectType.PBLE), pbleBacked, this::addPbleChunk);
    }

    /** pble.c add_pble_prm, asked for by the PBLE pool when a request finds no room: the next chunk backed. */
    private long addPbleChunk() {
        long end = hmc.addPbleChunk();
        if (end > pbleBacked) {
            pbleBacked = end;
        }
        return end;
    }

    /** The function's PBLE resource (rf-&gt;pble_rsrc), once brought up: the verbs register memory through it. */
    public PbleResource pbles() {
        return pbles;
    }

    /**
     * An AEQ of {@code entries} instead of irdma's size (before {@link #bringUp()}): a debugging and test aid, to see
     * what an overflowing AEQ does. hw.c irdma_create_aeq sizes it from the committed QPs and CQs; ctrl.c
     * irdma_sc_aeq_init takes any count from IRDMA_MIN_AEQ_ENTRIES (1) to IRDMA_MAX_AEQ_ENTRIES (user.h).
     *
     * @throws IllegalArgumentException outside those bounds
     */
    public IrdmaDriver withAeqEntries(int entries) {
        if (entries < MIN_AEQ_ENTRIES || entries > MAX_AEQ_ENTRIES) {
            throw new IllegalArgumentException("AEQ of " + entries + " entries: irdma_sc_aeq_init takes "
                    + MIN_AEQ_ENTRIES + ".." + MAX_AEQ_ENTRIES);
        }
        aeqEntriesChosen = entries;
        return this;
    }

    /** The AEQ's size in entries, once brought up. */
    public int aeqEntries() {
        return aeqEntries;
    }

    /**
     * Create the AEQ as hw.c irdma_create_aeq does when the coherent allocation fails (before {@link #bringUp()}):
     * on single pages, through a level-1 PBL (irdma_create_virt_aeq), Create AEQ with VMAP and chunk size 1.
     */
    public IrdmaDriver withVirtualAeq() {
        virtualAeq = true;
        return this;
    }

    /** The AEQ is PBL-mapped; its first PBLE index, or -1. */
    public int aeqFirstPbleIndex() {
        return aeqPbl == null ? -1 : aeqPbl.first;
    }

    private long aeqeAddress(int index) {
        long offset = (long) index * Aeqe.SIZE;
        return aeqPages == null ? aeqRing + offset
                : aeqPages[(int) (offset / HostRam.PAGE_SIZE)] + offset % HostRam.PAGE_SIZE;
    }

    /** hw.c irdma_setup_aeq / ctrl.c irdma_cfg_aeq (PFINT_AEQCTL), arm the vector, then Create AEQ. */
    private void setupAeq() {
        write(Gen2Register.PFINT_AEQCTL, Gen2Registers.aeqCtl(true, AEQ_VECTOR));
        write(Gen2Register.GLINT_DYN_CTL, AEQ_VECTOR, Gen2Registers.dynCtlEnable(0));
        // hw.c irdma_create_aeq: two entries per committed QP for iWARP and one per CQ, at most the hardware's
        // maximum (a burst of connections each raising LLP_CONNECTION_ESTABLISHED must not overflow it)
        aeqEntries = aeqEntriesChosen > 0 ? aeqEntriesChosen
                : (int) Math.min(2 * committedCount(HmcObjectType.QP) + committedCount(HmcObjectType.CQ),
                        MAX_AEQ_ENTRIES);
        eqf.clear();
        eqf.elementCount = aeqEntries;
        if (virtualAeq) {
            // hw.c irdma_create_virt_aeq: vmalloc'd pages (single pages, not contiguous), a level-1 PBL of them
            int n = (int) (((long) aeqEntries * Aeqe.SIZE + HostRam.PAGE_SIZE - 1) / HostRam.PAGE_SIZE);
            aeqPages = new long[n];
            for (int i = 0; i < n; i++) {
                aeqPages[n - 1 - i] = ram.allocate(HostRam.PAGE_SIZE);
            }
            aeqPbl = pbles.allocate(n, false);
            if (aeqPbl == null) {
                throw new IllegalStateException("no PBLEs for a virtual AEQ of " + n + " pages");
            }
            for (int i = 0; i < n; i++) {
                pbles.writePage(aeqPbl, i, aeqPages[i]);
            }
            eqf.virtualMap = true;
            eqf.pblChunkSize = PbleLayout.CHUNK_LEVEL_1;
            eqf.firstPmPblIndex = aeqPbl.first;
        } else {
            aeqRing = ram.allocate((long) aeqEntries * Aeqe.SIZE);
            eqf.address = aeqRing;
        }
        op("CREATE_AEQ", (o, v) -> CqpWqeWriter.createAeq(store, o, eqf, v));
        aeqLive = true;
    }

    /** A PUDA QP (ILQ or IEQ) as the driver tracks it (puda.c struct irdma_puda_rsrc). */
    static final class Puda {
        int qpId;
        int cqId;
        long sq;
        long rq;
        long cqRing;
        long cqShadow;
        int cqSize;
        /** The QP's host context and shadow area (irdma_sc_qp.hw_host_ctx_pa, shadow_area_pa) for its destroy. */
        long hostContext;
        long qpShadow;
        int cqHead;
        boolean cqPolarity = true;
        long[] rxBuffers;
        long[] txBuffers;
        boolean[] txBusy;
        int sqHead;
        boolean sqPolarity = true;
    }

    /**
     * puda.c irdma_puda_create_rsrc: the CQ (irdma_puda_cq_create), the UDA QP with its SQ/RQ rings
     * (irdma_puda_qp_create / irdma_puda_qp_setctx) and the posted receive buffers (irdma_puda_replenish_rq).
     */
    private Puda createPuda(int qpId) {
        Puda p = new Puda();
        p.qpId = qpId;
        p.cqId = qpId;
        p.cqSize = 2 * (PUDA_SQ + PUDA_RQ);
        p.cqRing = ram.allocate((long) p.cqSize * Cqe.SIZE);
        p.cqShadow = ram.allocate(64);
        cqf.clear();
        cqf.cqId = p.cqId;
        cqf.cqSize = p.cqSize;
        cqf.cqAddress = p.cqRing;
        cqf.shadowAreaAddress = p.cqShadow;
        cqf.ceqId = 0;
        cqf.ceqIdValid = true;
        cqf.checkOverflow = true;
        cqf.shadowReadThreshold = 16;
        op("CREATE_CQ", (o, v) -> CqpWqeWriter.createCq(store, o, cqf, v));
        long qpMem = ram.allocate((long) (PUDA_SQ + PUDA_RQ) * 32);
        p.sq = qpMem;
        p.rq = qpMem + (long) PUDA_SQ * 32;
        p.rxBuffers = new long[PUDA_RQ];
        for (int i = 0; i < PUDA_RQ; i++) {
            p.rxBuffers[i] = ram.allocate(PUDA_BUF);
            if (qpId != ILQ_QP || postIlqBuffers) {
                rqWqe.wrap(store, off(p.rq + i * (long) RqWqe.MIN_SIZE), RqWqe.MIN_SIZE)
                        .writePuda(p.rxBuffers[i], PUDA_BUF, true);
            }
        }
        p.txBuffers = new long[PUDA_SQ];
        p.txBusy = new boolean[PUDA_SQ];
        for (int i = 0; i < PUDA_SQ; i++) {
            p.txBuffers[i] = ram.allocate(PUDA_BUF);
        }
        // puda.c irdma_puda_qp_create: the WS tree for the QP's user priority first (ws.c irdma_ws_add; a no-op
        // for the IEQ, UP 0 is valid by then), then irdma_qp_add_qos picks up its qs_handle and
        // irdma_puda_qp_setctx writes the context.
        wsAdd(PUDA_USER_PRI);
        int rqEnc = Integer.numberOfTrailingZeros(PUDA_RQ) - 2;
        int sqEnc = Integer.numberOfTrailingZeros(PUDA_SQ) - 2;
        long ctx = ram.allocate(QpContext.SIZE);
        var res = new QpResources(0, false, false, false, false, QpResources.NO_PUSH_PAGE, p.sq, p.rq, rqEnc, sqEnc,
                0, 0, 0, qsHandle, 0);
        // stats_idx / stats_idx_valid: hw.c irdma_initialize_ilq / _ieq leave them 0
        pudaContext.wrap(store, off(ctx), QpContext.SIZE).writePuda(res, PUDA_BUF, p.cqId, 0, false,
                PUDA_COMPLETION_CONTEXT + qpId);
        qpf.clear();
        qpf.qpId = qpId;
        qpf.qpType = QP_TYPE_UDA;
        qpf.hostContextAddress = ctx;
        qpf.shadowAreaAddress = ram.allocate(64);
        p.hostContext = ctx;
        p.qpShadow = qpf.shadowAreaAddress;
        qpf.cqNumValid = true;
        qpf.nextIwarpState = PUDA_NEXT_STATE;
        op("CREATE_QP", (ow, v) -> CqpWqeWriter.createQp(store, ow, qpf, v));
        return p;
    }

    // ------------------------------------------------------------------ work scheduler (ws.c)

    /**
     * ws.c irdma_ws_add for user priority {@code userPri}: nothing when vsi->qos[up] is already valid; otherwise
     * add the root (node 0, its own parent, enabled) if there is none, a node for the VSI under it if there is none,
     * then the TC leaf (disabled; the device answers its qs_handle in op_ret_val) and enable it. A failed step
     * deletes the nodes this call added, leaf first, as irdma_ws_add's error path does.
     */
    private void wsAdd(int userPri) {
        if (qosValid) {
            return;
        }
        boolean rootAdded = false;
        boolean vsiAdded = false;
        try {
            if (wsRoot < 0) {
                wsNodeCmd(CqpWqe.WS_NODE_OP_ADD, WS_ROOT_NODE, WS_ROOT_NODE, false, true, 0, 1);
                wsRoot = WS_ROOT_NODE;
                rootAdded = true;
            }
            if (wsVsiNode < 0) {
                int id = allocWsNodeId();
                try {
                    wsNodeCmd(CqpWqe.WS_NODE_OP_ADD, id, wsRoot, false, true, 0, 1);
                } catch (CqpException e) {
                    wsNodeIds.clear(id);
                    throw e;
                }
                wsVsiNode = id;
                vsiAdded = true;
            }
            if (wsLeaf < 0) {
                int id = allocWsNodeId();
                int weight = Math.max(TC0_REL_BW, 1);
                long qs;
                try {
                    qs = wsNodeCmd(CqpWqe.WS_NODE_OP_ADD, id, wsVsiNode, true, false, UP0_TRAFFIC_CLASS, weight);
                } catch (CqpException e) {
                    wsNodeIds.clear(id);
                    throw e;
                }
                wsLeaf = id;
                qsHandle = (int) qs;
                // Here irdma calls vsi->register_qset (ice_add_rdma_qset: AQ 0x0C33 adds the LAN Tx qset whose id is
                // this qs_handle). The ice side is not part of this emulator, so nothing happens between the add and
                // the enable; a model of ice's admin queue would be driven from here.
                try {
                    wsNodeCmd(CqpWqe.WS_NODE_OP_MODIFY, id, wsVsiNode, true, true, UP0_TRAFFIC_CLASS, weight);
                } catch (CqpException e) {
                    wsDeleteQuietly(wsLeaf);
                    wsNodeIds.clear(wsLeaf);
                    wsLeaf = -1;
                    throw e;
                }
            }
        } catch (CqpException e) {
            if (vsiAdded) {
                wsDeleteQuietly(wsVsiNode);
                wsNodeIds.clear(wsVsiNode);
                wsVsiNode = -1;
            }
            if (rootAdded) {
                wsDeleteQuietly(wsRoot);
                wsRoot = -1;
            }
            throw e;
        }
        // every user priority of this TC (all of them, without DCB) now uses the leaf's qs_handle
        qosValid = true;
    }

    /**
     * ws.c irdma_ws_remove / irdma_remove_leaf for the TC of user priority 0: delete the leaf (and, in irdma, the
     * ice qset), then the VSI node once it has no children, then the root once it has none. Nothing when there is
     * no leaf. irdma runs it when the last QP of the TC goes (puda.c irdma_puda_free_qp for the PUDA QPs).
     */
    public void wsRemove() {
        qosValid = false;
        if (wsRoot < 0 || wsVsiNode < 0 || wsLeaf < 0) {
            return;
        }
        wsDeleteQuietly(wsLeaf);
        wsNodeIds.clear(wsLeaf);
        wsLeaf = -1;
        wsDeleteQuietly(wsVsiNode);
        wsNodeIds.clear(wsVsiNode);
        wsVsiNode = -1;
        wsDeleteQuietly(wsRoot);
        wsRoot = -1;
    }

    /** vsi->qos[0].qs_handle: the leaf's qs_handle the device answered (0 before the tree exists). */
    public int qsHandle() {
        return qsHandle;
    }

    /** The WS node ids this driver holds: root, VSI node, leaf (-1 where there is none). */
    public int[] wsNodes() {
        return new int[] {wsRoot, wsVsiNode, wsLeaf};
    }

    /** utils.c irdma_alloc_ws_node_id: the lowest free id from 1 (bit 0 is the root's). */
    private int allocWsNodeId() {
        wsNodeIds.set(WS_ROOT_NODE);
        int id = wsNodeIds.nextClearBit(1);
        if (id >= IRDMA_MAX_WS_NODES) {
            throw new CqpException(CqpException.Kind.OP_ERROR, "WORK_SCHED_NODE", 0, 0);
        }
        wsNodeIds.set(id);
        return id;
    }

    /**
     * ws.c irdma_ws_cqp_cmd -> utils.c irdma_cqp_ws_node_cmd -> ctrl.c irdma_sc_manage_ws_node: every node carries
     * the VSI, IRDMA_PRIO_WEIGHTED_RR and its weight (rel_bw); answers op_ret_val (a leaf add's qs_handle).
     */
    private long wsNodeCmd(int nodeOp, int nodeId, int parentId, boolean leaf, boolean enable, int tc, int weight) {
        return op("WORK_SCHED_NODE", (o, v) -> CqpWqeWriter.workSchedNode(store, o, nodeOp, nodeId, parentId, leaf,
                enable, IRDMA_PRIO_WEIGHTED_RR, tc, VSI_NUM, weight, v));
    }

    private void wsDeleteQuietly(int nodeId) {
        int parent = nodeId == wsRoot ? wsRoot : nodeId == wsVsiNode ? wsRoot : wsVsiNode;
        boolean leaf = nodeId == wsLeaf;
        try {
            wsNodeCmd(CqpWqe.WS_NODE_OP_DELETE, nodeId, parent, leaf, true, leaf ? UP0_TRAFFIC_CLASS : 0,
                    leaf ? Math.max(TC0_REL_BW, 1) : 1);
        } catch (CqpException e) {
            LOG.debug("WS node {} delete refused: {}", nodeId, e.getMessage());
        }
    }

    // ------------------------------------------------------------------ CM-facing ops

    /** cm.c irdma_manage_apbvt (utils.c irdma_cqp_manage_apbvt_cmd): mark or unmark a local TCP port. */
    public void manageApbvt(int port, boolean add) {
        op("MANAGE_APBVT", (o, v) -> CqpWqeWriter.manageApbvt(store, o, port, add, v));
    }

    /**
     * cm.c irdma_manage_qhash: an IPv4 or IPv6 entry (address words most significant first), listen when
     * {@code established} is false (local address and port only), steering to {@code qpn} (1 = the ILQ).
     */
    public void manageQhash(boolean add, boolean ipv4, int[] local, int localPort, int[] remote, int remotePort,
                            boolean established, int vlan, long mac, int qpn) {
        manageQhash(add ? CqpWqe.QHASH_MANAGE_ADD : CqpWqe.QHASH_MANAGE_DELETE, ipv4, local, localPort, remote,
                remotePort, established, vlan, mac, qpn);
    }

    /** The same with an explicit manage code (CqpWqe.QHASH_MANAGE_ADD / _MODIFY / _DELETE). */
    public void manageQhash(int manage, boolean ipv4, int[] local, int localPort, int[] remote, int remotePort,
                            boolean established, int vlan, long mac, int qpn) {
        qhashFields(manage, ipv4, local, localPort, remote, remotePort, established, vlan, mac, qpn);
        op("MANAGE_QUAD_HASH_TABLE_ENTRY", qhashWriter);
    }

    /**
     * hw.c irdma_manage_qhash with wait = false and a cm_node (cm.c irdma_add_conn_est_qh, called from the passive
     * side's AH callback): the same WQE, posted without waiting; {@code done} runs from its completion (hw.c
     * irdma_send_syn_cqp_callback). Answers the WQE index.
     *
     * @throws CqpException when nothing could be posted (a reset was requested: irdma_handle_cqp_op's -EBUSY)
     */
    public int postManageQhash(int manage, boolean ipv4, int[] local, int localPort, int[] remote, int remotePort,
                               boolean established, int vlan, long mac, int qpn, CqpCallback done) {
        qhashFields(manage, ipv4, local, localPort, remote, remotePort, established, vlan, mac, qpn);
        return post("MANAGE_QUAD_HASH_TABLE_ENTRY", qhashWriter, done);
    }

    /** ctrl.c irdma_sc_manage_qhash_table_entry's fields (struct irdma_qhash_table_info) into {@link #qhf}. */
    private void qhashFields(int manage, boolean ipv4, int[] local, int localPort, int[] remote, int remotePort,
                             boolean established, int vlan, long mac, int qpn) {
        qhf.clear();
        qhf.ipv4 = ipv4;
        System.arraycopy(local, 0, qhf.destIp, 0, ipv4 ? 1 : 4);
        qhf.destPort = localPort;
        qhf.entryType = established ? CqpWqe.QHASH_TYPE_TCP_ESTABLISHED : CqpWqe.QHASH_TYPE_TCP_SYN;
        if (established) {
            System.arraycopy(remote, 0, qhf.srcIp, 0, ipv4 ? 1 : 4);
            qhf.srcPort = remotePort;
        }
        qhf.vlanValid = vlan >= 0;
        qhf.vlanId = Math.max(vlan, 0);
        qhf.qpNumber = qpn;
        // ctrl.c irdma_sc_manage_qhash_table_entry: IRDMA_CQPSQ_QHASH_QS_HANDLE = vsi->qos[user_pri].qs_handle
        qhf.qsHandle = qsHandle;
        qhf.manage = manage;
        qhf.mac = mac;
    }

    /** utils.c irdma_manage_arp_cache: add (valid, {@code mac}) or delete the ARP cache entry {@code index}. */
    public void manageArp(int index, long mac, boolean add) {
        if (add) {
            op("MANAGE_ARP", (o, v) -> CqpWqeWriter.addArpEntry(store, o, index, 0, mac, true, v));
        } else {
            op("MANAGE_ARP", (o, v) -> CqpWqeWriter.deleteArpEntry(store, o, index, v));
        }
    }

    /**
     * verbs.c irdma_create_cq / ctrl.c irdma_sc_cq_create: a CQ of {@code entries} CQEs on CEQ 0. Answers its
     * ring's guest-physical address (the shadow area follows the ring).
     */
    public long createCq(int id, int entries) {
        long ring = ram.allocate((long) entries * Cqe.SIZE + 64);
        cqf.clear();
        cqf.cqId = id;
        cqf.cqSize = entries;
        cqf.cqAddress = ring;
        cqf.shadowAreaAddress = ring + (long) entries * Cqe.SIZE;
        cqf.ceqId = 0;
        cqf.ceqIdValid = true;
        cqf.checkOverflow = false;
        op("CREATE_CQ", (o, v) -> CqpWqeWriter.createCq(store, o, cqf, v));
        return ring;
    }

    /** ctrl.c irdma_sc_qp_create / _modify / _destroy with the caller's fields. */
    public void createQp(QpOpFields f) {
        op("CREATE_QP", (o, v) -> CqpWqeWriter.createQp(store, o, f, v));
    }

    public void modifyQp(QpOpFields f) {
        op("MODIFY_QP", (o, v) -> CqpWqeWriter.modifyQp(store, o, f, v));
    }

    public void destroyQp(QpOpFields f) {
        op("DESTROY_QP", (o, v) -> CqpWqeWriter.destroyQp(store, o, f, v));
    }

    /** ctrl.c irdma_sc_cq_create / irdma_sc_cq_destroy with the caller's fields (verbs.c irdma_create_cq). */
    public void createCq(CqOpFields f) {
        op("CREATE_CQ", (o, v) -> CqpWqeWriter.createCq(store, o, f, v));
    }

    public void destroyCq(CqOpFields f) {
        op("DESTROY_CQ", (o, v) -> CqpWqeWriter.destroyCq(store, o, f, v));
    }

    /** ctrl.c irdma_sc_alloc_stag / irdma_sc_mr_reg_non_shared / irdma_sc_dealloc_stag. */
    public void allocStag(StagFields f) {
        op("ALLOC_STAG", (o, v) -> CqpWqeWriter.allocStag(store, o, f, v));
    }

    public void registerMr(StagFields f) {
        op("REG_MR", (o, v) -> CqpWqeWriter.registerMr(store, o, f, v));
    }

    public void deallocStag(StagFields f) {
        op("DEALLOC_STAG", (o, v) -> CqpWqeWriter.deallocStag(store, o, f, v));
    }

    /**
     * ctrl.c irdma_sc_qp_flush_wqes through hw.c irdma_hw_flush_wqes (waiting): answers the completion's minor
     * code (main.h IRDMA_CQP_COMPL_RQ_WQE_FLUSHED / IRDMA_CQP_COMPL_SQ_WQE_FLUSHED, 0 for nothing flushed).
     */
    public int flushWqes(QpFlushFields f) {
        op("FLUSH_WQES", (o, v) -> CqpWqeWriter.flushWqes(store, o, f, v));
        return lastCompletionMinor;
    }

    /** uk.c irdma_uk_qp_post_wr: PFPE_WQEALLOC with the QP id. */
    public void ringSqDoorbell(int qpId) {
        write(Gen2Register.WQEALLOC, Gen2Registers.wqeAllocDoorbell(qpId));
    }

    /** uk.c irdma_uk_cq_request_notification: PFPE_CQARM with the CQ id (the arm word is in the shadow area). */
    public void ringCqArm(int cqId) {
        write(Gen2Register.CQARM, Gen2Registers.cqArmDoorbell(cqId));
    }

    /** A NOP through the CQP (ctrl.c irdma_sc_cqp_nop): the cheapest round trip. */
    public void nop() {
        op("NOP", nopWriter);
    }

    /** Allocates {@code bytes} of host memory for the caller (rings, contexts, buffers). */
    public long allocate(long bytes) {
        return ram.allocate(bytes);
    }

    /** Skip posting the ILQ receive buffers at bring-up (a test of the device's no-buffer drop). */
    public IrdmaDriver withoutIlqReceiveBuffers() {
        postIlqBuffers = false;
        return this;
    }

    /**
     * puda.c irdma_puda_send (gen2): copy the CM segment (TCP header with {@code tcpHeaderLength} bytes of header
     * and options, then the payload; cm.c irdma_form_ah_cm_frame) into a free ILQ send buffer, write the send WQE
     * naming address handle {@code ahId} with L4LEN = the header length in words, ring WQEALLOC. Answers false when
     * every send buffer is still in flight (irdma_puda_get_bufpool empty) or the segment does not fit.
     */
    public boolean ilqSend(int ahId, BytesStore<?, ?> segment, long offset, int length, int tcpHeaderLength) {
        if (ilq == null || length <= 0 || length > PUDA_BUF || tcpHeaderLength > length) {
            return false;
        }
        Puda p = ilq;
        int idx = p.sqHead;
        if (p.txBusy[idx]) {
            return false;
        }
        long buf = p.txBuffers[idx];
        store.write(off(buf), segment, offset, length);
        p.txBusy[idx] = true;
        sqWqe.wrap(store, off(p.sq + idx * (long) SqWqe.QUANTUM), SqWqe.QUANTUM)
                .writePudaSend(p.sqPolarity, buf, length, tcpHeaderLength, ahId);
        p.sqHead++;
        if (p.sqHead == PUDA_SQ) {
            p.sqHead = 0;
            p.sqPolarity = !p.sqPolarity;
        }
        write(Gen2Register.WQEALLOC, Gen2Registers.wqeAllocDoorbell(p.qpId));
        return true;
    }

    // ------------------------------------------------------------------ address handles

    /** utils.c irdma_ilq_ah_cb: the answer to an AH created without waiting; {@code valid} = op_ret_val 0. */
    @FunctionalInterface
    public interface AhCompletion {
        void ahCreated(int ah, boolean valid);
    }

    /**
     * utils.c irdma_puda_create_ah with wait = true (cm.c irdma_connect, the active side): an index from the AH
     * bitmap below rf->max_ah (the committed FSIAV count, irdma_alloc_rsrc), then CREATE_ADDR_HANDLE (uda.c
     * irdma_sc_access_ah) with the caller's fields, waited for; the AH is valid on return (irdma_ah_cqp_op).
     * {@code dest} / {@code src}: irdma_ah_info.dest_ip_addr / src_ip_addr (IPv4 in word 0). Answers the index.
     *
     * @throws CqpException when no index is free or the device refuses the op (the index is freed again)
     */
    public int createAddressHandle(long mac, int tcTos, int vlanTag, boolean insertVlanTag, int arpIndex,
                                   int hopLimit, boolean ipv4, boolean loopback, int[] dest, int[] src) {
        int ah = allocAh();
        AhFields f = new AhFields(mac, tcTos, vlanTag, insertVlanTag, arpIndex, hopLimit, ipv4, loopback,
                dest.clone(), src.clone());
        try {
            accessAh(CqpOpcode.CREATE_ADDR_HANDLE, ah, f);
        } catch (CqpException e) {
            ahInUse[ah] = false;
            throw e;
        }
        ahFields[ah] = f;
        ahValid[ah] = true;
        return ah;
    }

    /**
     * utils.c irdma_puda_create_ah with wait = false (cm.c irdma_handle_syn_pkt, the passive side): the index, then
     * CREATE_ADDR_HANDLE posted and not waited for. The AH is not valid until the CCQ completion, which runs
     * {@code done} from the interrupt handler (irdma_ilq_ah_cb), never from inside this call. Answers the index.
     *
     * @throws CqpException when no index is free (irdma_alloc_rsrc: -ENOMEM; nothing was posted)
     */
    public int createAddressHandle(long mac, int tcTos, int vlanTag, boolean insertVlanTag, int arpIndex,
                                   int hopLimit, boolean ipv4, boolean loopback, int[] dest, int[] src,
                                   AhCompletion done) {
        int ah = allocAh();
        AhFields f = new AhFields(mac, tcTos, vlanTag, insertVlanTag, arpIndex, hopLimit, ipv4, loopback,
                dest.clone(), src.clone());
        ahFields[ah] = f;
        ahPending[ah] = done;
        post(CqpOpcode.CREATE_ADDR_HANDLE.name(), ahWriter(CqpOpcode.CREATE_ADDR_HANDLE, ah, f),
                (error, major, minor, ret) -> ahCreateCompleted(ah, !error && ret == 0, major, minor));
        return ah;
    }

    /**
     * irdma_ilq_ah_cb: ah_valid from the completion, then the caller's callback. An AH freed while its create was
     * in flight is destroyed now if the device took it, and its index returns to the bitmap either way. (irdma
     * itself frees nothing for such an AH, neither the device's AH nor the index, and its callback would then
     * dereference the freed handle: this driver does not follow it there.) An AH whose create the device refused
     * keeps its index when its owner frees it, as irdma's does ({@link #destroyAddressHandle}).
     */
    private void ahCreateCompleted(int ah, boolean valid, int major, int minor) {
        AhCompletion done = ahPending[ah];
        ahPending[ah] = null;
        ahValid[ah] = valid;
        if (!valid) {
            LOG.debug("AH {} create refused: major {} minor {}", ah, major, minor);
        }
        if (ahFreeOnCreate[ah]) {
            ahFreeOnCreate[ah] = false;
            freeAh(ah);
            return;
        }
        if (done != null) {
            done.ahCreated(ah, valid);
        }
    }

    /** irdma_alloc_rsrc over rf->allocated_ahs from rf->next_ah. */
    private int allocAh() {
        int max = (int) Math.min(committedCount(HmcObjectType.FSIAV), ahInUse.length);
        int index = -1;
        for (int n = 0; n < max; n++) {
            int i = (nextAh + n) % max;
            if (!ahInUse[i]) {
                index = i;
                break;
            }
        }
        if (index < 0) {
            throw new CqpException(CqpException.Kind.OP_ERROR, "CREATE_ADDR_HANDLE", 0, 0);
        }
        ahInUse[index] = true;
        nextAh = (index + 1) % max;
        return index;
    }

    /**
     * utils.c irdma_puda_free_ah: for a valid AH, DESTROY_ADDR_HANDLE posted and not waited for (irdma_ah_cqp_op
     * with wait = false and no callback; irdma_sc_access_ah repeats its fields, only the index counts), and the
     * index back to the bitmap at once. A refused destroy is only logged when its completion comes. An AH whose
     * create is still in flight is freed by that completion ({@link #ahCreateCompleted}).
     *
     * <p>An AH that is not valid (its create without waiting was refused, or timed out) is freed as irdma frees it:
     * nothing is posted, and the index is not given back (irdma_free_rsrc runs only under ah_valid), so it stays
     * taken in rf->allocated_ahs until the driver goes. That is observable: irdma_alloc_rsrc skips it (the next
     * creates take other indexes, and after max_ah such refusals creates fail with -ENOMEM). Counted in
     * {@link #addressHandlesLeaked()}, and still in {@link #addressHandlesInUse()} as it is in the kernel's bitmap.
     */
    public void destroyAddressHandle(int ah) {
        if (ah < 0 || ah >= ahInUse.length || !ahInUse[ah] || ahFreeOnCreate[ah] || ahLeaked[ah]) {
            return;
        }
        if (ahPending[ah] != null) {
            ahFreeOnCreate[ah] = true;
            return;
        }
        if (!ahValid[ah]) {
            ahFields[ah] = null;
            ahLeaked[ah] = true;
            addressHandlesLeaked++;
            LOG.debug("AH {} freed while not valid: its index stays taken, as irdma_puda_free_ah leaves it", ah);
            return;
        }
        freeAh(ah);
    }

    /** AH indexes kept taken because their AH was freed while not valid (irdma_puda_free_ah). */
    public long addressHandlesLeaked() {
        return addressHandlesLeaked;
    }

    private void freeAh(int ah) {
        AhFields f = ahFields[ah];
        ahFields[ah] = null;
        if (ahValid[ah]) {
            ahValid[ah] = false;
            post(CqpOpcode.DESTROY_ADDR_HANDLE.name(), ahWriter(CqpOpcode.DESTROY_ADDR_HANDLE, ah, f),
                    (error, major, minor, ret) -> {
                        if (error) {
                            LOG.debug("AH {} destroy refused: major {} minor {}", ah, major, minor);
                        }
                    });
        }
        ahInUse[ah] = false;
    }

    /** ah_info.ah_valid of index {@code ah}: the device holds it (false while its create is in flight). */
    public boolean addressHandleValid(int ah) {
        return ah >= 0 && ah < ahValid.length && ahValid[ah];
    }

    /** struct irdma_ah_info as the driver keeps it for the AH's lifetime (irdma_sc_ah.ah_info). */
    private record AhFields(long mac, int tcTos, int vlanTag, boolean insertVlanTag, int arpIndex, int hopLimit,
                            boolean ipv4, boolean loopback, int[] dest, int[] src) {
    }

    /** uda.c irdma_sc_access_ah: every op carries the whole ah_info (PD 0: the CM's AHs have none). */
    private void accessAh(CqpOpcode op, int ah, AhFields f) {
        op(op.name(), ahWriter(op, ah, f));
    }

    private WqeWriter ahWriter(CqpOpcode op, int ah, AhFields f) {
        return (o, v) -> CqpWqeWriter.addressHandle(store, o, op, ah, f.mac(), 0, f.tcTos(), f.vlanTag(),
                f.insertVlanTag(), f.arpIndex(), 0, f.hopLimit(), f.ipv4(), f.loopback(), f.dest(), f.src(), v);
    }

    /** Address handles the driver holds. */
    public int addressHandlesInUse() {
        int n = 0;
        for (boolean b : ahInUse) {
            if (b) {
                n++;
            }
        }
        return n;
    }

    // ------------------------------------------------------------------ interrupts

    /**
     * The interrupt handlers, for the vectors raised since they last ran: hw.c irdma_dpc for the AEQ's vector
     * (irdma_process_aeq, then irdma_ena_intr of vector 0) and irdma_ceq_dpc for CEQ 0's (irdma_process_ceq, then
     * irdma_ena_intr of its vector); each vector is re-enabled only by its own handler. The callbacks of requests
     * posted without waiting run from the CCQ's handler, before its arm; those whose completions a waited op polled
     * (or a timeout failed) run last here (irdma runs them inside the waiter's irdma_cqp_ce_handler; this driver
     * defers them so that no callback runs inside a caller's op).
     */
    private void handleInterrupt() {
        if (opDepth > 0 || !up) {
            // A CQP op is being waited for (the CM called us): hand nothing up re-entrantly; the handler runs
            // again once the op has completed (irdma defers the same work to its tasklet).
            irqDeferred = true;
            return;
        }
        interruptsHandled++;
        int vectors = vectorsRaised;
        vectorsRaised = 0;
        if ((vectors & 1 << AEQ_VECTOR) != 0) {
            drainAeq();
            write(Gen2Register.GLINT_DYN_CTL, AEQ_VECTOR, Gen2Registers.dynCtlEnable(0));
        }
        if ((vectors & 1 << CEQ0_VECTOR) != 0) {
            drainCeq();
            write(Gen2Register.GLINT_DYN_CTL, CEQ0_VECTOR, Gen2Registers.dynCtlEnable(0));
        }
        runDueCallbacks();
    }

    /**
     * hw.c irdma_process_ceq: each CEQE to its CQ's handler, acknowledged first with PFPE_CQACK (the CQ's id, as
     * irdma_process_reserved_ceqe and irdma_process_normal_ceqe write it). The CCQ's completions go to their
     * requests and only the CCQ is re-armed (irdma_cqp_ce_handler); a PUDA CQ is polled and re-armed when its own
     * CEQE comes (irdma_puda_ce_handler); every other CQ below the committed count goes to its consumer
     * (irdma_iwarp_ce_handler). IRDMA_INVALID_CQ_IDX and ids beyond the count are skipped (irdma_sc_process_ceq).
     */
    private void drainCeq() {
        for (int n = 0; n < ceqEntries; n++) {
            ceqe.wrap(store, off(ceqRing + (long) ceqHead * Ceqe.SIZE), Ceqe.SIZE);
            if (ceqe.valid() != ceqPolarity) {
                return;
            }
            long cq = ceqe.cqIndex();
            ceqHead++;
            if (ceqHead == ceqEntries) {
                ceqHead = 0;
                ceqPolarity = !ceqPolarity;
            }
            if (cq >= committedCount(HmcObjectType.CQ)) {
                continue;
            }
            int id = (int) cq;
            if (id == CCQ_ID) {
                if (!ccqLive) {
                    continue;
                }
                write(Gen2Register.CQACK, id);
                // irdma_cqp_ce_handler: each completion to its request, the callbacks of those posted without
                // waiting run (irdma_complete_cqp_request), then the CCQ is armed again: the CEQE used its arm (a
                // waited op may have polled the CQE itself already)
                takeCcqCompletions();
                runDueCallbacks();
                armCq(CCQ_ID, ccqShadow);
            } else if (id == ILQ_QP || id == IEQ_QP) {
                Puda p = id == ILQ_QP ? ilq : ieq;
                if (p == null) {
                    // hw.c: "Stale ILQ/IEQ CEQE"
                    continue;
                }
                write(Gen2Register.CQACK, id);
                pollPuda(p, id == ILQ_QP);
                armCq(p.cqId, p.cqShadow);
            } else if (deviceEvents != null) {
                write(Gen2Register.CQACK, id);
                deviceEvents.completionEvent(id);
            }
        }
    }

    /**
     * hw.c irdma_process_aeq: each valid AEQE decoded and handed up, then the consumed count written to
     * PFPE_AEQALLOC (ctrl.c irdma_sc_repost_aeq_entries). An AEQE with the overflow bit ends the pass at once: irdma
     * logs "AEQ has overflowed", sets rf->reset, asks for a reset (without testing rf->reset first) and returns
     * before the repost, so neither that AEQE's event nor the entries consumed before it in the pass are handed
     * back to the device. The ring's head has moved past the overflowed AEQE (irdma_sc_get_next_aeqe moves it
     * before the caller looks at the bit).
     */
    private void drainAeq() {
        int consumed = 0;
        for (int n = 0; n < aeqEntries; n++) {
            aeqe.wrap(store, off(aeqeAddress(aeqHead)), Aeqe.SIZE);
            if (aeqe.valid() != aeqPolarity) {
                break;
            }
            asyncEvent.decode(aeqe);
            aeqHead++;
            if (aeqHead == aeqEntries) {
                aeqHead = 0;
                aeqPolarity = !aeqPolarity;
            }
            if (asyncEvent.overflow) {
                aeqOverflows++;
                LOG.error("AEQ has overflowed ({} AEQEs of this pass not reposted); requesting a reset", consumed);
                requestReset(ResetCause.aeqOverflow(), false);
                return;
            }
            consumed++;
            if (deviceEvents != null) {
                deviceEvents.asyncEvent(asyncEvent);
            }
            upcalls.asyncEvent(asyncEvent.qpCqId, asyncEvent.aeCode);
        }
        if (consumed > 0) {
            write(Gen2Register.AEQALLOC, Gen2Registers.aeqAllocDoorbell(consumed));
        }
    }

    /** Overflowed AEQEs the driver read (each one a reset request, hw.c irdma_process_aeq). */
    public long aeqOverflows() {
        return aeqOverflows;
    }

    /** puda.c irdma_puda_poll_cmpl: RQ CQEs hand the frame up and repost the buffer; SQ CQEs free the buffer. */
    private void pollPuda(Puda p, boolean deliver) {
        for (int n = 0; n < p.cqSize; n++) {
            cqe.wrap(store, off(p.cqRing + (long) p.cqHead * Cqe.SIZE), Cqe.SIZE);
            if (cqe.valid() != p.cqPolarity) {
                break;
            }
            boolean sq = cqe.queueType() == Cqe.QTYPE_SQ;
            int wqe = cqe.wqeIndex();
            boolean error = cqe.error();
            long len = cqe.payloadLength();
            boolean ipv4 = cqe.ipv4();
            boolean extended = cqe.extended();
            boolean vlanValid = false;
            int tci = 0;
            long srcMac = 0;
            if (extended) {
                // the extension sits in the next slot (irdma_puda_poll_info reads it from there)
                int next = (p.cqHead + 1) % p.cqSize;
                ext.wrap(store, off(p.cqRing + (long) next * Cqe.SIZE), CqeExtension.SIZE);
                vlanValid = ext.vlanValid();
                tci = ext.vlan();
                srcMac = ext.sourceMacValid() ? ext.sourceMac() : 0;
            }
            int slots = extended ? 2 : 1;
            for (int i = 0; i < slots; i++) {
                p.cqHead++;
                if (p.cqHead == p.cqSize) {
                    p.cqHead = 0;
                    p.cqPolarity = !p.cqPolarity;
                }
            }
            store.writeLong(off(p.cqShadow), p.cqHead);
            if (sq) {
                if (wqe >= 0 && wqe < PUDA_SQ && p.txBusy != null) {
                    p.txBusy[wqe] = false;
                    ilqSendsCompleted++;
                }
            } else if (wqe >= 0 && wqe < PUDA_RQ) {
                long buf = off(p.rxBuffers[wqe]);
                if (deliver && !error
                        && PudaLayout.check(len, PudaLayout.tcpHeaderLength(store, buf), PUDA_BUF).accepted()) {
                    int frameLen = rebuildFrame(buf, (int) len, ipv4, vlanValid, tci, srcMac);
                    ilqReceived++;
                    upcalls.ilqReceive(rxFrame, 0, frameLen);
                } else if (deliver) {
                    ilqRefused++;
                } else if (!error
                        && PudaLayout.check(len, PudaLayout.tcpHeaderLength(store, buf), PUDA_BUF).accepted()) {
                    ieqReceived++;
                } else {
                    ieqRefused++;
                }
                // puda.c irdma_puda_post_recvbuf (initial false): the valid bit toggles on repost.
                rqWqe.wrap(store, off(p.rq + wqe * (long) RqWqe.MIN_SIZE), RqWqe.MIN_SIZE)
                        .writePuda(p.rxBuffers[wqe], PUDA_BUF, false);
            }
        }
    }

    /**
     * The frame as the CM reads it (cm.c irdma_receive_ilq works on the whole packet): Ethernet header from the
     * CQE extension (source MAC, VLAN tag) and this port's MAC, then the IP packet the device placed at
     * {@link PudaLayout#ipHeaderOffset} (the Ethernet header itself is stripped, see PudaLayout).
     */
    private int rebuildFrame(long buf, int placed, boolean ipv4, boolean vlanValid, int tci, long srcMac) {
        int at = PudaLayout.ipHeaderOffset(ipv4);
        int ipLen = placed - at;
        int type = ipv4 ? EthernetFrame.ETHERTYPE_IPV4 : EthernetFrame.ETHERTYPE_IPV6;
        long o = vlanValid
                ? EthernetFrame.writeTagged(rxFrame, 0, localMac, srcMac, tci, type)
                : EthernetFrame.write(rxFrame, 0, localMac, srcMac, type);
        rxFrame.write(o, store, buf + at, ipLen);
        return (int) o + ipLen;
    }

    /** ctrl.c irdma_sc_ccq_arm / irdma_uk_cq_request_notification: bump the arm sequence, write PFPE_CQARM. */
    private void armCq(int cqId, long shadow) {
        long w = store.readLong(off(shadow) + Gen2Registers.CQ_SHADOW_ARM_OFFSET);
        int seq = Bits.getInt(w, Gen2Registers.CQ_DBSA_ARM_SEQ_NUM) + 1;
        store.writeLong(off(shadow) + Gen2Registers.CQ_SHADOW_ARM_OFFSET,
                Gen2Registers.cqArmWord(seq & 3, 0, false, true));
        write(Gen2Register.CQARM, Gen2Registers.cqArmDoorbell(cqId));
    }

    // ------------------------------------------------------------------ the synchronous CQP helper

    /** Writes a CQP WQE at a store offset with the given valid-bit polarity. */
    @FunctionalInterface
    public interface WqeWriter {
        void write(long storeOffset, boolean valid);
    }

    /**
     * A request's completion when its poster does not wait (cqp_request->callback_fcn with
     * cqp_request->compl_info): run from the interrupt handler, where it may post or run further ops.
     */
    @FunctionalInterface
    public interface CqpCallback {
        void completed(boolean error, int majorCode, int minorCode, long opReturnValue);

        /**
         * The request will never complete: the CQP made no progress for {@link #CQP_TIMEOUT_THRESHOLD} steps and the
         * driver requested a reset ({@code cause} says which op and why). Run from the interrupt handler like
         * {@link #completed}; by default it is an error completion with no codes (irdma's compl_info.error with the
         * codes untouched).
         */
        default void failed(CqpException cause) {
            completed(true, 0, 0, 0);
        }
    }

    /**
     * rf->gen_ops.request_reset (icrdma_if.c icrdma_request_reset -> ice_rdma_request_reset with IIDC_FUNC_RESET):
     * what the driver asks of the function's owner when the CQP stopped answering, answered 0xffff/0x8029, or the AEQ
     * overflowed ({@link ResetCause}). A host may answer with a function reset of the device; the driver does not
     * reset anything itself.
     */
    @FunctionalInterface
    public interface ResetRequest {
        void requestReset(ResetCause cause);
    }

    /**
     * Where a reset request goes: once for the CQP causes (irdma_wait_event asks only while rf->reset is clear), and
     * for each overflowed AEQE (irdma_process_aeq asks without testing it).
     */
    public IrdmaDriver onResetRequest(ResetRequest hook) {
        this.resetHook = hook == null ? cause -> { } : hook;
        return this;
    }

    /** rf->reset: the driver requested a reset; every op is refused from then on. */
    public boolean resetRequested() {
        return resetRequested;
    }

    /**
     * Reset requests made: 0 or 1 from the CQP (a timeout, a 0xffff/0x8029 completion), plus one per overflowed AEQE
     * the driver read (see {@link #onResetRequest}).
     */
    public long resetRequests() {
        return resetRequests;
    }

    /** The first reset request's cause, or null while none was made. */
    public ResetCause resetCause() {
        return resetCause;
    }

    /**
     * rf->reset = true and rf->gen_ops.request_reset (icrdma_request_reset): the hook is told unless {@code once}
     * and a reset was already requested.
     */
    private void requestReset(ResetCause cause, boolean once) {
        if (once && resetRequested) {
            return;
        }
        resetRequested = true;
        resetRequests++;
        if (resetCause == null) {
            resetCause = cause;
        }
        resetHook.requestReset(cause);
    }

    /** CQP timeouts seen: waited ops that gave up and watchdog expiries over posted requests. */
    public long cqpTimeouts() {
        return cqpTimeouts;
    }

    /** cqp->completed_ops: completions the driver has taken (CCQ CQEs and register-polled ones). */
    public long cqpCompletedOps() {
        return cqpCompletedOps;
    }

    /**
     * The CQP timed out (utils.c irdma_wait_event at its threshold): rf->reset set and request_reset called if it was
     * clear. The requests posted without waiting are failed with {@code cause} (their callbacks run from the
     * interrupt handler, never inside the caller's op): irdma frees them silently when the CQP goes
     * (irdma_cleanup_pending_cqp_op), this driver tells their owners instead, so that no caller waits on a
     * completion that will not come.
     */
    private void cqpTimedOut(CqpException cause) {
        cqpTimeouts++;
        if (cqpFailure != null) {
            return;
        }
        LOG.warn("CQP made no progress for {} steps of {} ms ({} requested, {} completed): {}; requesting a reset",
                CQP_TIMEOUT_THRESHOLD, CQP_COMPL_WAIT_NANOS / 1_000_000, opsPosted, cqpCompletedOps,
                cause.getMessage());
        cqpFailure = cause;
        for (int i = 0; i < CQP_ENTRIES; i++) {
            if (ccqCallback[i] != null && !ccqDue[i]) {
                ccqFailed[i] = true;
                ccqDue[i] = true;
                callbacksDue[(callbacksDueHead + callbacksDueCount) % CQP_ENTRIES] = i;
                callbacksDueCount++;
            }
        }
        if (callbacksDueCount > 0) {
            irqDeferred = true;
            if (opDepth == 0 && up && !irqTimer.isPending()) {
                irqTimer.scheduleIn(0);
            }
        }
        cqpWatchdog.cancel();
        requestReset(ResetCause.of(ResetCause.Reason.CQP_TIMEOUT, cause), true);
    }

    /**
     * The progress check over requests posted without waiting, every {@link #CQP_COMPL_WAIT_NANOS} while any is
     * outstanding: ctrl.c irdma_check_cqp_progress's count (reset by any completion, raised while completed_ops
     * lags requested_ops). irdma itself runs that check only inside a waiter (irdma_wait_event); a posted request
     * that never completes is noticed there, by the next waited op. This driver counts for the posted ones too, with
     * the same step and threshold, so a lost completion cannot go unnoticed when no op is waited for. It keeps
     * counting after a reset request that did not come from a timeout (the CQP still answers then, and no waited op
     * will come to notice a lost completion), and stops once the CQP has been given up.
     */
    private void cqpWatchdogTick() {
        if (cqpRequestsPending == 0 || cqpFailure != null) {
            return;
        }
        if (cqpCompletedOps != watchdogSeen) {
            watchdogSeen = cqpCompletedOps;
            watchdogCount = 0;
        } else if (watchdogSeen != opsPosted) {
            watchdogCount++;
        }
        if (watchdogCount >= CQP_TIMEOUT_THRESHOLD) {
            cqpTimedOut(new CqpException(CqpException.Kind.TIMEOUT, oldestPendingName(), 0, 0));
            return;
        }
        cqpWatchdog.scheduleIn(CQP_COMPL_WAIT_NANOS);
    }

    /** The name of the oldest request posted without waiting that is still outstanding (for the exception). */
    private String oldestPendingName() {
        // the slot at cqpHead is the oldest (the next to be reused), then onwards
        for (int n = CQP_ENTRIES; n >= 1; n--) {
            int i = Math.floorMod(cqpHead - n, CQP_ENTRIES);
            if (ccqCallback[i] != null && !ccqDue[i]) {
                return ccqName[i];
            }
        }
        return "posted request";
    }

    /**
     * irdma_handle_cqp_op for a request allocated with wait = false: posts the WQE, rings PFPE_CQPDB and returns
     * without waiting. The CCQ completion, whenever it comes, runs {@code callback} from the interrupt handler
     * (hw.c irdma_cqp_ce_handler -> irdma_complete_cqp_request). Needs the CCQ (before it, ops poll registers).
     * Answers the WQE index.
     */
    public int post(String name, WqeWriter writer, CqpCallback callback) {
        if (!ccqLive) {
            throw new IllegalStateException(name + " posted without waiting before the CCQ exists");
        }
        refuseAfterReset(name);
        int index = postWqe(writer);
        ccqCallback[index] = callback;
        ccqName[index] = name;
        cqpRequestsPending++;
        if (!cqpWatchdog.isPending()) {
            watchdogSeen = cqpCompletedOps;
            watchdogCount = 0;
            cqpWatchdog.scheduleIn(CQP_COMPL_WAIT_NANOS);
        }
        return index;
    }

    /** utils.c irdma_handle_cqp_op: with rf->reset set, -EBUSY before anything is posted. */
    private void refuseAfterReset(String name) {
        if (resetRequested) {
            throw new CqpException(CqpException.Kind.RESET_REQUESTED, name, 0, 0);
        }
    }

    /** Requests posted without waiting whose completion has not been handled yet. */
    public int cqpRequestsPending() {
        return cqpRequestsPending;
    }

    /** Callbacks of requests posted without waiting that have run. */
    public long cqpCallbacksRun() {
        return cqpCallbacksRun;
    }

    /**
     * Posts one CQP WQE, rings PFPE_CQPDB and runs the scheduler until its completion (ctrl.c
     * irdma_sc_cqp_post_sq + irdma_sc_poll_for_cqp_op_done). Answers the op's return value (CQE OPRETVAL).
     */
    public long op(String name, WqeWriter writer) {
        refuseAfterReset(name);
        opDepth++;
        try {
            return postAndWait(name, writer);
        } finally {
            opDepth--;
            if (opDepth == 0 && irqDeferred && up) {
                irqDeferred = false;
                if (!irqTimer.isPending()) {
                    irqTimer.scheduleIn(0);
                }
            }
        }
    }

    /** ctrl.c irdma_sc_cqp_get_next_send_wqe_idx + irdma_sc_cqp_post_sq: the WQE written, PFPE_CQPDB rung. */
    private int postWqe(WqeWriter writer) {
        opsPosted++;
        int index = cqpHead;
        if (cqpHead == 0) {
            cqpPolarity = !cqpPolarity;
        }
        cqpHead = (cqpHead + 1) % CQP_ENTRIES;
        lastWqeIndex = index;
        ccqDone[index] = false;
        ccqCallback[index] = null;
        ccqDue[index] = false;
        ccqFailed[index] = false;
        writer.write(off(cqpSq + (long) index * CqpWqe.SIZE), cqpPolarity);
        write(Gen2Register.CQPDB, Gen2Registers.cqpDoorbell(cqpHead));
        return index;
    }

    private long postAndWait(String name, WqeWriter writer) {
        int index = postWqe(writer);
        return ccqLive ? waitEvent(name, index) : pollRegisters(name);
    }

    /**
     * ctrl.c irdma_cqp_poll_registers: PFPE_CQPTAIL moves past the WQE (success), or CQP_OP_ERR with
     * PFPE_CQPERRCODES; bounded by {@link #CQP_TIMEOUT_NANOS}. A timeout here is the op's -ETIMEDOUT only: irdma
     * requests no reset from this path.
     */
    private long pollRegisters(String name) {
        long limit = scheduler.now() + CQP_TIMEOUT_NANOS;
        while (true) {
            int tail = reg(Gen2Register.CQPTAIL);
            if (Gen2Registers.cqpTailError(tail)) {
                int codes = reg(Gen2Register.CQPERRCODES);
                throw new CqpException(CqpException.Kind.OP_ERROR, name, Gen2Registers.cqpErrMajor(codes),
                        Gen2Registers.cqpErrMinor(codes));
            }
            if (Gen2Registers.cqpTailIndex(tail) == cqpHead) {
                cqpCompletedOps++;
                return 0;
            }
            long next = scheduler.nextDeadline();
            if (next == Long.MAX_VALUE || next > limit || !scheduler.runNext()) {
                throw new CqpException(CqpException.Kind.TIMEOUT, name, 0, 0);
            }
        }
    }

    /**
     * utils.c irdma_wait_event: poll the CCQ (irdma_cqp_ce_handler), run the simulated machine for at most
     * {@link #CQP_COMPL_WAIT_NANOS} (wait_for_completion_timeout; it returns at once when the completion comes), and
     * after each step without it ctrl.c irdma_check_cqp_progress: any completion since the last step resets the
     * count, none while requests are outstanding raises it. At {@link #CQP_TIMEOUT_THRESHOLD} the op fails with
     * {@link CqpException.Kind#TIMEOUT} and the driver requests a reset ({@link #cqpTimedOut}). Time passes even
     * when nothing is scheduled (the kernel sleeps), so a completion that cannot come costs 5 s of simulated time and
     * 500 steps, never a hang. Allocates nothing on the way.
     */
    private long waitEvent(String name, int index) {
        long seen = cqpCompletedOps;
        int count = 0;
        long stepEnd = scheduler.now() + CQP_COMPL_WAIT_NANOS;
        while (true) {
            long r = pollCcq(name, index);
            if (r != Long.MIN_VALUE) {
                return r;
            }
            if (scheduler.nextDeadline() <= stepEnd && scheduler.runNext()) {
                continue;
            }
            // a whole step passed without this op's completion: irdma_check_cqp_progress
            scheduler.runUntil(stepEnd);
            r = pollCcq(name, index);
            if (r != Long.MIN_VALUE) {
                return r;
            }
            if (cqpCompletedOps != seen) {
                seen = cqpCompletedOps;
                count = 0;
            } else if (seen != opsPosted) {
                count++;
            }
            if (count >= CQP_TIMEOUT_THRESHOLD) {
                CqpException e = new CqpException(CqpException.Kind.TIMEOUT, name, 0, 0);
                cqpTimedOut(e);
                throw e;
            }
            stepEnd += CQP_COMPL_WAIT_NANOS;
        }
    }

    /** ctrl.c irdma_sc_ccq_get_cqe_info: one CCQ CQE for {@code index}, or MIN_VALUE when none is valid yet. */
    private long pollCcq(String name, int index) {
        while (true) {
            if (ccqDone[index]) {
                // a nested op's wait polled this one's completion
                ccqDone[index] = false;
                if (ccqError[index]) {
                    throw waitedOpFailed(name, ccqMajor[index], ccqMinor[index]);
                }
                lastCompletionMinor = ccqMinor[index];
                return ccqReturn[index];
            }
            if (!takeCcqCqe()) {
                return Long.MIN_VALUE;
            }
            int wqe = completion.wqeIndex();
            boolean error = completion.error();
            int major = completion.majorCode();
            int minor = completion.minorCode();
            long ret = completion.opReturnValue();
            if (wqe != index) {
                if (wqe < 0 || wqe >= CQP_ENTRIES) {
                    LOG.warn("CCQ completion for WQE {} while waiting for {} ({})", wqe, index, name);
                    continue;
                }
                // a request posted without waiting: its callback runs from the handler once this op is done
                recordCompletion(wqe, error, major, minor, ret);
                continue;
            }
            if (error) {
                throw waitedOpFailed(name, major, minor);
            }
            lastCompletionMinor = minor;
            return ret;
        }
    }

    /**
     * The end of utils.c irdma_wait_event for an error completion: -EIO ({@link CqpException.Kind#OP_ERROR}), except
     * that major 0xffff with minor 0x8002 is -EBUSY ({@link CqpException.Kind#BUSY}) and with minor 0x8029 makes the
     * driver request a reset as a timeout does (rf->reset set, request_reset called if it was clear). Only a waited
     * op is looked at so: a request posted without waiting hands its codes to its callback and nothing more
     * (hw.c irdma_complete_cqp_request), and the register-polled ops before the CCQ are -EIO whatever their codes
     * (ctrl.c irdma_cqp_poll_registers).
     */
    private CqpException waitedOpFailed(String name, int major, int minor) {
        if (major == CqpErrorCode.Pair.INVALID_STATE.major() && minor == CqpErrorCode.Pair.INVALID_STATE.minor()) {
            return new CqpException(CqpException.Kind.BUSY, name, major, minor);
        }
        CqpException e = new CqpException(CqpException.Kind.OP_ERROR, name, major, minor);
        if (major == CqpErrorCode.Pair.FATAL_RESET.major() && minor == CqpErrorCode.Pair.FATAL_RESET.minor()
                && !resetRequested) {
            LOG.warn("{} completed with major 0x{} minor 0x{}; requesting a reset", name, Integer.toHexString(major),
                    Integer.toHexString(minor));
            requestReset(ResetCause.of(ResetCause.Reason.CQP_FATAL_ERROR, e), true);
        }
        return e;
    }

    /**
     * Takes the CCQ CQE at the head if the device has written it (its valid bit is the current polarity): the head
     * moves on, wrapping with a polarity flip, and the new head goes to the shadow area (ctrl.c
     * irdma_sc_ccq_get_cqe_info). The CQE's fields stay readable in {@link #completion}: nothing writes the slot
     * before the ring wraps. False when no CQE is there yet.
     */
    private boolean takeCcqCqe() {
        completion.wrap(store, off(ccqRing + (long) ccqHead * CqpCompletion.SIZE));
        if (completion.valid() != ccqPolarity) {
            return false;
        }
        ccqHead++;
        if (ccqHead == CCQ_ENTRIES) {
            ccqHead = 0;
            ccqPolarity = !ccqPolarity;
        }
        store.writeLong(off(ccqShadow), ccqHead);
        // ctrl.c irdma_sc_ccq_get_cqe_info: atomic64_inc(&cqp->completed_ops)
        cqpCompletedOps++;
        return true;
    }

    /** One CCQ CQE for a request other than a waited-for one: kept for its waiter, or queued for its callback. */
    private void recordCompletion(int wqe, boolean error, int major, int minor, long ret) {
        ccqError[wqe] = error;
        ccqMajor[wqe] = major;
        ccqMinor[wqe] = minor;
        ccqReturn[wqe] = ret;
        if (ccqCallback[wqe] != null && ccqDue[wqe]) {
            // already failed by a timeout: its callback has been told, the late completion changes nothing
            LOG.debug("late CCQ completion for WQE {} ({}), after its timeout", wqe, ccqName[wqe]);
        } else if (ccqCallback[wqe] != null) {
            ccqDue[wqe] = true;
            callbacksDue[(callbacksDueHead + callbacksDueCount) % CQP_ENTRIES] = wqe;
            callbacksDueCount++;
            irqDeferred = true;
        } else {
            ccqDone[wqe] = true;
        }
    }

    /**
     * hw.c irdma_cqp_ce_handler: every valid CCQ CQE to its request; the callbacks of those posted without waiting
     * (irdma_complete_cqp_request) are queued for {@link #runDueCallbacks}.
     */
    private void takeCcqCompletions() {
        while (true) {
            if (!takeCcqCqe()) {
                break;
            }
            int wqe = completion.wqeIndex();
            boolean error = completion.error();
            int major = completion.majorCode();
            int minor = completion.minorCode();
            long ret = completion.opReturnValue();
            if (wqe < 0 || wqe >= CQP_ENTRIES) {
                LOG.warn("CCQ completion for WQE {} out of range", wqe);
                continue;
            }
            recordCompletion(wqe, error, major, minor, ret);
        }
    }

    /** The due callbacks of requests posted without waiting, in completion order; one may post or wait for ops. */
    private void runDueCallbacks() {
        while (callbacksDueCount > 0) {
            int wqe = callbacksDue[callbacksDueHead];
            callbacksDueHead = (callbacksDueHead + 1) % CQP_ENTRIES;
            callbacksDueCount--;
            CqpCallback cb = ccqCallback[wqe];
            boolean failed = ccqFailed[wqe];
            ccqCallback[wqe] = null;
            ccqDue[wqe] = false;
            ccqFailed[wqe] = false;
            cqpRequestsPending--;
            cqpCallbacksRun++;
            if (cqpRequestsPending == 0) {
                cqpWatchdog.cancel();
            }
            if (failed) {
                cb.failed(cqpFailure);
            } else {
                cb.completed(ccqError[wqe], ccqMajor[wqe], ccqMinor[wqe], ccqReturn[wqe]);
            }
        }
    }

    int lastWqeIndex() {
        return lastWqeIndex;
    }
}
