package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.CqpException;
import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.driver.ResetCause;
import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.driver.verbs.VerbsException;
import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.QpOpFields;
import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the driver does with a waited op's error completion, as utils.c irdma_wait_event ends: -EIO in general,
 * -EBUSY for major 0xffff minor 0x8002 ("Invalid State"), and for 0xffff/0x8029 -EIO plus a reset request made once,
 * exactly as a CQP timeout makes it (rf->reset set, request_reset called, every later op refused). A request posted
 * without waiting only hands its codes to its callback (hw.c irdma_complete_cqp_request). The model answers 0x8002
 * for a QP state transition it does not allow; 0x8029 has no meaning in the kernel beyond the reset, so no model
 * condition answers it and the host's fault injection ({@code CqpEngine.failNextOp}) provokes it.
 */
class CqpErrorCompletionResetTest {
    private final DriverNode d = new DriverNode();
    private final CqpOps ops = new CqpOps(d);
    private final List<ResetCause> resets = new ArrayList<>();

    CqpErrorCompletionResetTest() {
        d.driver.onResetRequest(resets::add);
    }

    @AfterEach
    void close() {
        d.close();
    }

    private IrdmaDriver.WqeWriter nop() {
        return (o, v) -> CqpWqeWriter.nop(d.store(), o, v);
    }

    @Test
    void theModelsInvalidStateIsBusyAndRequestsNoReset() {
        // a QP of the model's own (CqpOps), IDLE: IDLE -> CLOSING is no transition, the model answers 0xffff/0x8002
        assertFalse(ops.createCq(30, 16, 0, true).error());
        assertFalse(ops.createQp(10, QueuePair.TYPE_IWARP, 1, false, ctx -> ops.writeIwarpContext(ctx, 30, 30, null))
                .error());
        QpOpFields f = new QpOpFields();
        f.qpId = 10;
        f.qpType = QueuePair.TYPE_IWARP;
        f.nextIwarpState = QpState.CLOSING.code();
        CqpException e = assertThrows(CqpException.class,
                () -> d.driver.cqp().op("MODIFY_QP", (o, v) -> CqpWqeWriter.modifyQp(d.store(), o, f, v)));
        assertEquals(CqpException.Kind.BUSY, e.kind(), "irdma_wait_event: -EBUSY, not -EIO");
        assertTrue(e.errorCompletion());
        assertEquals(CqpFault.INVALID_STATE.major(), e.major());
        assertEquals(CqpFault.INVALID_STATE.minor(), e.minor());
        assertFalse(d.driver.resets().requested());
        assertEquals(QpState.IDLE, d.dev.qps().get(10).state());
        d.driver.cqp().nop();
        assertFalse(ops.destroyQp(10, QueuePair.TYPE_IWARP, true).error());
        assertFalse(ops.destroyCq(30).error());
    }

    @Test
    void anInjectedInvalidStateOnAVerbIsItsEbusy() {
        d.dev.cqp().failNextOp(CqpOpcode.CREATE_CQ, CqpFault.INVALID_STATE);
        int pages = d.ram.pagesInUse();
        int cqs = d.dev.cqs().liveCount();
        VerbsException e = assertThrows(VerbsException.class, () -> d.verbs.createCq(16));
        assertEquals(VerbsException.Kind.BUSY, e.kind());
        assertEquals(-16, e.kind().errno());
        assertEquals(CqpException.Kind.BUSY, e.cqpError().kind());
        assertEquals(pages, d.ram.pagesInUse(), "the refused CQ's ring went back");
        assertEquals(cqs, d.dev.cqs().liveCount(), "the model made no CQ: the op was not run");
        assertFalse(d.driver.resets().requested());
        // another error completion stays -EIO
        d.dev.cqp().failNextOp(CqpOpcode.CREATE_CQ, CqpFault.INVALID_FIELD);
        VerbsException eio = assertThrows(VerbsException.class, () -> d.verbs.createCq(16));
        assertEquals(VerbsException.Kind.DEVICE_ERROR, eio.kind());
        assertEquals(CqpException.Kind.OP_ERROR, eio.cqpError().kind());
        CompletionQueue cq = d.verbs.createCq(16);
        cq.destroy();
    }

