package dev.irdmaemu.bridge.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.model.ModelNode;
import dev.irdmaemu.bridge.model.ModelPair;
import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmNode;
import dev.irdmaemu.cm.ConnectParams;
import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.driver.verbs.MpaOutcome;
import dev.irdmaemu.driver.verbs.TcpOffloadContext;
import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.pcap.FrameTap;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.TraceKind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two model nodes (each an E810 model with the cm driver layer, ModelHardwarePort and a ConnectionManager) on
 * one link: an MPA v2 connection is set up through the ILQs and handed to QPs of the ports' own, the QP context the
 * offload writes carries what the CM negotiated, the QPs send the MPA reply and the RTR themselves and the CM
 * reports the connection once their RTS AEs arrived; afterwards a segment of the connection's four-tuple is
 * steered to the QP, not the ILQ, and the closes are the QPs' (Modify QP to CLOSING / ERROR). Needs the model's
 * iWARP data path.
 */
class TwoModelNodesIntegrationTest {
    private static final int PORT = 4791;
    private static final long LIMIT = 60_000_000_000L;

    /** CQP error completions other than the pairs irdma treats as non-critical (CqpFault.nonCritical). */
    static List<String> criticalCqpErrors(RecordingTraceSink sink) {
        List<String> out = new ArrayList<>();
        for (var e : sink.of(TraceKind.CQP_ERROR)) {
            boolean nonCritical = false;
            for (CqpFault p : CqpFault.values()) {
                if (p.nonCritical() && String.format("0x%x", p.major()).equals(e.fields().get("major"))
                        && String.format("0x%x", p.minor()).equals(e.fields().get("minor"))) {
                    nonCritical = true;
                }
            }
            if (!nonCritical) {
                out.add(e.fields().toString());
            }
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void connectionThroughTheIlqOffloadsToAQp(boolean ipv4) {
        RecordingTraceSink sinkA = new RecordingTraceSink();
        RecordingTraceSink sinkB = new RecordingTraceSink();
        try (ModelPair pair = new ModelPair(FrameTap.NONE, sinkA, sinkB)) {
            IpEndpoint server = (ipv4 ? CmPair.B_V4 : CmPair.B_V6).withPort(PORT);
            IpEndpoint client = (ipv4 ? CmPair.A_V4 : CmPair.A_V6).withPort(50000);
            List<CmEventType> serverEvents = new ArrayList<>();
            List<CmEventType> clientEvents = new ArrayList<>();
            CmNode[] accepted = new CmNode[1];
            String[] clientGot = {""};
            pair.b.cm.listen(server, 8, e -> {
                serverEvents.add(e.type());
                if (e.type() == CmEventType.CONNECT_REQUEST) {
                    accepted[0] = e.node();
                    pair.b.cm.accept(e.node(), "hello from B".getBytes(StandardCharsets.UTF_8));
                }
            });
            CmNode c = pair.a.cm.connect(client, server,
                    ConnectParams.of("hello from A".getBytes(StandardCharsets.UTF_8), 16, 8), e -> {
                        clientEvents.add(e.type());
                        if (e.type() == CmEventType.CONNECT_REPLY) {
                            clientGot[0] = new String(e.privateData(), StandardCharsets.UTF_8);
                        }
                    });
            boolean idle = pair.runUntilIdle(LIMIT);
            assertTrue(idle);
            assertEquals(List.of(CmEventType.CONNECT_REPLY), clientEvents);
            assertEquals(List.of(CmEventType.CONNECT_REQUEST, CmEventType.ESTABLISHED), serverEvents);
            assertEquals("hello from B", clientGot[0]);
            // reported after the RTS AE (IRDMA_FEATURE_RTS_AE)
            assertTrue(pair.a.verbs.qp(c.qpn()).rtsAeReceived());
            assertTrue(pair.b.verbs.qp(accepted[0].qpn()).rtsAeReceived());
            assertEquals(2, c.mpaRevision());
            assertNotNull(accepted[0]);
            // the setup frames went through the ILQs of both models
            assertTrue(pair.a.port.framesToCm() >= 2, "SYN-ACK and MPA reply reached A's CM via its ILQ");
            assertTrue(pair.b.port.framesToCm() >= 2, "SYN, ACK / MPA request reached B's CM via its ILQ");
            assertTrue(pair.a.device.puda().received() >= 2);

            checkContext(pair.a, c);
            checkContext(pair.b, accepted[0]);
            // the QPs exist in both models, RTS (PUDA QPs 1 and 2 plus the offloaded one)
            assertEquals(3, pair.a.device.qps().liveCount());
            assertEquals(3, pair.b.device.qps().liveCount());

            // a segment of A's connection four-tuple, sent by B's port: A's model steers it to the QP
            int qpn = c.qpn();
            long ilqBefore = pair.a.port.framesToCm();
            long qpBefore = pair.a.device.port().rxQp();
            TcpOffloadContext t = pair.a.port.lastTcp();
            sinkA.clear();
            injectFromB(pair, t);
            assertTrue(pair.runUntilIdle(LIMIT));
            assertEquals(qpBefore + 1, pair.a.device.port().rxQp(), "steered to the QP");
            assertEquals(ilqBefore, pair.a.port.framesToCm(), "not to the ILQ");
            var classified = sinkA.of(TraceKind.CLASSIFY);
            assertEquals(1, classified.size());
            assertEquals("QP_ESTABLISHED", classified.get(0).get("route"));
            assertEquals(String.valueOf(qpn), classified.get(0).get("qp"));

            // graceful close: Modify QP to CLOSING, the QPs exchange the FINs, the AEs close both sides
            pair.a.cm.disconnect(c, false);
            assertTrue(pair.runUntilIdle(LIMIT));
            assertEquals(List.of(CmEventType.CONNECT_REQUEST, CmEventType.ESTABLISHED, CmEventType.DISCONNECT,
                    CmEventType.CLOSE), serverEvents);
            assertEquals(List.of(CmEventType.CONNECT_REPLY, CmEventType.CLOSE), clientEvents);
            assertEquals(0, pair.a.cm.nodeCount());
            assertEquals(0, pair.b.cm.nodeCount());
            assertEquals(2, pair.a.device.qps().liveCount(), "only the PUDA QPs remain");
            assertEquals(2, pair.b.device.qps().liveCount());
            assertEquals(0, pair.a.device.quadHash().establishedCount(), "the QP's entry went with it");
            // the close flushes queues with nothing outstanding: the device answers irdma's non-critical "Flush No
            // Wqe Pending" (utils.c irdma_noncrit_err_list); nothing else may fail
            assertEquals(List.of(), criticalCqpErrors(sinkA));
            assertEquals(List.of(), criticalCqpErrors(sinkB));
        }
    }

    @org.junit.jupiter.api.Test
    void anAbortiveCloseMakesTheQpSendTheRstAndThePeersQpReportsTheReset() {
        try (ModelPair pair = new ModelPair()) {
            List<CmEventType> serverEvents = new ArrayList<>();
            List<CmEventType> clientEvents = new ArrayList<>();
            pair.b.cm.listen(CmPair.B_V4.withPort(PORT), 8, e -> {
                serverEvents.add(e.type());
                if (e.type() == CmEventType.CONNECT_REQUEST) {
                    pair.b.cm.accept(e.node(), new byte[0]);
                }
            });
            CmNode c = pair.a.cm.connect(CmPair.A_V4.withPort(50001), CmPair.B_V4.withPort(PORT),
                    ConnectParams.of(new byte[0], 4, 4), e -> clientEvents.add(e.type()));
            assertTrue(pair.runUntilIdle(LIMIT));
            assertEquals(List.of(CmEventType.CONNECT_REPLY), clientEvents);
            long aesBefore = pair.b.device.aeq().posted();
            pair.a.cm.disconnect(c, true);
            assertTrue(pair.runUntilIdle(LIMIT));
            assertTrue(pair.b.device.aeq().posted() > aesBefore, "B's QP raised LLP_CONNECTION_RESET");
            assertTrue(serverEvents.contains(CmEventType.DISCONNECT) || serverEvents.contains(CmEventType.CLOSE),
                    serverEvents.toString());
            assertEquals(0, pair.a.cm.nodeCount());
            assertEquals(0, pair.b.cm.nodeCount());
            assertEquals(2, pair.a.device.qps().liveCount());
            assertEquals(2, pair.b.device.qps().liveCount());
        }
    }

    /** The QP context in host memory, field by field, against the TCP context and MPA outcome the CM handed over. */
    private static void checkContext(ModelNode n, CmNode node) {
        int qpn = node.qpn();
        assertTrue(qpn >= 3, "QP number " + qpn);
        TcpOffloadContext t = n.port.lastTcp();
        MpaOutcome m = n.port.lastMpa();
        long gpa = n.port.qpContextAddress(qpn).orElseThrow();
        QpContext q = new QpContext().wrap(n.ram.store(), n.ram.offsetOf(gpa), QpContext.SIZE);
        assertTrue(q.validate(true).accepted(), q.validate(true).describe());
        assertEquals(t.ipv4(), q.ipv4());
        assertEquals(t.sndNxt(), q.sndNxt(), "snd_nxt");
        assertEquals(t.rcvNxt(), q.rcvNxt(), "rcv_nxt");
        assertEquals(t.sndUna(), q.sndUna(), "snd_una");
        assertEquals(t.sndMax(), q.sndMax(), "snd_max");
        assertEquals(t.sndWnd(), q.sndWnd(), "snd_wnd");
        assertEquals(t.rcvWnd(), q.rcvWnd(), "rcv_wnd");
        assertEquals(node.mss(), q.sndMss(), "MSS");
        assertEquals(t.mss(), q.sndMss());
        assertEquals(t.sndWscale(), q.sndWscale(), "snd_wscale");
        assertEquals(t.rcvWscale(), q.rcvWscale(), "rcv_wscale");
        assertTrue(q.wscale());
        assertEquals(t.ttl(), q.ttl());
        assertEquals(t.cwnd(), q.cwnd());
        assertEquals(t.ssThresh(), q.ssThresh());
        assertEquals(t.rexmitThresh(), q.rexmitThresh());
        assertEquals(node.local().port(), q.srcPort(), "local port");
        assertEquals(node.remote().port(), q.dstPort(), "remote port");
        if (t.ipv4()) {
            assertEquals((int) node.remote().addressLo(), q.destIp(3));
            assertEquals((int) node.local().addressLo(), q.localIp(3));
        } else {
            assertEquals((int) (node.remote().addressHi() >>> 32), q.destIp(0));
            assertEquals((int) node.remote().addressLo(), q.destIp(3));
            assertEquals((int) (node.local().addressHi() >>> 32), q.localIp(0));
            assertEquals((int) node.local().addressLo(), q.localIp(3));
        }
        // IRD / ORD as negotiated (the IRD goes in as irdma_sc_get_encoded_ird_size's code)
        assertEquals(node.ord(), m.ord());
        assertEquals(node.ird(), m.ird());
        assertEquals(m.ord(), q.ordSize(), "ORD");
        assertEquals(QpContext.encodeIrd(m.ird()), q.irdSizeCode(), "IRD code");
        // MACs: the local one in the context, the peer's through the ARP index the context names
        assertEquals(n.port.macAddress(), q.macAddress(), "local MAC");
        assertEquals(t.remoteMac(), n.device.arp().mac(q.arpIdx()), "remote MAC via the ARP cache");
        assertTrue(n.device.arp().valid(q.arpIdx()));
        assertEquals(t.localMac(), n.port.macAddress());
        assertFalse(q.rcvNoMpaCrc(), "MPA CRC on");
    }

    private static void injectFromB(ModelPair pair, TcpOffloadContext a) {
        TcpPacketBuilder b = new TcpPacketBuilder();
        BytesStore<?, ?> frame = BytesStore.wrap(new byte[256]);
        b.reset().ethernet(a.localMac(), a.remoteMac());
        b.addresses(a.remoteHi(), a.remoteLo(), a.localHi(), a.localLo()).ttl(64);
        // a pure ACK at A's rcv_nxt: in order for the QP (an MPA FPDU boundary trivially)
        b.tcp().reset().ports(a.remotePort(), a.localPort()).sequenceNumber(pair.a.device.qps()
                .get(qpnOf(pair)).rcvNxt()).acknowledgmentNumber(a.sndNxt()).flags(TcpHeader.ACK).window(1000);
        int len = b.build(frame, 0);
        pair.b.wire.transmit(frame, 0, len);
    }

    private static int qpnOf(ModelPair pair) {
        for (int i = 3; i < 64; i++) {
            if (pair.a.device.qps().get(i) != null) {
                return i;
            }
        }
        throw new AssertionError("no offloaded QP on A");
    }
}
