package dev.irdmaemu.bridge.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.model.ModelNode;
import dev.irdmaemu.bridge.model.ModelPair;
import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmListener;
import dev.irdmaemu.cm.CmNode;
import dev.irdmaemu.cm.CmStatus;
import dev.irdmaemu.cm.ConnectParams;
import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.fw.pcap.FrameTap;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.RecordingTraceSink.Recorded;
import dev.irdmaemu.model.trace.TraceKind;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Which address-handle ops irdma.ko 7.3 waits for, as the model's trace shows it (a CQP op's trace event is written
 * when the model completes it; a driver that waits rings no other doorbell and touches no other register before
 * that): cm.c irdma_connect creates the active side's AH with wait = true; irdma_handle_syn_pkt creates the passive
 * side's with wait = false, and its completion (utils.c irdma_ilq_ah_cb) adds the established qhash entry whose
 * completion sends the SYN-ACK; every irdma_cm_free_ah (utils.c irdma_puda_free_ah) posts DESTROY_ADDR_HANDLE and
 * does not wait, so irdma_accept's Modify QP to RTS is posted before the destroy completes.
 */
class AddressHandleWaitIntegrationTest {
    private static final int PORT = 4791;
    private static final long LIMIT = 60_000_000_000L;

    private static boolean cqpOp(Recorded e, String op) {
        return e.kind() == TraceKind.CQP_OP && op.equals(e.get("op"));
    }

    private static boolean regWrite(Recorded e, String reg) {
        return e.kind() == TraceKind.REG_WRITE && reg.equals(e.get("reg"));
    }

    private static int first(List<Recorded> ev, int from, Predicate<Recorded> p) {
        for (int i = from; i < ev.size(); i++) {
            if (p.test(ev.get(i))) {
                return i;
            }
        }
        return -1;
    }

    /** The PFPE_CQPDB write that posted the op traced at {@code opAt} (the doorbell carries the next head). */
    private static int doorbellOf(List<Recorded> ev, int opAt) {
        int wqe = Integer.parseInt(ev.get(opAt).get("wqe"));
        long head = (wqe + 1) % 2048;
        for (int i = opAt - 1; i >= 0; i--) {
            if (regWrite(ev.get(i), "CQPDB") && (Long.decode(ev.get(i).get("val")) & 0x7ff) == head) {
                return i;
            }
        }
        throw new AssertionError("no doorbell for WQE " + wqe);
    }

    private static boolean anyBetween(List<Recorded> ev, int from, int to, Predicate<Recorded> p) {
        for (int i = from + 1; i < to; i++) {
            if (p.test(ev.get(i))) {
                return true;
            }
        }
        return false;
    }

