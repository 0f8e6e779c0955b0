package dev.irdmaemu.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.driver.verbs.QpEvent;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * With a device that raises IRDMA_AE_LLP_CONNECTION_ESTABLISHED (IRDMA_FEATURE_RTS_AE), the CM reports
 * ESTABLISHED / CONNECT_REPLY only on that event, as irdma_accept and irdma_cm_event_connected wait for it; without
 * it within IRDMA_MAX_TIMEOUT the accept fails with -ECONNRESET, and the active side reports a slow connection as
 * connected anyway. The stand-in port plays the device: its QPs raise the event once the RTR is acknowledged
 * (active) or the LSMM is acknowledged and the peer's first FPDU arrived (passive).
 */
class RtsAeTest {
    private static final byte[] HELLO = "hello".getBytes(StandardCharsets.UTF_8);

    private static CmPair pair() {
        CmPair p = new CmPair();
        p.deviceA.withRtsAe();
        p.deviceB.withRtsAe();
        return p;
    }

    @Test
    void establishedAndConnectReplyWaitForTheQpsRtsAe() {
        CmPair p = pair();
        Recorder server = new Recorder("server");
        CmNode[] accepted = new CmNode[1];
        server.onEvent(e -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                accepted[0] = e.node();
                assertTrue(p.b.accept(e.node(), HELLO));
                // offloaded, not yet established: the QP has yet to see the peer's RTR
                assertTrue(e.node().awaitingEstablished());
                assertEquals(CmState.OFFLOADED, e.node().state());
            }
        });
        p.b.listen(CmPair.B_V4.withPort(4791), 4, server);
        Recorder client = new Recorder("client");
        CmNode c = p.a.connect(CmPair.A_V4.withPort(40000), CmPair.B_V4.withPort(4791),
                ConnectParams.of(HELLO, 8, 8), client);
        assertTrue(p.runUntilIdle(1_000_000_000L));
        assertEquals(List.of("CONNECT_REPLY"), client.types());
        assertEquals(List.of("CONNECT_REQUEST", "ESTABLISHED"), server.types());
        assertEquals("hello", new String(client.first(CmEventType.CONNECT_REPLY).privateData(),
                StandardCharsets.UTF_8), "the reply's private data comes with the delayed CONNECT_REPLY");
        assertFalse(c.awaitingEstablished());
        assertFalse(accepted[0].awaitingEstablished());
        // the events came after the QPs raised ESTABLISHED (the port's log has the order)
        assertBefore(p.deviceA.log(), "qp 2 ESTABLISHED", client.first(CmEventType.CONNECT_REPLY).timeNanos());
        assertBefore(p.deviceB.log(), "qp 2 ESTABLISHED", server.first(CmEventType.ESTABLISHED).timeNanos());
        assertTrue(server.first(CmEventType.ESTABLISHED).timeNanos()
                > client.first(CmEventType.CONNECT_REPLY).timeNanos() - 1_000_000,
                "the passive side is established once the RTR arrived");
    }

    private static void assertBefore(List<String> log, String line, long timeNanos) {
        for (String l : log) {
            if (l.endsWith(line)) {
                long us = Long.parseLong(l.substring(0, l.indexOf("us")));
                assertTrue(us * 1000 <= timeNanos, line + " at " + us + " us, event at " + timeNanos + " ns");
                return;
            }
        }
        throw new AssertionError(line + " not in " + log);
    }

    @Test
    void anAcceptWhoseQpNeverSeesTheRtrFailsAfterTheTimeoutAndTheConnectSideGoesOnUntilTheReset() {
        CmPair p = pair();
        // A's QP sends nothing: B's LSMM goes out, A's RTR never comes
        p.deviceA.muteQps();
        Recorder server = new Recorder("server");
        long[] acceptedAt = new long[1];
        server.onEvent(e -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                acceptedAt[0] = p.scheduler.now();
                p.b.accept(e.node(), HELLO);
            }
        });
        p.b.listen(CmPair.B_V4.withPort(4791), 4, server);
        Recorder client = new Recorder("client");
        p.a.connect(CmPair.A_V4.withPort(40001), CmPair.B_V4.withPort(4791), ConnectParams.of(HELLO, 8, 8), client);
        p.runFor(11_000_000_000L);
        assertEquals(List.of("CONNECT_REQUEST"), server.types(), "still waiting within IRDMA_MAX_TIMEOUT");
        assertTrue(p.runUntilIdle(120_000_000_000L));
        assertEquals(List.of("CONNECT_REQUEST", "ESTABLISHED:CONNECTION_RESET"), server.types());
        CmEvent failed = server.events.get(1);
        assertEquals(CmReason.ESTABLISH_TIMEOUT, failed.reason());
        assertEquals(ConnectionManager.ESTABLISH_TIMEOUT_NANOS, failed.timeNanos() - acceptedAt[0]);
        // A's own wait ended a few microseconds after B's (it offloaded when B's LSMM arrived): irdma reports the
        // slow connection as connected, then B's RST resets it
        assertEquals(List.of("CONNECT_REPLY", "DISCONNECT:CONNECTION_RESET", "CLOSE"), client.types());
        assertEquals(CmReason.PEER_RESET, client.events.get(1).reason());
        assertTrue(client.events.get(0).timeNanos() <= client.events.get(1).timeNanos());
        assertEquals(0, p.a.nodeCount());
        assertEquals(0, p.b.nodeCount());
        assertEquals(1, p.b.passiveErrors());
    }

    @Test
    void aConnectWhoseRtrIsNeverAcknowledgedIsReportedAfterTheTimeoutAsIrdmaDoes() {
        CmPair p = pair();
        Recorder server = new Recorder("server");
        server.onEvent(e -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                p.b.accept(e.node(), HELLO);
                // the LSMM is out; from now on B's QP answers nothing, so A's RTR is never acknowledged
                p.deviceB.muteQps();
            }
        });
        p.b.listen(CmPair.B_V4.withPort(4791), 4, server);
        Recorder client = new Recorder("client");
        CmNode c = p.a.connect(CmPair.A_V4.withPort(40002), CmPair.B_V4.withPort(4791),
                ConnectParams.of(HELLO, 8, 8), client);
        p.runFor(5_000_000_000L);
        assertTrue(client.events.isEmpty());
        assertTrue(c.awaitingEstablished());
        p.runFor(8_000_000_000L);
        // irdma_cm_event_connected only logs "Slow Connection" and reports CONNECT_REPLY
        assertEquals(List.of("CONNECT_REPLY"), client.types());
        assertFalse(c.awaitingEstablished());
    }

    @Test
    void aTerminatedQpEndsTheConnectionWithDisconnectAndClose() {
        CmPair p = pair();
        Recorder server = new Recorder("server");
        server.onEvent(e -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                p.b.accept(e.node(), HELLO);
            }
        });
        p.b.listen(CmPair.B_V4.withPort(4791), 4, server);
        Recorder client = new Recorder("client");
        CmNode c = p.a.connect(CmPair.A_V4.withPort(40003), CmPair.B_V4.withPort(4791),
                ConnectParams.of(HELLO, 8, 8), client);
        assertTrue(p.runUntilIdle(1_000_000_000L));
        p.a.qpEvent(c.qpn(), QpEvent.TERMINATED);
        assertEquals(List.of("CONNECT_REPLY", "DISCONNECT", "CLOSE"), client.types());
        assertEquals(CmReason.TERMINATED, client.events.get(1).reason());
        assertEquals(CmStatus.OK, client.events.get(1).status(), "irdma_cm_disconn_true: status 0 on terminate");
        assertTrue(c.isDestroyed());
    }

    @Test
    void aResetBeforeTheRtsAeFailsTheOpenInsteadOfClosingAConnectionNeverReported() {
        CmPair p = pair();
        p.deviceA.muteQps();
        Recorder server = new Recorder("server");
        CmNode[] accepted = new CmNode[1];
        server.onEvent(e -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                accepted[0] = e.node();
                p.b.accept(e.node(), HELLO);
            }
        });
        p.b.listen(CmPair.B_V4.withPort(4791), 4, server);
        p.a.connect(CmPair.A_V4.withPort(40004), CmPair.B_V4.withPort(4791), ConnectParams.of(HELLO, 8, 8),
                new Recorder("client"));
        p.runFor(1_000_000_000L);
        assertTrue(accepted[0].awaitingEstablished());
        p.b.qpEvent(accepted[0].qpn(), QpEvent.CONNECTION_RESET);
        assertEquals(List.of("CONNECT_REQUEST", "ESTABLISHED:CONNECTION_RESET"), server.types());
        assertEquals(CmReason.PEER_RESET, server.events.get(1).reason());
        assertTrue(accepted[0].isDestroyed());
    }

    @Test
    void aFinThatOvertakesTheInitiatorsRtsAeEndsAConnectionThatWasReportedFirst() {
        CmPair p = pair();
        p.deviceA.muteQps();
        Recorder server = new Recorder("server");
        server.onEvent(e -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                p.b.accept(e.node(), HELLO);
            }
        });
        p.b.listen(CmPair.B_V4.withPort(4791), 4, server);
        Recorder client = new Recorder("client");
        CmNode c = p.a.connect(CmPair.A_V4.withPort(40005), CmPair.B_V4.withPort(4791),
                ConnectParams.of(HELLO, 8, 8), client);
        p.runFor(1_000_000_000L);
        assertTrue(c.awaitingEstablished(), "the RTR is out, the RTS AE not in");
        // the server's ucmatose has its connections and disconnects them: its FIN reaches A before A's RTS AE
        p.a.qpEvent(c.qpn(), QpEvent.FIN_RECEIVED);
        // irdma_cm_event_connected reports CONNECT_REPLY with status 0 whatever the wait's outcome
        assertEquals(List.of("CONNECT_REPLY", "DISCONNECT"), client.types());
        assertEquals(CmStatus.OK, client.events.get(0).status());
        assertEquals(CmStatus.OK, client.events.get(1).status());
        assertFalse(c.awaitingEstablished());
        assertEquals(0, p.a.connectErrors());
        // the RTS AE that comes after changes nothing
        p.a.qpEvent(c.qpn(), QpEvent.ESTABLISHED);
        assertEquals(List.of("CONNECT_REPLY", "DISCONNECT"), client.types());
    }
}
