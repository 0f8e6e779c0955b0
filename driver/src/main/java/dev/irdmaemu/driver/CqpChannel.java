package dev.irdmaemu.driver;

import static dev.irdmaemu.driver.IrdmaDriver.CCQ_ENTRIES;
import static dev.irdmaemu.driver.IrdmaDriver.CCQ_ID;
import static dev.irdmaemu.driver.IrdmaDriver.CQP_COMPLETION_CONTEXT;
import static dev.irdmaemu.driver.IrdmaDriver.CQP_COMPL_WAIT_NANOS;
import static dev.irdmaemu.driver.IrdmaDriver.CQP_ENTRIES;
import static dev.irdmaemu.driver.IrdmaDriver.CQP_TIMEOUT_NANOS;
import static dev.irdmaemu.driver.IrdmaDriver.CQP_TIMEOUT_THRESHOLD;

import dev.irdmaemu.fw.cqp.CqOpFields;
import dev.irdmaemu.fw.cqp.CqpCompletion;
import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.fw.cqp.CqpHostContext;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.fw.sim.SimScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control QP and its completion queue as ctrl.c and utils.c drive them: the CQP created through
 * PFPE_CCQPHIGH / LOW / STATUS (irdma_sc_cqp_init / irdma_sc_cqp_create, after irdma_wait_pe_ready), its SQ
 * (irdma_sc_cqp_get_next_send_wqe_idx, irdma_sc_cqp_post_sq), the CCQ (hw.c irdma_create_ccq, CQ 0), and the wait for
 * an op (utils.c irdma_handle_cqp_op and irdma_wait_event, ctrl.c irdma_check_cqp_progress,
 * irdma_sc_ccq_get_cqe_info; before the CCQ, irdma_cqp_poll_registers). Requests posted without waiting and their
 * callbacks are {@link CqpRequests}'.
 */
final class CqpChannel {
    private static final Logger LOG = LoggerFactory.getLogger(IrdmaDriver.class);

    private final IrdmaHw hw;
    private final SimScheduler scheduler;
    private final ResetRequests resets;
    private CqpRequests requests;
    private IrdmaDpc dpc;
    private final CqpCompletion completion = new CqpCompletion();
    private final CqOpFields cqf = new CqOpFields();
    // CQP SQ (ctrl.c irdma_sc_cqp_get_next_send_wqe_idx: polarity flips when the head wraps to 0)
    private long sq;
    private int head;
    private boolean polarity;
    // CCQ (CQ 0)
    private long ccqRing;
    private long ccqShadow;
    private int ccqHead;
    private boolean ccqPolarity = true;
    private boolean ccqLive;
    // the CQP's lifetime (hw.c init_state for irdma_ctrl_deinit_hw) and its progress counters (ctrl.c)
    private boolean cqpCreated;
    private boolean ccqCreated;
    /** cqp->completed_ops: CCQ CQEs taken and register-polled completions seen. */
    private long completedOps;
    private long opsPosted;
    private int opDepth;

    CqpChannel(IrdmaHw hw, ResetRequests resets) {
        this.hw = hw;
        this.scheduler = hw.scheduler;
        this.resets = resets;
    }

    void wire(CqpRequests r, IrdmaDpc handler) {
        this.requests = r;
        this.dpc = handler;
    }

    // ------------------------------------------------------------------ lifetime

    /** ctrl.c irdma_wait_pe_ready: GLPE_CPUSTATUS0..2 must read 0x80, polled with a bound. */
    void waitPeReady() {
        long limit = scheduler.now() + CQP_TIMEOUT_NANOS;
        while (!(hw.reg(Gen2Register.GLPE_CPUSTATUS0) == Gen2Registers.CPUSTATUS_READY
                && hw.reg(Gen2Register.GLPE_CPUSTATUS1) == Gen2Registers.CPUSTATUS_READY
                && hw.reg(Gen2Register.GLPE_CPUSTATUS2) == Gen2Registers.CPUSTATUS_READY)) {
            if (!scheduler.runNext() || scheduler.now() > limit) {
                throw new CqpException(CqpException.Kind.PE_NOT_READY, "wait_pe_ready", 0, 0);
            }
        }
    }

