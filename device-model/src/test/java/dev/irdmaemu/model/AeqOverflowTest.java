package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.CqpException;
import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.driver.ResetCause;
import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.driver.verbs.ProtectionDomain;
import dev.irdmaemu.driver.verbs.QpInit;
import dev.irdmaemu.driver.verbs.QueuePair;
import dev.irdmaemu.driver.verbs.VerbsException;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.Aeqe;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An AEQ too small for the AEs that come, on the real driver: the device writes while it holds credit (PFPE_AEQALLOC
 * gives it back), counts what finds none as lost and sets the overflow bit of the next AEQE it writes; the driver
 * that reads that AEQE does what hw.c irdma_process_aeq does: "AEQ has overflowed", rf->reset set, request_reset
 * called, and the pass ends without handing that AEQE's event up or reposting the pass's entries. Nothing escapes
 * the interrupt handler, nothing is left behind.
 */
class AeqOverflowTest {
    private static final int AE = AeCode.LLP_TOO_MANY_RETRIES.code();
    private final List<ResetCause> resets = new ArrayList<>();
    private DriverNode d;
    private final List<QueuePair> qps = new ArrayList<>();
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private int pagesBefore;

    @AfterEach
    void close() {
        d.close();
    }

    /** A node whose driver made an AEQ of {@code entries}, with {@code n} QPs of its verbs (IDLE, never connected). */
    private void node(int entries, int n) {
        d = new DriverNode(DriverNode.RAM_SIZE, new SimScheduler(7), drv -> drv.withAeqEntries(entries)
                .macAddress(DriverNode.DEFAULT_MAC).onResetRequest(resets::add));
        assertEquals(entries, d.driver.aeq().entries());
        assertEquals(entries, d.dev.aeq().size());
        d.run();
        pagesBefore = d.ram.pagesInUse();
        pd = d.verbs.allocatePd();
        cq = d.verbs.createCq(16);
        for (int i = 0; i < n; i++) {
            qps.add(d.verbs.createQp(QpInit.of(pd, cq, 16, 1)));
        }
        d.run();
    }

    /** The device raises an error AE for {@code qp} (IRDMA_AE_LLP_TOO_MANY_RETRIES, QP not in RTS). */
    private boolean errorAe(QueuePair qp) {
        return d.dev.aeq().post(0, qp.id(), AE, 0, 0, 0, 0);
    }

    private boolean handedUp(QueuePair qp) {
        return qp.lastAe() == AE;
    }

    /**
     * Every QP, CQ and PD destroyed through the verbs after the reset request: each destroy is refused with -EBUSY
     * (irdma_handle_cqp_op), and its host memory goes back all the same.
     */
    private void destroyAll() {
        for (QueuePair qp : qps) {
            assertEquals(VerbsException.Kind.BUSY, assertThrows(VerbsException.class, qp::destroy).kind());
        }
        assertEquals(VerbsException.Kind.BUSY, assertThrows(VerbsException.class, cq::destroy).kind());
        d.verbs.deallocatePd(pd);
        d.run();
        assertEquals(0, d.verbs.qpsInUse());
        assertEquals(0, d.verbs.cqsInUse());
        assertEquals(pagesBefore, d.ram.pagesInUse(), "the verbs' host memory went back");
        assertEquals(0, d.driver.cqp().requestsPending());
    }

    @Test
    void aOneEntryAeqFloodedByManyQpsErrorsGivesOneResetRequestAndNothingEscapes() {
        node(1, 4);
        long lost = d.dev.aeq().lost();
        // a burst before the driver runs: the first AE takes the only entry, the other three find no credit
        for (QueuePair qp : qps) {
            errorAe(qp);
        }
        assertEquals(lost + 3, d.dev.aeq().lost());
        d.run();
        assertTrue(handedUp(qps.get(0)));
        assertEquals(1, d.dev.aeq().credit(), "the driver gave the entry back (PFPE_AEQALLOC)");
        assertFalse(d.driver.resets().requested(), "no AEQE has said so yet");
        // the next AE is written with the overflow bit: the driver requests the reset and drops the event
        assertTrue(errorAe(qps.get(1)));
        Aeqe written = new Aeqe().wrap(d.store(), d.off(d.dev.aeq().ringAddress()), Aeqe.SIZE);
        assertTrue(written.overflow());
        d.run();
        assertTrue(d.driver.resets().requested());
        assertEquals(1, d.driver.resets().requests());
        assertEquals(1, d.driver.aeq().overflows());
        assertEquals(1, resets.size());
        assertEquals(ResetCause.Reason.AEQ_OVERFLOW, resets.get(0).reason());
        assertEquals(resets.get(0), d.driver.resets().cause());
        assertFalse(handedUp(qps.get(1)), "irdma_process_aeq returns before the overflowed AEQE's event");
        assertEquals(0, d.dev.aeq().credit(), "and before irdma_sc_repost_aeq_entries");
        // more AEs find no credit; no AEQE is written, so no further request
        for (QueuePair qp : qps.subList(2, 4)) {
            assertFalse(errorAe(qp));
        }
        d.run();
        assertEquals(1, d.driver.resets().requests());
        assertFalse(handedUp(qps.get(2)));
        // every op is refused from now on (irdma_handle_cqp_op), the verbs still free what they hold
        assertEquals(CqpException.Kind.RESET_REQUESTED, assertThrows(CqpException.class, d.driver.cqp()::nop).kind());
        destroyAll();
        // the remove path issues no CQP op either
        d.sink.clear();
        d.driver.tearDown();
        assertEquals(0, d.sink.of(TraceKind.CQP_OP).size());
    }

    @Test
    void theEntriesAfterTheOverflowedOneAreHandledByTheNextPassAndItsSlotIsNeverGivenBack() {
        node(4, 8);
        for (QueuePair qp : qps.subList(0, 6)) {
            errorAe(qp);
        }
        d.run();
        for (int i = 0; i < 4; i++) {
            assertTrue(handedUp(qps.get(i)), "QP " + i);
        }
        assertEquals(4, d.dev.aeq().credit());
        assertFalse(d.driver.resets().requested());
        // three AEs in one burst: the first carries the overflow bit, the two after it do not
        for (QueuePair qp : qps.subList(5, 8)) {
            assertTrue(errorAe(qp));
        }
        d.run();
        assertEquals(1, d.driver.aeq().overflows());
        assertEquals(1, resets.size());
        assertFalse(handedUp(qps.get(4)), "lost in the flood");
        assertFalse(handedUp(qps.get(5)), "the overflowed AEQE's event is dropped");
        assertTrue(handedUp(qps.get(6)), "the AEQ's vector came again: the next pass took the rest");
        assertTrue(handedUp(qps.get(7)));
        // their QPs went to ERROR as irdma's default branch wants: the Modify QP was refused after the reset
        // request, and nothing escaped the handler
        assertEquals(3, d.dev.aeq().credit(), "the overflowed AEQE's slot was never handed back");
        assertNotEquals(0, d.dev.aeq().lost());
        destroyAll();
    }
}
