package dev.irdmaemu.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.cm.demo.CmPair;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The passive side's address handle as cm.c irdma_handle_syn_pkt creates it: not waited for. Until the device's
 * answer (utils.c irdma_ilq_ah_cb) the node has an AH that is not valid, and a frame formed through it is not sent
 * (cm.c irdma_form_ah_cm_frame: "AH invalid", no frame, no retransmission entry). A valid answer adds the
 * established qhash entry and only then sends the SYN-ACK; a refused one still adds the entry, and the SYN-ACK is
 * then never sent.
 */
class PassiveAddressHandleTest {
    private static final long LIMIT = 600_000_000_000L;

    private static List<CmEventType> events(List<CmEvent> l) {
        return l.stream().map(CmEvent::type).toList();
    }

    @Test
    void theSynAckWaitsForTheAhsCompletionAndItsQhashEntry() {
        CmPair p = new CmPair();
        List<CmEvent> server = new ArrayList<>();
        p.b.listen(CmPair.B_V4.withPort(4791), 4, e -> {
            server.add(e);
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                p.b.accept(e.node(), new byte[0]);
            }
        });
        List<String> logB = p.deviceB.log();
        int before = logB.size();
        List<CmEvent> client = new ArrayList<>();
        CmNode c = p.a.connect(CmPair.A_V4.withPort(50000), CmPair.B_V4.withPort(4791),
                ConnectParams.of(new byte[0], 8, 8), client::add);
        assertTrue(p.scheduler.runUntilIdle(p.scheduler.now() + LIMIT));
        assertTrue(events(client).contains(CmEventType.CONNECT_REPLY), events(client).toString());
        List<String> log = logB.subList(before, logB.size());
        int create = indexOf(log, "ah create 0 (no wait)");
        int valid = indexOf(log, "ah valid 0");
        int qhash = indexOf(log, "qhash add");
        assertTrue(create >= 0 && create < valid && valid < qhash, "create, completion, then the qhash: " + log);
        // cm.c irdma_add_conn_est_qh: the entry is posted, not waited for (irdma_manage_qhash, wait = false); its
        // completion (hw.c irdma_send_syn_cqp_callback) sends the SYN-ACK
        assertTrue(log.get(qhash).endsWith("(no wait)"), log.get(qhash));
        int added = indexOf(log, "qhash added");
        assertTrue(added > qhash, "the add completes later: " + log);
        assertEquals(0, p.b.connectionQhashRefusals());
        assertEquals(0, p.b.framesWithoutAh(), "nothing was formed before the AH was valid");
        p.a.disconnect(c, false);
        assertTrue(p.scheduler.runUntilIdle(p.scheduler.now() + LIMIT));
    }

    @Test
    void aRefusedAhStillAddsTheQhashEntryButNoSynAckGoesOutAndThePeersResetEndsTheNode() {
        CmPair p = new CmPair();
        p.deviceB.refuseAhCreates(true);
        List<CmEvent> server = new ArrayList<>();
        CmListener l = p.b.listen(CmPair.B_V4.withPort(4791), 4, server::add);
        List<CmEvent> client = new ArrayList<>();
        CmNode c = p.a.connect(CmPair.A_V4.withPort(50000), CmPair.B_V4.withPort(4791),
                ConnectParams.of(new byte[0], 8, 8), client::add);
        p.scheduler.runFor(1_000_000L);
        assertEquals(1, p.b.ahRefusals());
        assertEquals(1, p.b.framesWithoutAh(), "the SYN-ACK found its AH invalid");
        assertEquals(0, p.deviceB.addressHandles(), "the refused AH does not exist");
        assertEquals(1, p.b.nodeCount());
        CmNode passive = p.b.nodes().iterator().next();
        assertEquals(CmState.SYN_RCVD, passive.state());
        assertTrue(passive.qhashSet, "irdma_add_conn_est_qh runs whatever the AH's answer");
        assertEquals(CmState.SYN_SENT, c.state(), "no SYN-ACK reached the client");
        // no retransmission entry: running on sends nothing more from B
        long without = p.b.framesWithoutAh();
        assertTrue(p.scheduler.runUntilIdle(p.scheduler.now() + LIMIT));
        assertEquals(without, p.b.framesWithoutAh(), "nothing retransmitted through the invalid AH");
        assertTrue(events(client).contains(CmEventType.CONNECT_REPLY), events(client).toString());
        assertTrue(c.isDestroyed(), "the client gave up");
        assertTrue(server.stream().noneMatch(e -> e.type() == CmEventType.CONNECT_REQUEST), "never indicated");
        p.b.destroyListener(l);
        assertTrue(p.scheduler.runUntilIdle(p.scheduler.now() + LIMIT));
        LeakCheck.assertNothingHeld(p);
    }

    /** The first log line whose text (after its time stamp) starts with {@code text}. */
    private static int indexOf(List<String> log, String text) {
        for (int i = 0; i < log.size(); i++) {
            String line = log.get(i);
            if (line.substring(line.indexOf(' ') + 1).startsWith(text)) {
                return i;
            }
        }
        return -1;
    }
}