    @Test
    void thePassiveSideDoesNotWaitForItsAhAndNoSideWaitsForADestroy() {
        RecordingTraceSink sinkA = new RecordingTraceSink();
        RecordingTraceSink sinkB = new RecordingTraceSink();
        try (ModelPair pair = new ModelPair(FrameTap.NONE, sinkA, sinkB)) {
            sinkA.clear();
            sinkB.clear();
            CmNode[] accepted = new CmNode[1];
            CmListener listener = pair.b.cm.listen(CmPair.B_V4.withPort(PORT), 8, e -> {
                if (e.type() == CmEventType.CONNECT_REQUEST) {
                    accepted[0] = e.node();
                    pair.b.cm.accept(e.node(), "b".getBytes(StandardCharsets.UTF_8));
                }
            });
            boolean[] replied = new boolean[1];
            CmNode c = pair.a.cm.connect(CmPair.A_V4.withPort(50000), CmPair.B_V4.withPort(PORT),
                    ConnectParams.of("a".getBytes(StandardCharsets.UTF_8), 16, 8),
                    e -> replied[0] |= e.type() == CmEventType.CONNECT_REPLY && e.status() == CmStatus.OK);
            assertTrue(pair.runUntilIdle(LIMIT));
            assertTrue(replied[0], "connected");

            // passive: CREATE_ADDR_HANDLE posted from the ILQ receive, and the handler went on (re-armed the ILQ
            // CQ, enabled the vectors) before the op completed
            List<Recorded> b = sinkB.events();
            int create = first(b, 0, e -> cqpOp(e, "CREATE_ADDR_HANDLE"));
            int createDb = doorbellOf(b, create);
            assertTrue(anyBetween(b, createDb, create, e -> regWrite(e, "CQARM")),
                    "the ILQ CQ re-armed while the AH's create was in flight");
            assertFalse(anyBetween(b, createDb, create, e -> regWrite(e, "CQPDB")), "no other op posted meanwhile");
            // its completion (irdma_ilq_ah_cb) posts the established qhash entry, whose completion sends the SYN-ACK
            int qhash = first(b, create, e -> cqpOp(e, "MANAGE_QUAD_HASH_TABLE_ENTRY"));
            int qhashDb = doorbellOf(b, qhash);
            assertTrue(qhashDb > create, "qhash posted from the AH's completion");
            // and not waited for (cm.c irdma_add_conn_est_qh: wait = false): the handler went on (re-armed the CCQ
            // and the vectors) while the entry's add was in flight
            assertTrue(anyBetween(b, qhashDb, qhash, e -> regWrite(e, "CQARM") || regWrite(e, "GLINT_DYN_CTL")),
                    "the handler went on before the qhash entry's completion");
            int synAck = first(b, 0, e -> e.kind() == TraceKind.PUDA_TX);
            assertTrue(synAck > qhash, "the SYN-ACK goes out after the qhash entry: " + synAck + " vs " + qhash);

            // passive irdma_accept: irdma_cm_free_ah, then the connection's QP ops (here the port's own CQ, QP and
            // LSMM region, then Modify QP to RTS): the next op is posted before the destroy completes
            int destroyB = first(b, 0, e -> cqpOp(e, "DESTROY_ADDR_HANDLE"));
            int destroyBDb = doorbellOf(b, destroyB);
            int nextDb = first(b, destroyBDb + 1, e -> regWrite(e, "CQPDB"));
            assertTrue(nextDb < destroyB, "the op after the destroy was posted at " + nextDb
                    + ", before the destroy completed at " + destroyB);
            int rts = first(b, destroyB, e -> cqpOp(e, "MODIFY_QP") && "2".equals(e.get("next_state")));
            assertTrue(rts > destroyB, "RTS after the AH's destroy, as irdma_accept orders them");

            // active: irdma_connect waits for its create: nothing is posted between its doorbell and its completion
            List<Recorded> a = sinkA.events();
            int createA = first(a, 0, e -> cqpOp(e, "CREATE_ADDR_HANDLE"));
            int createADb = doorbellOf(a, createA);
            assertFalse(anyBetween(a, createADb, createA, e -> e.kind() == TraceKind.REG_WRITE),
                    "the active side waits for its AH");
            int next = first(a, createA, e -> regWrite(e, "CQPDB"));
            assertTrue(next > createA, "the qhash entry only after the AH completed");
            // and its free after the connect reply is not waited for either
            int destroyA = first(a, 0, e -> cqpOp(e, "DESTROY_ADDR_HANDLE"));
            assertTrue(destroyA > 0);

            pair.a.cm.disconnect(c, false);
            assertTrue(pair.runUntilIdle(LIMIT));
            pair.b.cm.destroyListener(listener);
            assertTrue(pair.runUntilIdle(LIMIT));
            for (ModelNode n : List.of(pair.a, pair.b)) {
                assertEquals(0, n.driver.addressHandles().inUse(), n + ": AH indexes");
                assertEquals(0, n.device.addressHandles().liveCount(), n + ": AHs in the model");
                assertEquals(0, n.driver.cqp().requestsPending(), n + ": CQP requests without their completion");
                assertEquals(0, n.cm.nodeCount());
            }
            assertTrue(pair.a.driver.cqp().callbacksRun() >= 1 && pair.b.driver.cqp().callbacksRun() >= 2);
            assertEquals(0, pair.a.cm.framesWithoutAh() + pair.b.cm.framesWithoutAh(), "no frame found its AH invalid");
        }
    }

    @Test
    void anAhFreedWhileItsCreateIsInFlightIsDestroyedByThatCompletionAndItsCallbackDoesNotRun() {
        RecordingTraceSink sink = new RecordingTraceSink();
        try (ModelPair pair = new ModelPair(FrameTap.NONE, sink, null)) {
            ModelNode n = pair.a;
            sink.clear();
            int[] callbacks = new int[1];
            int ah = n.driver.addressHandles().create(CmPair.MAC_A, 0, 0, false, 0, 64, true, false,
                    new int[] {(int) CmPair.B_V4.addressLo(), 0, 0, 0}, new int[] {(int) CmPair.A_V4.addressLo(), 0, 0,
                        0}, (index, valid) -> callbacks[0]++);
            assertFalse(n.driver.addressHandles().valid(ah), "not valid before its completion");
            assertEquals(1, n.driver.cqp().requestsPending());
            n.driver.addressHandles().destroy(ah);
            assertEquals(1, n.driver.addressHandles().inUse(), "the index is held until the create completes");
            assertTrue(pair.runUntilIdle(LIMIT));
            assertEquals(0, callbacks[0], "the freed AH's callback is not run");
            assertEquals(0, n.driver.addressHandles().inUse());
            assertEquals(0, n.driver.cqp().requestsPending());
            assertEquals(0, n.device.addressHandles().liveCount(), "the device's AH destroyed");
            List<String> ops = sink.of(TraceKind.CQP_OP).stream()
                    .filter(e -> e.get("op").endsWith("ADDR_HANDLE")).map(e -> e.get("op") + " " + e.get("ah"))
                    .toList();
            assertEquals(List.of("CREATE_ADDR_HANDLE " + ah, "DESTROY_ADDR_HANDLE " + ah), ops);
            assertTrue(sink.of(TraceKind.CQP_ERROR).isEmpty(), sink.of(TraceKind.CQP_ERROR).toString());
        }
    }
}