    /** hw.c irdma_create_cqp + ctrl.c irdma_sc_cqp_init / irdma_sc_cqp_create: host context, SQ, CCQPHIGH/LOW. */
    void createCqp() {
        sq = hw.allocate((long) CQP_ENTRIES * CqpWqe.SIZE);
        long ctx = hw.allocate(CqpHostContext.SIZE);
        CqpHostContext.Fields f = new CqpHostContext.Fields();
        f.sqEntries = CQP_ENTRIES;
        f.sqBase = sq;
        f.hmcProfile = 1;
        f.protocolUsed = 1; // iWARP
        f.hwMajorVersion = CqpHostContext.HW_MAJVER_GEN_2;
        f.completionContext = CQP_COMPLETION_CONTEXT;
        CqpHostContext.write(hw.store, hw.off(ctx), f);
        head = 0;
        polarity = false;
        hw.write(Gen2Register.CQPTAIL, 0);
        hw.write(Gen2Register.CQPDB, 0);
        hw.write(Gen2Register.CCQPSTATUS, 0);
        hw.write(Gen2Register.CCQPHIGH, (int) (ctx >>> 32));
        hw.write(Gen2Register.CCQPLOW, (int) ctx);
        long limit = scheduler.now() + CQP_TIMEOUT_NANOS;
        int status;
        while (!Gen2Registers.ccqpDone(status = hw.reg(Gen2Register.CCQPSTATUS))) {
            if (!scheduler.runNext() || scheduler.now() > limit) {
                throw new CqpException(CqpException.Kind.CQP_CREATE_FAILED, "cqp_create", 0, 0);
            }
        }
        if (Gen2Registers.ccqpError(status)) {
            int codes = hw.reg(Gen2Register.CQPERRCODES);
            throw new CqpException(CqpException.Kind.CQP_CREATE_FAILED, "cqp_create",
                    Gen2Registers.cqpErrMajor(codes), Gen2Registers.cqpErrMinor(codes));
        }
        cqpCreated = true;
    }

    /**
     * ctrl.c irdma_sc_cqp_destroy: PFPE_CCQPHIGH and PFPE_CCQPLOW zeroed, then PFPE_CCQPSTATUS polled until
     * CCQP_DONE clears (bounded; a timeout is only logged, as hw.c irdma_destroy_cqp does).
     */
    void destroyCqp() {
        cqpCreated = false;
        hw.write(Gen2Register.CCQPHIGH, 0);
        hw.write(Gen2Register.CCQPLOW, 0);
        long limit = scheduler.now() + CQP_TIMEOUT_NANOS;
        while (Gen2Registers.ccqpDone(hw.reg(Gen2Register.CCQPSTATUS))) {
            if (!scheduler.runNext() || scheduler.now() > limit) {
                LOG.debug("teardown: PFPE_CCQPSTATUS still done after the CQP destroy");
                return;
            }
        }
    }

    /** hw.c irdma_create_ccq: CQ 0 on CEQ 0; its own completion is the first one read from it. */
    void createCcq() {
        ccqRing = hw.allocate((long) CCQ_ENTRIES * Cqe.SIZE);
        ccqShadow = hw.allocate(64);
        ccqHead = 0;
        ccqPolarity = true;
        CeqZeroCq.fields(cqf, CCQ_ID, CCQ_ENTRIES, ccqRing, ccqShadow).checkOverflow = true;
        cqf.shadowReadThreshold = 16;
        ccqLive = true;
        try {
            op("CREATE_CQ", (o, v) -> CqpWqeWriter.createCq(hw.store, o, cqf, v));
        } catch (CqpException e) {
            ccqLive = false;
            throw e;
        }
        ccqCreated = true;
    }

