package dev.irdmaemu.bridge.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.iwarp.MpaFrame;
import dev.irdmaemu.cm.ucmatose.UcmatoseOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * Hosted services on a node, against a stand-in guest: the plain listener accepts what the CM indicates (a
 * peer-to-peer MPA v2 request gets the node's MPA reply); the ucmatose scenarios run ucmatose's services; the
 * ucmatose client waits for the guest's MAC, then connects and tries its round again while the guest's servers are
 * not listening yet, and frees every attempt's connections.
 */
class HostedServicesTest {
    private static final Duration CALL = Duration.ofSeconds(20);
    /** How long the model thread's later events may take to free what a run held. */
    private static final Duration SETTLE = Duration.ofSeconds(2);

    @Test
    void theListenerAcceptsAPeerToPeerRequestAndTheNodeReplies() throws Exception {
        FakeGuestWire wire = new FakeGuestWire();
        AcceptingListener server = new AcceptingListener("rping-server", BootScenario.RPING_PORT);
        try (HostedNode node = new HostedNode(wire, null, null, System::nanoTime).start()) {
            node.loop().call(() -> {
                server.start(node);
                return null;
            }, CALL);
            assertEquals(2, node.loop().call(() -> node.counters().cmListeners(), CALL), "on 192.0.2.1 and 2001:db8::1");
            wire.send(GuestFrames.arpRequest());
            wire.send(GuestFrames.tcp(41000, 7174, 5000, 0, TcpHeader.SYN, new byte[0]));
            TcpPacket sa = GuestFrames.parse(wire.await(f -> GuestFrames.isTcp(f, TcpHeader.SYN | TcpHeader.ACK)));
            long iss = sa.tcp().sequenceNumber();
            wire.send(GuestFrames.tcp(41000, 7174, 5001, iss + 1, TcpHeader.ACK, new byte[0]));
            byte[] request = GuestFrames.mpaRequest(true);
            wire.send(GuestFrames.tcp(41000, 7174, 5001, iss + 1, TcpHeader.ACK | TcpHeader.PSH, request));
            byte[] reply = wire.await(f -> {
                TcpPacket p = GuestFrames.parse(f);
                return p != null && p.tcpPayloadLength() >= MpaFrame.HEADER_SIZE;
            });
            TcpPacket p = GuestFrames.parse(reply);
            MpaFrame mpa = new MpaFrame().wrap(BytesStore.wrap(reply), p.tcpPayloadOffset(), p.tcpPayloadLength());
            assertTrue(mpa.isReply(), "the node's MPA reply");
            assertFalse(mpa.isReject());
            assertTrue(mpa.peerToPeer());
            assertEquals(2, mpa.revision());
            node.loop().call(() -> {
                server.stop(node);
                return null;
            }, CALL);
            ServiceOutcome o = server.outcome().get(1, TimeUnit.SECONDS);
            assertTrue(o.ok());
            assertEquals("1", o.field("requests"));
            assertEquals("1", o.field("accepted"));
        }
    }

    @Test
    void theUcmatoseScenariosRunUcmatosesClientsAndServersInTwoRoundsOfFourByTwentyFive() {
        HostedService clients = BootScenario.UCMATOSE_SERVER.services().get(0);
        assertTrue(clients instanceof UcmatoseClientService);
        assertEquals("ucmatose-client", clients.name());
        HostedService servers = BootScenario.UCMATOSE_CLIENT.services().get(0);
        assertTrue(servers instanceof UcmatoseServerService);
        assertEquals(100, BootScenario.UCMATOSE_PROCESSES * BootScenario.UCMATOSE_PER_PROCESS);
        assertTrue(BootScenario.UCMATOSE_PER_PROCESS <= 36, "siw holds at most 36 ucmatose connections a process");
    }

    @Test
    void theUcmatoseClientWaitsForTheGuestThenRetriesItsRoundFromFreshPortsWhileNobodyListens() throws Exception {
        FakeGuestWire wire = new FakeGuestWire();
        UcmatoseOptions two = UcmatoseOptions.client(GuestFrames.guest(BootScenario.UCMATOSE_PORT),
                HostedNode.V4.withPort(40000), 2).withMessages(0, 100);
        UcmatoseClientService client = new UcmatoseClientService("ucmatose-client", HostedNode.GUEST_V4,
                List.of(new UcmatoseRound("connect", List.of(two))));
        try (HostedNode node = new HostedNode(wire, null, null, System::nanoTime).start()) {
            node.loop().call(() -> {
                client.start(node);
                return null;
            }, CALL);
            for (int i = 0; i < 10; i++) {
                node.loop().call(() -> null, CALL);
            }
            assertTrue(wire.toGuest.isEmpty(), "no SYN before the guest's MAC is known");
            wire.send(GuestFrames.arpRequest());
            // the guest's kernel answers every SYN with a reset (nobody listens on 7471 yet); the CM tries each
            // connection once more itself (cm.c: a reset MPA v2 attempt gets one more try), then the round is
            // tried again with fresh connections from ports 500 higher
            int port;
            int resets = 0;
            do {
                TcpPacket syn = GuestFrames.parse(wire.await(f -> GuestFrames.isTcp(f, TcpHeader.SYN)));
                assertEquals(BootScenario.UCMATOSE_PORT, syn.tcp().destinationPort());
                port = syn.tcp().sourcePort();
                wire.send(GuestFrames.tcp(BootScenario.UCMATOSE_PORT, port, 0, syn.tcp().sequenceNumber() + 1,
                        TcpHeader.RST | TcpHeader.ACK, new byte[0]));
                resets++;
            } while (port < 40000 + UcmatoseClientService.PORTS_PER_ATTEMPT && resets < 20);
            assertTrue(port == 40500 || port == 40501, "the second attempt's ports: " + port);
            node.loop().call(() -> {
                client.stop(node);
                return null;
            }, CALL);
            ServiceOutcome o = client.outcome().get(1, TimeUnit.SECONDS);
            assertFalse(o.ok(), "it never connected");
            assertEquals("0/2", o.field("connect_established"), o.toString());
            assertTrue(Integer.parseInt(o.field("connect_attempts")) >= 2, o.toString());
            // the second attempt's connections are freed on the model thread's later events: wait for them
            NodeCounters left = node.loop().await(node::counters, c -> c.leaks().isEmpty(), SETTLE);
            assertEquals(java.util.Map.of(), left.leaks(), "nothing left");
        }
    }
}