    @Test
    void aWaitedOpAnsweredWith8029FailsAndRequestsOneResetAsATimeoutDoes() {
        long before = d.scheduler.now();
        d.dev.cqp().failNextOp(CqpOpcode.MANAGE_APBVT, CqpFault.FATAL_RESET);
        d.driver.cqp().nop();
        assertTrue(d.dev.cqp().failArmed(), "the knob waits for the op it names");
        assertFalse(d.driver.resets().requested());
        CqpException e = assertThrows(CqpException.class, () -> d.driver.cqp().manageApbvt(4791, true));
        assertEquals(CqpException.Kind.OP_ERROR, e.kind(), "irdma_wait_event: still -EIO");
        assertEquals(0xffff, e.major());
        assertEquals(0x8029, e.minor());
        assertTrue(d.scheduler.now() - before < IrdmaDriver.CQP_COMPL_WAIT_NANOS, "answered, not timed out");
        assertEquals(0, d.dev.apbvt().size(), "the device did not run the op");
        assertTrue(d.driver.resets().requested());
        assertEquals(1, d.driver.resets().requests());
        assertEquals(0, d.driver.cqp().timeouts());
        assertEquals(1, resets.size(), "request_reset called once");
        ResetCause cause = resets.get(0);
        assertEquals(ResetCause.Reason.CQP_FATAL_ERROR, cause.reason());
        assertEquals("MANAGE_APBVT", cause.op());
        assertEquals(0x8029, cause.minor());
        assertEquals(cause, d.driver.resets().cause());
        var faults = d.sink.of(TraceKind.FAULT_INJECTED);
        assertEquals(1, faults.size());
        assertEquals("failed_completion", faults.get(0).get("fault"));
        assertEquals("MANAGE_APBVT", faults.get(0).get("op"));
        assertFalse(d.dev.cqp().failArmed(), "once only");

        // irdma_handle_cqp_op: with rf->reset set nothing more is posted, waited or not
        long posted = d.driver.cqp().opsPosted();
        CqpException refused = assertThrows(CqpException.class, () -> d.driver.cqp().nop());
        assertEquals(CqpException.Kind.RESET_REQUESTED, refused.kind());
        assertThrows(CqpException.class, () -> d.driver.cqp().post("NOP", nop(), (err, ma, mi, ret) -> { }));
        VerbsException verb = assertThrows(VerbsException.class, () -> d.verbs.createCq(16));
        assertEquals(VerbsException.Kind.BUSY, verb.kind(), "irdma_handle_cqp_op's -EBUSY");
        assertEquals(posted, d.driver.cqp().opsPosted());
        assertEquals(1, resets.size());

        // the remove path after it issues no CQP op (hw.c skips them while rf->reset is set)
        d.sink.clear();
        d.driver.tearDown();
        assertEquals(0, d.sink.of(TraceKind.CQP_OP).size());
        assertEquals(0, d.sink.of(TraceKind.CQP_ERROR).size());
        assertFalse(d.dev.cqp().created());
    }

    @Test
    void aPostedRequestAnsweredWith8029OnlyTellsItsCallback() {
        List<String> completions = new ArrayList<>();
        d.dev.cqp().failNextOp(CqpOpcode.NOP, CqpFault.FATAL_RESET);
        d.driver.cqp().post("NOP", nop(), (err, ma, mi, ret) -> completions.add(err + " " + Integer.toHexString(ma)
                + "/" + Integer.toHexString(mi)));
        d.run();
        assertEquals(List.of("true ffff/8029"), completions);
        assertFalse(d.driver.resets().requested(), "irdma_complete_cqp_request looks at no code");
        assertTrue(resets.isEmpty());
        d.driver.cqp().nop();
    }

    @Test
    void aRequestPostedBeforeAn8029ResetIsStillWatchedAndFailedWhenItsCompletionNeverComes() {
        List<CqpException> failed = new ArrayList<>();
        List<Boolean> completed = new ArrayList<>();
        IrdmaDriver.CqpCallback cb = new IrdmaDriver.CqpCallback() {
            @Override
            public void completed(boolean error, int major, int minor, long ret) {
                completed.add(error);
            }

            @Override
            public void failed(CqpException cause) {
                failed.add(cause);
            }
        };
        d.dev.cqp().withholdNextCompletion(CqpOpcode.NOP);
        d.driver.cqp().post("NOP", nop(), cb);
        d.dev.cqp().failNextOp(CqpOpcode.MANAGE_APBVT, CqpFault.FATAL_RESET);
        assertThrows(CqpException.class, () -> d.driver.cqp().manageApbvt(4791, true));
        assertTrue(d.driver.resets().requested());
        assertEquals(1, d.driver.cqp().requestsPending());
        // nothing will wait for the posted NOP any more: the progress check over posted requests gives up on it
        d.scheduler.runFor((IrdmaDriver.CQP_TIMEOUT_THRESHOLD + 2) * IrdmaDriver.CQP_COMPL_WAIT_NANOS);
        assertEquals(1, failed.size());
        assertEquals(CqpException.Kind.TIMEOUT, failed.get(0).kind());
        assertTrue(completed.isEmpty());
        assertEquals(0, d.driver.cqp().requestsPending());
        assertEquals(1, d.driver.cqp().timeouts());
        assertEquals(1, resets.size(), "the timeout asks for no second reset: rf->reset was already set");
        assertEquals(ResetCause.Reason.CQP_FATAL_ERROR, d.driver.resets().cause().reason());
    }

    @Test
    void theKnobTakesOnlyAnError() {
        assertThrows(IllegalArgumentException.class, () -> d.dev.cqp().failNextOp(null, CqpFault.NONE));
        assertThrows(IllegalArgumentException.class, () -> d.dev.cqp().failNextOp(null, null));
        assertFalse(d.dev.cqp().failArmed());
        // unfiltered, it takes the very next op; the op after it runs
        d.dev.cqp().failNextOp(null, CqpFault.INVALID_STATE);
        CqpException e = assertThrows(CqpException.class, () -> d.driver.cqp().nop());
        assertEquals(CqpException.Kind.BUSY, e.kind());
        assertEquals(1, d.dev.cqp().failedOnPurpose());
        d.driver.cqp().nop();
        assertNull(d.driver.resets().cause());
    }
}