    /**
     * hw.c irdma_destroy_ccq: without a reset, ctrl.c irdma_sc_ccq_destroy, whose completion cannot come through
     * the CCQ being destroyed: it polls PFPE_CQPTAIL (irdma_cqp_poll_registers). The ops after it are register-polled
     * too (irdma_update_sds_noccq).
     */
    void destroyCcq(boolean reset) {
        ccqLive = false;
        ccqCreated = false;
        if (!reset) {
            cqf.clear();
            cqf.cqId = CCQ_ID;
            cqf.cqSize = CCQ_ENTRIES;
            cqf.shadowAreaAddress = ccqShadow;
            cqf.ceqId = 0;
            cqf.ceqIdValid = true;
            teardownOp("DESTROY_CQ", (o, v) -> CqpWqeWriter.destroyCcq(hw.store, o, cqf, v));
        }
    }

    /** ctrl.c irdma_sc_ccq_arm. */
    void armCcq() {
        hw.armCq(CCQ_ID, ccqShadow);
    }

    boolean cqpCreated() {
        return cqpCreated;
    }

    boolean ccqCreated() {
        return ccqCreated;
    }

    /** The CCQ takes completions (between its create and its destroy). */
    boolean ccqLive() {
        return ccqLive;
    }

    // ------------------------------------------------------------------ posting and waiting

    /**
     * utils.c irdma_handle_cqp_op with wait: posts one CQP WQE, rings PFPE_CQPDB and runs the scheduler until its
     * completion (ctrl.c irdma_sc_cqp_post_sq + irdma_sc_poll_for_cqp_op_done). Answers the completion, which stays
     * valid until its WQE index is reused.
     */
    CcqCqeInfo op(String name, IrdmaDriver.WqeWriter writer) {
        return await(name, writer, true);
    }

    /**
     * As {@link #op}, but an error completion is answered (its codes in the {@link CcqCqeInfo}) rather than thrown,
     * for the ops whose caller expects one as an ordinary outcome (a Flush WQEs with nothing posted): irdma's
     * callers read the status irdma_handle_cqp_op returns. The reset a 0xffff/0x8029 completion requests is
     * requested all the same; a timeout or a refused post still throws.
     */
    CcqCqeInfo answer(String name, IrdmaDriver.WqeWriter writer) {
        return await(name, writer, false);
    }

    private CcqCqeInfo await(String name, IrdmaDriver.WqeWriter writer, boolean throwOnError) {
        resets.refuseAfterReset(name);
        opDepth++;
        try {
            int index = postWqe(writer);
            CcqCqeInfo c = ccqLive ? waitEvent(name, index) : pollRegisters(name);
            if (c.error()) {
                if (throwOnError) {
                    throw waitedOpFailed(name, c.majorCode(), c.minorCode());
                }
                if (CqpFault.FATAL_RESET.is(c.majorCode(), c.minorCode())) {
                    resetIfFatal(name, c.majorCode(), c.minorCode(),
                            new CqpException(CqpException.Kind.OP_ERROR, name, c.majorCode(), c.minorCode()));
                }
            }
            return c;
        } finally {
            opDepth--;
            if (opDepth == 0) {
                dpc.kickIfDeferred();
            }
        }
    }

    /** A teardown op: refused or timed out, it is logged and the teardown goes on (hw.c's ibdev_dbg "ERR: ..."). */
    void teardownOp(String name, IrdmaDriver.WqeWriter writer) {
        try {
            op(name, writer);
        } catch (CqpException e) {
            LOG.debug("teardown: {} failed: {}", name, e.getMessage());
        }
    }

    /**
     * irdma_handle_cqp_op for a request allocated with wait = false: posts the WQE, rings PFPE_CQPDB and returns
     * without waiting; the completion runs {@code callback} from the interrupt handler. Answers the WQE index.
     */
    int post(String name, IrdmaDriver.WqeWriter writer, IrdmaDriver.CqpCallback callback) {
        if (!ccqLive) {
            throw new IllegalStateException(name + " posted without waiting before the CCQ exists");
        }
        resets.refuseAfterReset(name);
        int index = postWqe(writer);
        requests.posted(index, name, callback);
        return index;
    }

