package dev.irdmaemu.bridge.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.iwarp.MpaFrame;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * The placeholder services on a hosted node, against a stand-in guest: the listener accepts what the CM indicates
 * (a peer-to-peer MPA v2 request gets the node's MPA reply), the client waits for the guest's MAC, then connects
 * and retries while the guest's server is not listening yet.
 */
class HostedServicesTest {
    private static final Duration CALL = Duration.ofSeconds(20);

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
    void theClientWaitsForTheGuestThenRetriesWhileItsServerIsNotListening() throws Exception {
        FakeGuestWire wire = new FakeGuestWire();
        ConnectingClient client = new ConnectingClient("rping-client", GuestFrames.guest(BootScenario.RPING_PORT), 1);
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
            // the guest's kernel answers every SYN with a reset (nothing listens on 7174 yet); the CM tries again
            // once itself (cm.c: a reset attempt gets one more try), then the client, from the next port
            int resets = 0;
            int port;
            do {
                TcpPacket syn = GuestFrames.parse(wire.await(f -> GuestFrames.isTcp(f, TcpHeader.SYN)));
                assertEquals(BootScenario.RPING_PORT, syn.tcp().destinationPort());
                port = syn.tcp().sourcePort();
                wire.send(GuestFrames.tcp(BootScenario.RPING_PORT, port, 0, syn.tcp().sequenceNumber() + 1,
                        TcpHeader.RST | TcpHeader.ACK, new byte[0]));
                resets++;
            } while (port == ConnectingClient.FIRST_LOCAL_PORT && resets < 10);
            assertEquals(ConnectingClient.FIRST_LOCAL_PORT + 1, port, "the client's second attempt, after "
                    + ConnectingClient.RETRY_MILLIS + " ms, from the next port");
            node.loop().call(() -> {
                client.stop(node);
                return null;
            }, CALL);
            ServiceOutcome o = client.outcome().get(1, TimeUnit.SECONDS);
            assertFalse(o.ok(), "it never connected");
            assertTrue(Integer.parseInt(o.field("attempts")) >= 2, o.toString());
            assertTrue(Integer.parseInt(o.field("refused")) >= 1, o.toString());
            assertEquals("0", o.field("connected"));
            assertTrue(o.field("last_failure").contains("PEER_RESET"), o.toString());
            assertEquals(0, node.loop().call(() -> node.counters().cmNodesLeft(), CALL), "no node left");
        }
    }
}
