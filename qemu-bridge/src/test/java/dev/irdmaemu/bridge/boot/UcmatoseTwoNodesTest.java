package dev.irdmaemu.bridge.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.model.ModelNode;
import dev.irdmaemu.cm.CmReason;
import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.cm.LocalAddress;
import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.cm.driver.ModelHardwarePort;
import dev.irdmaemu.cm.ucmatose.UcmatoseClient;
import dev.irdmaemu.cm.ucmatose.UcmatoseOptions;
import dev.irdmaemu.cm.ucmatose.UcmatoseResult;
import dev.irdmaemu.cm.ucmatose.UcmatoseServer;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.model.trace.Trace;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Java ucmatose client against the Java ucmatose server on two model nodes (the peer the boot scenarios host
 * against the guest's ucmatose), through the CM, the verbs and the model's data path: a hundred connections at once
 * with no messages and with cmatose's default exchange, a request beyond {@code -c}, a server that is not there, a
 * run stopped half-way; and after each, nothing left on either node: no CM node, no listener or listener child, no
 * QP, CQ or memory region in the verbs, no QP in the device's table beyond the PUDA queues it had after bring-up.
 */
class UcmatoseTwoNodesTest {
    private static final long LIMIT = 600_000_000_000L;
    private static final IpEndpoint SERVER = CmPair.B_V4.withPort(UcmatoseOptions.DEFAULT_PORT);
    private static final IpEndpoint SOURCE = CmPair.A_V4.withPort(40000);

    private final SimScheduler scheduler = new SimScheduler(7);
    private final Link link = new Link(scheduler);
    private final ModelNode a = node(CmPair.MAC_A, CmPair.A_V4);
    private final ModelNode b = node(CmPair.MAC_B, CmPair.B_V4);
    private final int deviceQpsA = a.device.qps().liveCount();
    private final int deviceQpsB = b.device.qps().liveCount();
    private UcmatoseResult clientResult;
    private UcmatoseResult serverResult;

    UcmatoseTwoNodesTest() {
        ModelHardwarePort.neighbours(a.port, b.port);
        ModelHardwarePort.neighbours(b.port, a.port);
    }

    private ModelNode node(long mac, IpEndpoint address) {
        List<LocalAddress> addresses = List.of(LocalAddress.of(address, 0xffff));
        return new ModelNode(scheduler, link, new Trace(scheduler), mac, addresses, FaultProfile.NONE, d -> { });
    }

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    private UcmatoseServer server(UcmatoseOptions o) {
        UcmatoseServer s = new UcmatoseServer(b.cm, b.verbs, o);
        s.onDone(r -> serverResult = r);
        return s.start();
    }

    private UcmatoseClient client(UcmatoseOptions o) {
        UcmatoseClient c = new UcmatoseClient(a.cm, a.verbs, o);
        c.onDone(r -> clientResult = r);
        return c.start();
    }

    private boolean runUntil(BooleanSupplier done) {
        long end = scheduler.now() + LIMIT;
        while (!done.getAsBoolean()) {
            if (scheduler.nextDeadline() > end || !scheduler.runNext()) {
                return done.getAsBoolean();
            }
        }
        return true;
    }

    /** Nothing of the runs is left on either node, once the CMs' close timers have run. */
    private void assertNothingLeft() {
        assertTrue(runUntil(() -> a.cm.nodeCount() == 0 && b.cm.nodeCount() == 0), "CM nodes left: "
                + a.cm.nodeCount() + " and " + b.cm.nodeCount());
        for (ModelNode n : List.of(a, b)) {
            String which = n == a ? "client node: " : "server node: ";
            assertEquals(0, n.cm.listenerCount(), which + "listeners");
            assertEquals(0, n.cm.listenerChildNodeCount(), which + "listener children");
            assertEquals(0, n.verbs.qpsInUse(), which + "QPs");
            assertEquals(0, n.verbs.cqsInUse(), which + "CQs");
            assertEquals(0, n.verbs.mrsInUse(), which + "MRs");
            assertEquals(0, n.port.qpCount(), which + "connections on a QP");
            assertEquals(n == a ? deviceQpsA : deviceQpsB, n.device.qps().liveCount(),
                    which + "the device's QP table holds only the PUDA queues of the bring-up");
            assertEquals(0, n.device.stags().liveCount(), which + "STags");
        }
    }

    @Test
    void aHundredConnectionsAtOnceWithoutMessagesComeUpAndGoDownAndLeaveNothing() {
        server(UcmatoseOptions.server(SERVER, 100).withMessages(0, 100));
        client(UcmatoseOptions.client(SERVER, SOURCE, 100).withMessages(0, 100));
        assertTrue(runUntil(() -> clientResult != null && serverResult != null), "both runs end");
        assertTrue(clientResult.ok(), clientResult::toString);
        assertTrue(serverResult.ok(), serverResult::toString);
        for (UcmatoseResult r : List.of(clientResult, serverResult)) {
            assertEquals(100, r.established());
            assertEquals(100, r.disconnected());
            assertEquals(0, r.messagesSent());
            assertEquals(0, r.messagesReceived());
            assertTrue(r.establishNanos() > 0, r::toString);
        }
        assertEquals(100, b.cm.accepts(), "the server accepted each once");
        assertEquals(0, serverResult.rejected());
        assertNothingLeft();
    }

    @Test
    void cmatosesDefaultExchangeTenMessagesOfAHundredBytesEachWayOnEachConnection() {
        server(UcmatoseOptions.server(SERVER, 20));
        client(UcmatoseOptions.client(SERVER, SOURCE, 20));
        assertTrue(runUntil(() -> clientResult != null && serverResult != null));
        assertTrue(clientResult.ok(), clientResult::toString);
        assertTrue(serverResult.ok(), serverResult::toString);
        for (UcmatoseResult r : List.of(clientResult, serverResult)) {
            assertEquals(200, r.messagesSent(), "10 Sends on each of 20 connections");
            assertEquals(200, r.messagesReceived());
            assertEquals(20_000, r.bytesReceived());
        }
        assertNothingLeft();
    }

    @Test
    void aClientThatSendsFirstMeetsCmatosesServerAllTheSame() {
        server(UcmatoseOptions.server(SERVER, 10));
        client(UcmatoseOptions.client(SERVER, SOURCE, 10).sendingFirst(200_000_000L));
        assertTrue(runUntil(() -> clientResult != null && serverResult != null));
        assertTrue(clientResult.ok(), clientResult::toString);
        assertTrue(serverResult.ok(), serverResult::toString);
        assertEquals(100, serverResult.messagesReceived());
        assertNothingLeft();
    }

    @Test
    void aRequestBeyondTheServersCountIsRejectedAndTheClientsFailedConnectEndsItsRun() {
        UcmatoseServer s = server(UcmatoseOptions.server(SERVER, 2).withMessages(0, 100));
        client(UcmatoseOptions.client(SERVER, SOURCE, 3).withMessages(0, 100));
        assertTrue(runUntil(() -> clientResult != null));
        assertFalse(clientResult.ok());
        assertTrue(clientResult.failure().contains("CONNECTION_REFUSED") || clientResult.failure().contains("-111"),
                clientResult.failure());
        assertTrue(runUntil(() -> serverResult != null), "the server ends once its two have closed");
        assertEquals(1, s.rejected(), "the third request");
        // cmatose's server with -c 2 has what it asked for: two connections up, then disconnected by itself
        assertEquals(2, serverResult.established());
        assertEquals(2, serverResult.disconnected());
        assertTrue(serverResult.ok(), serverResult::toString);
        assertNothingLeft();
    }

    @Test
    void aClientWithoutAServerGivesUpItsUnansweredConnectsAndFreesEverything() {
        UcmatoseClient c = client(UcmatoseOptions.client(SERVER, SOURCE, 4).withMessages(0, 100));
        assertTrue(runUntil(() -> clientResult != null));
        assertFalse(clientResult.ok());
        assertFalse(c.wasConnected());
        // the SYNs go unanswered (the model node has no host TCP stack behind its port to reset them)
        assertEquals(CmReason.RETRIES_EXHAUSTED, c.connectFailure());
        assertEquals(0, clientResult.established());
        assertNothingLeft();
    }

    @Test
    void stoppingBothHalfWayResetsTheConnectionsAndFreesEverything() {
        UcmatoseServer s = server(UcmatoseOptions.server(SERVER, 50));
        UcmatoseClient c = client(UcmatoseOptions.client(SERVER, SOURCE, 50));
        assertTrue(runUntil(() -> s.established() >= 10), "some are up");
        s.stop();
        c.stop();
        assertTrue(runUntil(() -> clientResult != null && serverResult != null));
        assertFalse(serverResult.ok());
        assertFalse(clientResult.ok());
        assertNotNull(serverResult.failure());
        assertTrue(serverResult.failure().startsWith("stopped"), serverResult.failure());
        assertNothingLeft();
    }
}