    /** A CQP op is being waited for: the interrupt handler must not run inside it. */
    boolean inOp() {
        return opDepth > 0;
    }

    /** ctrl.c irdma_sc_cqp_get_next_send_wqe_idx + irdma_sc_cqp_post_sq: the WQE written, PFPE_CQPDB rung. */
    private int postWqe(IrdmaDriver.WqeWriter writer) {
        opsPosted++;
        int index = head;
        if (head == 0) {
            polarity = !polarity;
        }
        head = (head + 1) % CQP_ENTRIES;
        requests.reuse(index);
        writer.write(hw.off(sq + (long) index * CqpWqe.SIZE), polarity);
        hw.write(Gen2Register.CQPDB, Gen2Registers.cqpDoorbell(head));
        return index;
    }

    /**
     * ctrl.c irdma_cqp_poll_registers: PFPE_CQPTAIL moves past the WQE (success), or CQP_OP_ERR with
     * PFPE_CQPERRCODES; bounded by {@link IrdmaDriver#CQP_TIMEOUT_NANOS}. A timeout here is the op's -ETIMEDOUT
     * only: irdma requests no reset from this path.
     */
    private CcqCqeInfo pollRegisters(String name) {
        long limit = scheduler.now() + CQP_TIMEOUT_NANOS;
        while (true) {
            int tail = hw.reg(Gen2Register.CQPTAIL);
            if (Gen2Registers.cqpTailError(tail)) {
                int codes = hw.reg(Gen2Register.CQPERRCODES);
                throw new CqpException(CqpException.Kind.OP_ERROR, name, Gen2Registers.cqpErrMajor(codes),
                        Gen2Registers.cqpErrMinor(codes));
            }
            if (Gen2Registers.cqpTailIndex(tail) == head) {
                completedOps++;
                return CcqCqeInfo.REGISTER_POLLED;
            }
            long next = scheduler.nextDeadline();
            if (next == Long.MAX_VALUE || next > limit || !scheduler.runNext()) {
                throw new CqpException(CqpException.Kind.TIMEOUT, name, 0, 0);
            }
        }
    }

    /**
     * utils.c irdma_wait_event: poll the CCQ (irdma_cqp_ce_handler), run the simulated machine for at most
     * {@link IrdmaDriver#CQP_COMPL_WAIT_NANOS} (wait_for_completion_timeout; it returns at once when the completion
     * comes), and after each step without it ctrl.c irdma_check_cqp_progress: any completion since the last step
     * resets the count, none while requests are outstanding raises it. At {@link IrdmaDriver#CQP_TIMEOUT_THRESHOLD}
     * the op fails with {@link CqpException.Kind#TIMEOUT} and the driver requests a reset
     * ({@link CqpRequests#timedOut}). Time passes even when nothing is scheduled (the kernel sleeps), so a completion
     * that cannot come costs 5 s of simulated time and 500 steps, never a hang. Allocates nothing on the way.
     */
    private CcqCqeInfo waitEvent(String name, int index) {
        long seen = completedOps;
        int count = 0;
        long stepEnd = scheduler.now() + CQP_COMPL_WAIT_NANOS;
        while (true) {
            if (pollCcq(name, index) instanceof CcqCqeInfo done) {
                return done;
            }
            if (scheduler.nextDeadline() <= stepEnd && scheduler.runNext()) {
                continue;
            }
            // a whole step passed without this op's completion: irdma_check_cqp_progress
            scheduler.runUntil(stepEnd);
            if (pollCcq(name, index) instanceof CcqCqeInfo done) {
                return done;
            }
            if (completedOps != seen) {
                seen = completedOps;
                count = 0;
            } else if (seen != opsPosted) {
                count++;
            }
            if (count >= CQP_TIMEOUT_THRESHOLD) {
                CqpException e = new CqpException(CqpException.Kind.TIMEOUT, name, 0, 0);
                requests.timedOut(e);
                throw e;
            }
            stepEnd += CQP_COMPL_WAIT_NANOS;
        }
    }

