package dev.irdmaemu.bridge.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.irdmaemu.driver.verbs.IrdmaVerbs;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The rping services on a hosted node, against a stand-in guest (no iWARP data path needed): the scenarios plug
 * them in; the client waits for the guest's MAC, connects from its own QP, and while the guest's server is not
 * listening tries again from the next port with a fresh QP, freeing each; the server listens where rping would.
 */
class RpingServicesTest {
    private static final Duration CALL = Duration.ofSeconds(20);
    /** How long the model thread's later events may take to free what a run held. */
    private static final Duration SETTLE = Duration.ofSeconds(2);

    @Test
    void theRpingScenariosRunTheRpingServicesAndTheRefusedOneKeepsTheListener() {
        assertTrue(BootScenario.RPING_SERVER.services().get(0) instanceof RpingClientService);
        assertTrue(BootScenario.RPING_CLIENT.services().get(0) instanceof RpingServerService);
        assertTrue(BootScenario.RPING_CLIENT_REFUSED.services().get(0) instanceof AcceptingListener);
        assertEquals("rping-client", BootScenario.RPING_SERVER.services().get(0).name());
        assertEquals("rping-server", BootScenario.RPING_CLIENT.services().get(0).name());
    }

    @Test
    void theClientWaitsForTheGuestThenRetriesFromAFreshQpWhileItsServerIsNotListening() throws Exception {
        FakeGuestWire wire = new FakeGuestWire();
        RpingClientService client = new RpingClientService("rping-client",
                GuestFrames.guest(BootScenario.RPING_PORT), 10, 64);
        Logger ours = (Logger) LoggerFactory.getLogger("dev.irdmaemu");
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        ours.addAppender(log);
        try (HostedNode node = new HostedNode(wire, null, null, System::nanoTime).start()) {
            IrdmaVerbs verbs = node.port.verbs();
            node.loop().call(() -> {
                client.start(node);
                return null;
            }, CALL);
            for (int i = 0; i < 10; i++) {
                node.loop().call(() -> null, CALL);
            }
            assertTrue(wire.toGuest.isEmpty(), "no SYN before the guest's MAC is known");
            assertEquals(0, node.loop().call(verbs::qpsInUse, CALL), "no QP before the connect");
            wire.send(GuestFrames.arpRequest());
            int resets = 0;
            int port;
            do {
                TcpPacket syn = GuestFrames.parse(wire.await(f -> GuestFrames.isTcp(f, TcpHeader.SYN)));
                assertEquals(BootScenario.RPING_PORT, syn.tcp().destinationPort());
                port = syn.tcp().sourcePort();
                if (resets == 0) {
                    // while connecting: rping's QP, CQ, PD and its three regions (receive, send, rdma_buf) and the
                    // start buffer's
                    List<Integer> inUse = node.loop().call(() -> List.of(verbs.qpsInUse(), verbs.cqsInUse(),
                            verbs.mrsInUse()), CALL);
                    assertEquals(List.of(1, 1, 4), inUse);
                }
                wire.send(GuestFrames.tcp(BootScenario.RPING_PORT, port, 0, syn.tcp().sequenceNumber() + 1,
                        TcpHeader.RST | TcpHeader.ACK, new byte[0]));
                resets++;
            } while (port == RpingClientService.FIRST_LOCAL_PORT && resets < 10);
            assertEquals(RpingClientService.FIRST_LOCAL_PORT + 1, port, "the second try, from the next port");
            synchronized (log) {
                // the reset while the server is not listening is expected: retried, logged at INFO, never a WARN
                assertEquals(List.of(), log.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                        .map(ILoggingEvent::getFormattedMessage).toList());
                assertTrue(log.list.stream().anyMatch(e -> e.getLevel() == Level.INFO
                        && e.getFormattedMessage().contains("trying again")), "the retry is logged");
            }
            node.loop().call(() -> {
                client.stop(node);
                return null;
            }, CALL);
            ServiceOutcome o = client.outcome().get(1, TimeUnit.SECONDS);
            assertFalse(o.ok(), "it never connected");
            assertTrue(Integer.parseInt(o.field("attempts")) >= 2, o.toString());
            assertEquals("0", o.field("pings"));
            assertEquals("10", o.field("of"));
            // the teardown runs on a later event of the model thread (paced by the wall clock): wait for it
            List<Integer> left = node.loop().await(() -> List.of(verbs.qpsInUse(), verbs.cqsInUse(),
                    verbs.mrsInUse(), node.counters().cmNodesLeft()), List.of(0, 0, 0, 0)::equals, SETTLE);
            assertEquals(List.of(0, 0, 0, 0), left, "QPs, CQs, MRs and CM nodes left");
        } finally {
            ours.detachAppender(log);
        }
    }

    @Test
    void theServerListensOnRpingsPortAndWithoutAConnectionItsStopIsAFailure() throws Exception {
        FakeGuestWire wire = new FakeGuestWire();
        RpingServerService server = new RpingServerService("rping-server",
                HostedNode.V4.withPort(BootScenario.RPING_PORT), 64);
        try (HostedNode node = new HostedNode(wire, null, null, System::nanoTime).start()) {
            node.loop().call(() -> {
                server.start(node);
                return null;
            }, CALL);
            assertEquals(1, node.loop().call(() -> node.counters().cmListeners(), CALL));
            node.loop().call(() -> {
                server.stop(node);
                return null;
            }, CALL);
            ServiceOutcome o = server.outcome().get(1, TimeUnit.SECONDS);
            assertFalse(o.ok());
            assertEquals("0", o.field("requests"));
            assertEquals("no_connection_ended", o.field("failure"));
            assertEquals(0, node.loop().call(() -> node.counters().cmListeners(), CALL));
        }
    }
}
