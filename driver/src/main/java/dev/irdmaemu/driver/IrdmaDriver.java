package dev.irdmaemu.driver;

import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.bus.InterruptSink;
import dev.irdmaemu.fw.bus.Mmio;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.fw.sim.SimScheduler;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver layer: brings an E810 RDMA function up the way irdma's probe does (hw.c irdma_ctrl_init_hw, then
 * irdma_rt_init_hw) and then serves the CM, touching the device only through {@link Mmio}, host memory
 * ({@link HostRam}) and the {@link InterruptSink} it hands the device ({@link #interruptSink()}). This class does the
 * bring-up and the remove (below) and holds the parts irdma has in its own files; callers reach those named for the
 * kernel's concern: {@link #cqp()} the CQP's commands, ops and counts ({@code CqpCommands} over {@code CqpChannel}:
 * ctrl.c, utils.c irdma_wait_event, and {@code CqpRequests}, the requests posted without waiting and the CQP's
 * timeout); {@link #hmc()} the HMC ({@code HmcSetup}: hw.c irdma_hmc_setup, pble.c); {@link #features()} the feature
 * query ({@code RdmaFeatures}: ctrl.c irdma_get_rdma_features); {@link #puda()} the ILQ and IEQ ({@code PudaQueues}:
 * puda.c); {@link #workScheduler()} the work-scheduler tree ({@code WorkScheduler}: ws.c); {@link #addressHandles()}
 * the CM's address handles ({@code AddressHandles}: utils.c, uda.c); {@link #resets()} the reset requests
 * ({@code ResetRequests}); {@link #aeq()} the AEQ ({@code Aeq}: hw.c irdma_process_aeq). The interrupt handlers
 * ({@code IrdmaDpc}) over CEQ 0 ({@code Ceq}: hw.c irdma_process_ceq) and the AEQ stay inside.
 *
 * <p>CQP ops are synchronous: post the WQE, ring PFPE_CQPDB, run the {@link SimScheduler} until the completion
 * for that WQE index arrives. Before the CCQ exists (and after it is destroyed) the completion is PFPE_CQPTAIL moving,
 * polled for at most {@link #CQP_TIMEOUT_NANOS} (ctrl.c irdma_cqp_poll_registers); with the CCQ it is a CCQ CQE,
 * waited for as utils.c irdma_wait_event does: in steps of {@link #CQP_COMPL_WAIT_NANOS}, each step without CQP
 * progress counted (ctrl.c irdma_check_cqp_progress), {@link #CQP_TIMEOUT_THRESHOLD} of them a timeout. A timeout
 * is a {@link CqpException} ({@link CqpException.Kind#TIMEOUT}), never a hang. A waited op's error completion is
 * -EIO ({@link CqpException.Kind#OP_ERROR}), or -EBUSY for major 0xffff minor 0x8002 ({@link CqpException.Kind#BUSY}).
 * A timeout, a waited op's 0xffff/0x8029 completion and an overflowed AEQE make the driver request a function reset
 * as irdma does ({@link ResetRequests#requested()}, {@link #onResetRequest}, {@link ResetCause}); from then on every
 * op is refused ({@link CqpException.Kind#RESET_REQUESTED}). The requests irdma posts without waiting (the passive
 * side's AH create, every AH destroy, the stats timer's Gather Stats) go through {@link CqpCommands#post}: their
 * completions reach their callbacks from the interrupt handler, through the CCQ's CEQE (hw.c irdma_cqp_ce_handler),
 * and the same progress count over them ends in the same timeout.
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
    /** MSI-X vectors: 0 for the AEQ, 1 for CEQ 0 (hw.c irdma_cfg_ceq_vector / irdma_cfg_aeq_vector). */
    public static final int AEQ_VECTOR = 0;
    public static final int CEQ0_VECTOR = 1;
    /** Sizes chosen for the bring-up (hw.c: sc_dev.hw_attrs / irdma_puda_create_rsrc sizes, scaled down). */
    public static final int CQP_ENTRIES = 2048;
    public static final int CCQ_ENTRIES = 64;
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

    /** utils.c irdma_ilq_ah_cb: the answer to an AH created without waiting; {@code valid} = op_ret_val 0. */
    @FunctionalInterface
    public interface AhCompletion {
        void ahCreated(int ah, boolean valid);
    }

    private final IrdmaHw hw;
    private final ResetRequests resets = new ResetRequests();
    private final CqpChannel cqp;
    private final IrdmaDpc dpc;
    private final CqpRequests requests;
    private final HwStatistics statistics;
    private final RdmaFeatures features;
    private final HmcSetup hmc;
    private final WorkScheduler ws;
    private final PudaQueues puda;
    private final Ceq ceq;
    private final Aeq aeq;
    private final AddressHandles ahs;
    private final CqpCommands commands;

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
        this.hw = new IrdmaHw(ram, scheduler);
        this.cqp = new CqpChannel(hw, resets);
        this.dpc = new IrdmaDpc(hw, cqp);
        this.requests = new CqpRequests(hw, cqp, resets);
        this.statistics = new HwStatistics(this, ram);
        this.features = new RdmaFeatures(hw, cqp);
        this.hmc = new HmcSetup(hw, cqp);
        this.ws = new WorkScheduler(hw, cqp);
        this.puda = new PudaQueues(hw, cqp, ws);
        this.ceq = new Ceq(hw, cqp, requests, puda);
        this.aeq = new Aeq(hw, cqp, resets);
        this.ahs = new AddressHandles(hw, cqp, hmc);
        this.commands = new CqpCommands(hw, cqp, requests, ws);
        cqp.wire(requests, dpc);
        requests.interrupts(dpc);
        dpc.wire(aeq, ceq, requests);
        attach(new Upcalls() {
            @Override
            public void ilqReceive(BytesStore<?, ?> s, long o, int l) {
            }

            @Override
            public void asyncEvent(int qpId, int aeCode) {
            }
        });
    }

    /** Binds the driver to the device's BAR0 (once, before {@link #bringUp()}). */
    public IrdmaDriver bind(Mmio deviceBar) {
        hw.bind(deviceBar);
        return this;
    }

    /** The host memory the driver allocates in, and the store its addresses resolve to. */
    public BytesStore<?, ?> store() {
        return hw.store;
    }

    /** The store offset of a guest-physical address of {@link #ram()}. */
    public long offsetOf(long gpa) {
        return hw.off(gpa);
    }

    /**
     * Services the device as the interrupt handler would, for a device built without this driver's interrupt
     * sink (polling mode): both vectors' handlers run as if raised, draining the AEQ and CEQ 0 (each CEQE to its
     * CQ's handler, which re-arms that CQ) and re-enabling both vectors.
     */
    public void poll() {
        dpc.poll();
    }

    /**
     * The sink to give the device: a raised vector schedules the driver's handler on the scheduler (the
     * tasklet irdma_dpc / irdma_ceq_dpc runs after the hard IRQ returns).
     */
    public InterruptSink interruptSink() {
        return dpc.sink();
    }

    /** The port's MAC, the destination of the frames rebuilt from ILQ receives. */
    public IrdmaDriver macAddress(long mac) {
        puda.localMac(mac);
        return this;
    }

    /** The port's MAC (the QP context's IRDMAQPC_MACADDRESS, verbs.c irdma_iw_fill_and_set_qpctx_info). */
    public long macAddress() {
        return puda.localMac();
    }

    public void attach(Upcalls upcalls) {
        puda.upcalls(upcalls);
        aeq.upcalls(upcalls);
    }

    /** Where CEQ and AEQ events go (the verbs layer); one consumer. */
    public void attachEvents(DeviceEvents events) {
        ceq.events(events);
        aeq.events(events);
    }

    /**
     * The PF's hardware statistics (Gather Stats). irdma starts their 60 s timer in irdma_vsi_stats_init; this
     * driver gathers on demand ({@link HwStatistics#gather()}) and runs the timer only once started
     * ({@link HwStatistics#startTimer()}).
     */
    public HwStatistics statistics() {
        return statistics;
    }

    public SimScheduler scheduler() {
        return hw.scheduler;
    }

    public HostRam ram() {
        return hw.ram;
    }

    public boolean isUp() {
        return dpc.up();
    }

    /**
     * The whole probe in irdma.ko 7.3's gen2 order: hw.c irdma_ctrl_init_hw (CQP, Query RDMA features, HMC with
     * Static HMC pages allocated, CCQ, CEQ 0, AEQ) then irdma_rt_init_hw (ILQ with the work-scheduler tree, IEQ).
     */
    public void bringUp() {
        cqp.waitPeReady();
        cqp.createCqp();
        // hw.c irdma_ctrl_init_hw (gen2): the feature query right after the CQP, still by register poll
        features.query();
        hmc.setup();
        cqp.createCcq();
        ceq.setup(hmc.committedCount(HmcObjectType.CQ));
        // hw.c irdma_ctrl_init_hw: the CCQ is armed once CEQ 0 exists; its completions then raise CEQEs
        cqp.armCcq();
        // hw.c irdma_ctrl_init_hw: the PBLE object's first chunk after the CEQs, before the AEQ
        hmc.initPble();
        hmc.initPbles();
        aeq.setup(hmc.committedCount(HmcObjectType.QP), hmc.committedCount(HmcObjectType.CQ), hmc.pbles());
        // hw.c irdma_rt_init_hw: ctrl.c irdma_vsi_stats_init after the VSI, before the ILQ: the stats buffer and
        // (gen2) the 60 s timer whose Gather Stats is posted without waiting (utils.c irdma_hw_stats_timeout)
        statistics.startTimer();
        puda.create();
        // anything that arrived during the bring-up is looked at now
        dpc.start();
        LOG.debug("irdma driver up: {} CQP ops", cqp.opsPosted());
    }

    /**
     * irdma's remove path for what this driver created (icrdma_if.c icrdma_remove -> irdma_ib_unregister_device ->
     * irdma_rt_deinit_hw, then irdma_ctrl_deinit_hw), in its order: the IEQ, then the ILQ (puda.c
     * irdma_puda_dele_rsrc: Destroy QP, the WS tree once the TC has no QP left, Destroy CQ); the stats timer stopped
     * (irdma_vsi_stats_free); irdma_destroy_aeq (PFINT_AEQCTL cleared, Destroy AEQ); irdma_del_ceq_0 (Destroy CEQ 0);
     * irdma_destroy_ccq (Destroy CQ 0, completion by PFPE_CQPTAIL); irdma_del_hmc_objects (per object type in
     * iw_hmc_obj_types order: its PDs invalidated, its SDs cleared by Update PE SDs, now register-polled);
     * irdma_destroy_cqp (PFPE_CCQPHIGH/LOW zeroed, PFPE_CCQPSTATUS polled until not done) and
     * irdma_cleanup_pending_cqp_op (the requests still posted without waiting are dropped: their callbacks never run).
     * After a reset request ({@link ResetRequests#requested()}) no op is issued, as irdma skips them when rf->reset is
     * set; the register writes (PD invalidation, CQP destroy) still happen. A refused op is logged and the teardown
     * goes on, as irdma's does. The objects the CM and the verbs made (QPs, CQs, MRs, qhash entries, APBVT ports,
     * AHs) are theirs to destroy first, as the RDMA core does before irdma_ib_dealloc_device. Nothing of this driver
     * stays armed on the scheduler, and it answers no interrupt afterwards.
     */
    public void tearDown() {
        boolean reset = resets.requested();
        // from here on the handler does nothing (irdma has freed its IRQs by the time the queues go)
        dpc.stop();
        puda.delete(reset);
        statistics.stopTimer();
        if (aeq.live()) {
            aeq.destroy(reset);
        }
        if (ceq.live()) {
            ceq.destroy(reset);
        }
        if (cqp.ccqCreated()) {
            cqp.destroyCcq(reset);
        }
        hmc.deleteObjects(reset);
        if (cqp.cqpCreated()) {
            cqp.destroyCqp();
        }
        requests.dropPending();
        dpc.cancel();
        requests.stopWatchdog();
    }

    /**
     * The first step of a remove without the rest: the driver stops answering its vectors and stops its timers, and
     * leaves every queue it made on the device. A debugging and test aid (what a driver that lost its IRQs looks
     * like to the device); its CQP ops still work, completed by polling. {@link #tearDown()} is the whole remove.
     */
    public void stopAnsweringInterrupts() {
        dpc.stop();
        statistics.stopTimer();
    }

    /**
     * An AEQ of {@code entries} instead of irdma's size (before {@link #bringUp()}): a debugging and test aid, to see
     * what an overflowing AEQ does. hw.c irdma_create_aeq sizes it from the committed QPs and CQs; ctrl.c
     * irdma_sc_aeq_init takes any count from IRDMA_MIN_AEQ_ENTRIES (1) to IRDMA_MAX_AEQ_ENTRIES (user.h).
     *
     * @throws IllegalArgumentException outside those bounds
     */
    public IrdmaDriver withAeqEntries(int entries) {
        aeq.chooseEntries(entries);
        return this;
    }

    /**
     * Create the AEQ as hw.c irdma_create_aeq does when the coherent allocation fails (before {@link #bringUp()}):
     * on single pages, through a level-1 PBL (irdma_create_virt_aeq), Create AEQ with VMAP and chunk size 1.
     */
    public IrdmaDriver withVirtualAeq() {
        aeq.makeVirtual();
        return this;
    }

    /** Skip posting the ILQ receive buffers at bring-up (a test of the device's no-buffer drop). */
    public IrdmaDriver withoutIlqReceiveBuffers() {
        puda.withoutIlqReceiveBuffers();
        return this;
    }

    /** uk.c irdma_uk_qp_post_wr: PFPE_WQEALLOC with the QP id. */
    public void ringSqDoorbell(int qpId) {
        hw.write(Gen2Register.WQEALLOC, Gen2Registers.wqeAllocDoorbell(qpId));
    }

    /** uk.c irdma_uk_cq_request_notification: PFPE_CQARM with the CQ id (the arm word is in the shadow area). */
    public void ringCqArm(int cqId) {
        hw.write(Gen2Register.CQARM, Gen2Registers.cqArmDoorbell(cqId));
    }

    /** Allocates {@code bytes} of host memory for the caller (rings, contexts, buffers). */
    public long allocate(long bytes) {
        return hw.allocate(bytes);
    }

    /**
     * Where a reset request goes: once for the CQP causes (irdma_wait_event asks only while rf->reset is clear), and
     * for each overflowed AEQE (irdma_process_aeq asks without testing it).
     */
    public IrdmaDriver onResetRequest(ResetRequest hook) {
        resets.hook(hook);
        return this;
    }

    /** The CQP as the CM and the verbs use it (ctrl.c, utils.c): its commands, any op, and its counts. */
    public CqpCommands cqp() {
        return commands;
    }

    /** The function's HMC (hw.c irdma_hmc_setup, pble.c): what Commit FPM placed, its SDs, the PBLE resource. */
    public HmcSetup hmc() {
        return hmc;
    }

    /** dev->feature_info[] as ctrl.c irdma_get_rdma_features filled it at bring-up. */
    public RdmaFeatures features() {
        return features;
    }

    /** The ILQ and IEQ (puda.c): the CM's sends and what both queues counted. */
    public PudaQueues puda() {
        return puda;
    }

    /** The work-scheduler tree (ws.c) of the one TC this driver uses. */
    public WorkScheduler workScheduler() {
        return ws;
    }

    /** The CM's address handles (utils.c irdma_puda_create_ah / irdma_puda_free_ah, uda.c). */
    public AddressHandles addressHandles() {
        return ahs;
    }

    /** rf->reset: whether, how often and why the driver requested a reset ({@link #onResetRequest} says where). */
    public ResetRequests resets() {
        return resets;
    }

    /** The AEQ (hw.c irdma_create_aeq, irdma_process_aeq): its size, its PBL, its overflows. */
    public Aeq aeq() {
        return aeq;
    }
}