    /** ctrl.c irdma_sc_ccq_get_cqe_info: the completion of the request at {@code index}, or NOT_YET. */
    private CcqPoll pollCcq(String name, int index) {
        while (true) {
            if (requests.takeKept(index) instanceof CcqCqeInfo kept) {
                // a nested op's wait polled this one's completion
                return kept;
            }
            if (!takeCcqCqe()) {
                return CcqPoll.Empty.NOT_YET;
            }
            int wqe = completion.wqeIndex();
            if (wqe == index) {
                return requests.slot(wqe).set(wqe, completion.error(), completion.majorCode(),
                        completion.minorCode(), completion.opReturnValue());
            }
            if (wqe < 0 || wqe >= CQP_ENTRIES) {
                LOG.warn("CCQ completion for WQE {} while waiting for {} ({})", wqe, index, name);
                continue;
            }
            // a request posted without waiting: its callback runs from the handler once this op is done
            recordTaken(wqe);
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
        if (CqpFault.INVALID_STATE.is(major, minor)) {
            return new CqpException(CqpException.Kind.BUSY, name, major, minor);
        }
        CqpException e = new CqpException(CqpException.Kind.OP_ERROR, name, major, minor);
        resetIfFatal(name, major, minor, e);
        return e;
    }

    /** A 0xffff/0x8029 completion makes the driver request a reset, once (utils.c irdma_wait_event). */
    private void resetIfFatal(String name, int major, int minor, CqpException cause) {
        if (CqpFault.FATAL_RESET.is(major, minor) && !resets.requested()) {
            LOG.warn("{} completed with major 0x{} minor 0x{}; requesting a reset", name, Integer.toHexString(major),
                    Integer.toHexString(minor));
            resets.request(ResetCause.of(ResetCause.Reason.CQP_FATAL_ERROR, cause), true);
        }
    }

    /**
     * Takes the CCQ CQE at the head if the device has written it (its valid bit is the current polarity): the head
     * moves on, wrapping with a polarity flip, and the new head goes to the shadow area (ctrl.c
     * irdma_sc_ccq_get_cqe_info). The CQE's fields stay readable in {@link #completion}: nothing writes the slot
     * before the ring wraps. False when no CQE is there yet.
     */
    private boolean takeCcqCqe() {
        completion.wrap(hw.store, hw.off(ccqRing + (long) ccqHead * CqpCompletion.SIZE));
        if (completion.valid() != ccqPolarity) {
            return false;
        }
        ccqHead++;
        if (ccqHead == CCQ_ENTRIES) {
            ccqHead = 0;
            ccqPolarity = !ccqPolarity;
        }
        hw.store.writeLong(hw.off(ccqShadow), ccqHead);
        // ctrl.c irdma_sc_ccq_get_cqe_info: atomic64_inc(&cqp->completed_ops)
        completedOps++;
        return true;
    }

    private void recordTaken(int wqe) {
        requests.record(wqe, completion.error(), completion.majorCode(), completion.minorCode(),
                completion.opReturnValue());
    }

    /**
     * hw.c irdma_cqp_ce_handler: every valid CCQ CQE to its request; the callbacks of those posted without waiting
     * (irdma_complete_cqp_request) are queued for {@link CqpRequests#runDue}.
     */
    void takeCcqCompletions() {
        while (takeCcqCqe()) {
            int wqe = completion.wqeIndex();
            if (wqe < 0 || wqe >= CQP_ENTRIES) {
                LOG.warn("CCQ completion for WQE {} out of range", wqe);
                continue;
            }
            recordTaken(wqe);
        }
    }

    /** The CQP WQE index of the WQE at store offset {@code storeOffset} (for the per-WQE SD buffer slot). */
    int wqeIndexAt(long storeOffset) {
        return (int) ((storeOffset - hw.off(sq)) / CqpWqe.SIZE);
    }

    /** The next WQE index to be used. */
    int head() {
        return head;
    }

    long opsPosted() {
        return opsPosted;
    }

    long completedOps() {
        return completedOps;
    }
}
