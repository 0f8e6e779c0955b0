package dev.irdmaemu.bridge.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.cm.CmEvent;
import dev.irdmaemu.cm.ConnectParams;
import dev.irdmaemu.cm.ConnectionManager;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.pcap.PcapReader;
import dev.irdmaemu.fw.pcap.PcapWriter;
import dev.irdmaemu.fw.pcap.TimestampResolution;
import dev.irdmaemu.model.trace.JsonLinesTraceSink;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A hosted node with a stand-in for the guest's NIC: the frames go through the whole model (the E810's port and
 * classifier, the LAN responder, the ILQ, the driver, the CM) on the model thread, as they do behind vhost-user.
 */
class HostedNodeTest {
    private static final Duration CALL = Duration.ofSeconds(20);

    @Test
    void theGuestsArpIsAnsweredOnTheModelThreadAndItsMacReachesTheCm() throws Exception {
        FakeGuestWire wire = new FakeGuestWire();
        ByteArrayOutputStream pcap = new ByteArrayOutputStream();
        try (PcapWriter writer = new PcapWriter(pcap, TimestampResolution.NANOSECONDS, 65535, ByteOrder.LITTLE_ENDIAN);
             HostedNode node = new HostedNode(wire, writer, null, System::nanoTime).start()) {
            assertEquals(OptionalLong.empty(), node.loop().call(() -> node.port.neighbourMac(true, 0,
                    HostedNode.GUEST_V4.addressLo()), CALL), "the guest is unknown before it speaks");
            wire.send(GuestFrames.arpRequest());
            byte[] reply = wire.await(f -> new EthernetFrame().wrap(net.openhft.chronicle.bytes.BytesStore.wrap(f), 0,
                    f.length).etherType() == EthernetFrame.ETHERTYPE_ARP);
            assertEquals(60, reply.length);
            assertEquals(2, reply[21], "an ARP reply");
            assertSame(node.loop().thread(), wire.pollingThread, "frames from the guest are taken on the model thread");
            assertSame(node.loop().thread(), wire.transmittingThread, "and sent on it");
            assertEquals(OptionalLong.of(HostedNode.GUEST_MAC), node.loop().call(
                    () -> node.port.neighbourMac(true, 0, HostedNode.GUEST_V4.addressLo()), CALL),
                    "the CM resolves the guest now");
            NodeCounters c = node.loop().call(node::counters, CALL);
            assertEquals(1, c.framesFromGuest());
            assertEquals(1, c.framesToGuest());
            assertEquals(1, c.lanAnswered());
            assertEquals(1, c.neighbours());
            writer.flush();
        }
        PcapReader r = new PcapReader(new ByteArrayInputStream(pcap.toByteArray()));
        int frames = 0;
        long last = -1;
        while (r.next()) {
            frames++;
            assertTrue(r.timeNanos() >= last, "simulated time never goes back");
            last = r.timeNanos();
        }
        assertEquals(2, frames, "the request and the reply, both ways in one capture");
    }

    @Test
    void anMpaV2RequestWithoutPeerToPeerIsResetAndTheTraceNamesTheRule() throws Exception {
        FakeGuestWire wire = new FakeGuestWire();
        StringBuilder trace = new StringBuilder();
        List<CmEvent> events = new CopyOnWriteArrayList<>();
        HostedNode built = new HostedNode(wire, null, new JsonLinesTraceSink(trace), System::nanoTime);
        PassiveRefusalTrace refusals = new PassiveRefusalTrace(trace, built.scheduler::now);
        built.cm.onPassiveRefusal(refusals);
        try (HostedNode node = built.start()) {
            node.loop().call(() -> node.cm.listen(HostedNode.V4.withPort(7174), 8, events::add), CALL);
            wire.send(GuestFrames.arpRequest());
            wire.send(GuestFrames.tcp(40000, 7174, 1000, 0, TcpHeader.SYN, new byte[0]));
            byte[] synAck = wire.await(f -> GuestFrames.isTcp(f, TcpHeader.SYN | TcpHeader.ACK));
            TcpPacket sa = GuestFrames.parse(synAck);
            assertNotNull(sa);
            assertEquals(1001, sa.tcp().acknowledgmentNumber());
            long iss = sa.tcp().sequenceNumber();
            wire.send(GuestFrames.tcp(40000, 7174, 1001, iss + 1, TcpHeader.ACK, new byte[0]));
            byte[] mpa = GuestFrames.mpaRequest(false);
            wire.send(GuestFrames.tcp(40000, 7174, 1001, iss + 1, TcpHeader.ACK | TcpHeader.PSH, mpa));
            byte[] rst = wire.await(f -> GuestFrames.isTcp(f, TcpHeader.RST));
            TcpPacket r = GuestFrames.parse(rst);
            assertEquals(40000, r.tcp().destinationPort());
            assertEquals(1001 + mpa.length, r.tcp().acknowledgmentNumber(), "the reset acknowledges the request");
            NodeCounters c = node.loop().call(node::counters, CALL);
            assertEquals(1, c.cmPassiveErrors());
            assertEquals(0, c.cmAccepts());
            assertEquals(0, c.cmNodesLeft(), "no connection node left behind");
            assertTrue(events.isEmpty(), "irdma indicates nothing to the listener: " + events);
            String text = node.loop().call(trace::toString, CALL);
            assertTrue(text.lines().anyMatch(l -> l.contains("\"ev\":\"cm_refusal\"")
                    && l.contains("\"local\":\"192.0.2.1:7174\"") && l.contains("\"remote\":\"192.0.2.2:40000\"")
                    && l.contains("\"reason\":\"BAD_MPA\"") && l.contains("\"mpa\":\"NOT_PEER_TO_PEER\"")
                    && l.contains("\"reset\":true")), text);
            assertEquals(1, refusals.written(), "one refusal, one line");
        }
    }

    @Test
    void closingStopsTheModelThreadAndLaterTasksFailInsteadOfWaiting() throws Exception {
        FakeGuestWire wire = new FakeGuestWire();
        HostedNode node = new HostedNode(wire, null, null, System::nanoTime).start();
        Thread t = node.loop().thread();
        assertTrue(t.isAlive());
        node.close();
        assertTrue(!t.isAlive(), "the model thread ended");
        assertTrue(node.loop().submit(() -> 1).isCompletedExceptionally());
        node.close(); // twice is fine
    }

    @Test
    void simulatedTimeFollowsThePacingClockAndNeverPassesIt() throws Exception {
        FakeGuestWire wire = new FakeGuestWire();
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        try (HostedNode node = new HostedNode(wire, null, null, clock::get).start()) {
            wire.send(GuestFrames.arpRequest());
            while (node.loop().call(() -> node.counters().framesFromGuest(), CALL) == 0) {
                Thread.onSpinWait();
            }
            // the device's own latencies (the receive FIFO) take simulated time: the clock must move
            clock.addAndGet(1_000_000);
            node.loop().execute(() -> { });
            wire.await(f -> f[12] == 0x08 && f[13] == 0x06);
            long start = node.loop().call(node.scheduler::now, CALL);
            // a connect to the guest, which stays silent: the SYN goes out, its retransmission is due 1 s later
            node.loop().call(() -> node.cm.connect(HostedNode.V4.withPort(50000), GuestFrames.guest(7174),
                    ConnectParams.of(new byte[0], 4, 4), e -> { }), CALL);
            clock.addAndGet(1_000_000);
            node.loop().execute(() -> { });
            wire.await(f -> GuestFrames.isTcp(f, TcpHeader.SYN));
            for (int i = 0; i < 20; i++) {
                node.loop().call(() -> null, CALL); // the loop goes round; the clock stands still
            }
            long held = node.loop().call(node.scheduler::now, CALL);
            assertTrue(held - start < ConnectionManager.RETRY_TIMEOUT_NANOS,
                    "a standing clock holds simulated time: " + (held - start) + " ns");
            assertTrue(wire.toGuest.isEmpty(), "no retransmission before its time");
            clock.addAndGet(ConnectionManager.RETRY_TIMEOUT_NANOS * 3 / 2);
            node.loop().execute(() -> { });
            byte[] again = wire.await(f -> GuestFrames.isTcp(f, TcpHeader.SYN));
            assertNotNull(again, "the clock moved on: the SYN is sent again");
            long now = node.loop().call(node.scheduler::now, CALL);
            assertTrue(now <= start + (clock.get() - 1_001_000_000L) + 1_000_000,
                    "simulated time at most the wall clock's (and a CQP wait): " + (now - start));
            assertTrue(now - start >= ConnectionManager.RETRY_TIMEOUT_NANOS, "and it moved with it");
        }
    }
}
