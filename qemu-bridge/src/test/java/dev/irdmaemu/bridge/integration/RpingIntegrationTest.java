package dev.irdmaemu.bridge.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.decode.FrameSummarizer;
import dev.irdmaemu.bridge.model.ModelNode;
import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.cm.rping.RpingClient;
import dev.irdmaemu.cm.rping.RpingOptions;
import dev.irdmaemu.cm.rping.RpingResult;
import dev.irdmaemu.cm.rping.RpingInfo;
import dev.irdmaemu.cm.rping.RpingServer;
import dev.irdmaemu.driver.verbs.ReceiveWorkRequest;
import dev.irdmaemu.driver.verbs.SendWorkRequest;
import dev.irdmaemu.driver.verbs.WrOpcode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Java rping client against the Java rping server on two model nodes, through the verbs, the CM and the
 * model's iWARP data path (issue 5): a thousand verified pings, the wire as rping's protocol makes it, IPv6 and
 * bigger pings, a persistent server, the refusals, and nothing left behind on either node.
 */
class RpingIntegrationTest {
    private static final long LIMIT = 600_000_000_000L;
    private final List<String> wire = new ArrayList<>();
    private final FrameSummarizer summarizer = new FrameSummarizer();
    /** The first frames of each test, summarized (a long run's later frames are only counted). */
    private long frames;
    private final TwoNodes nodes = TwoNodes.linked((t, s, o, l) -> {
        if (frames++ < 60) {
            StringBuilder sb = new StringBuilder();
            summarizer.summarize(s, o, l, sb);
            wire.add(sb.toString());
        }
    }, t -> t, t -> t);
    private final List<RpingResult> serverResults = new ArrayList<>();
    private RpingResult clientResult;

    @AfterEach
    void close() {
        nodes.close();
    }

    private RpingServer server(RpingOptions options) {
        return new RpingServer(nodes.b.cm, nodes.b.verbs, options).onConnectionDone(serverResults::add).start();
    }

    private RpingClient client(RpingOptions options) {
        RpingClient c = new RpingClient(nodes.a.cm, nodes.a.verbs, options).onDone(r -> clientResult = r);
        c.start();
        return c;
    }

    private static RpingOptions serverAt(IpEndpoint address, int size) {
        return new RpingOptions(true, address.withPort(RpingOptions.DEFAULT_PORT), null, 0, size, true, false, false);
    }

    private static RpingOptions clientTo(IpEndpoint server, IpEndpoint source, int count, int size) {
        return RpingOptions.client(server.withPort(RpingOptions.DEFAULT_PORT), source.withPort(40000), count)
                .withSize(size).validating();
    }

    private void assertNothingLeft(ModelNode n) {
        assertEquals(List.of(0, 0, 0, 0), List.of(n.verbs.qpsInUse(), n.verbs.cqsInUse(), n.verbs.mrsInUse(),
                n.cm.nodeCount()), "QPs, CQs, MRs and CM nodes left");
    }

    private int indexOf(String what) {
        for (int i = 0; i < wire.size(); i++) {
            if (wire.get(i).contains(what)) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void aThousandPingsAreVerifiedOnBothSidesAndEverythingIsFreed() {
        RpingServer server = server(serverAt(CmPair.B_V4, RpingOptions.DEFAULT_SIZE));
        RpingClient client = client(clientTo(CmPair.B_V4, CmPair.A_V4, 1000, RpingOptions.DEFAULT_SIZE));
        assertTrue(nodes.runUntil(() -> clientResult != null && serverResults.size() == 1, LIMIT),
                "the run ended: client " + client.state() + " after " + client.pings() + " pings");
        assertTrue(clientResult.ok(), clientResult.toString());
        assertEquals(1000, clientResult.pings());
        assertEquals(1000, clientResult.verified());
        RpingResult s = serverResults.get(0);
        assertTrue(s.ok(), s.toString());
        assertEquals(1000, s.pings());
        assertEquals(1000, s.verified(), "the server checked each Read against rping's ping data");
        assertEquals(64_000, s.bytesRead());
        assertEquals(64_000, s.bytesWritten());
        assertEquals(1, server.accepted());
        // the teardown runs on the next event after each CLOSE
        assertTrue(nodes.runUntil(() -> client.controlBlock().isReleased() && server.liveConnections() == 0,
                LIMIT));
        assertNothingLeft(nodes.a);
        assertNothingLeft(nodes.b);
    }

    @Test
    void theWireCarriesRpingsProtocol() {
        server(serverAt(CmPair.B_V4, RpingOptions.DEFAULT_SIZE));
        client(clientTo(CmPair.B_V4, CmPair.A_V4, 2, RpingOptions.DEFAULT_SIZE));
        assertTrue(nodes.runUntil(() -> clientResult != null && serverResults.size() == 1, LIMIT));
        assertTrue(clientResult.ok(), clientResult.toString());
        // MPA v2 with CRC, the client asks IRD = ORD = 1 (rping_init_conn_param) and sends the RTR
        int req = indexOf("MPA Req rev 2 [CRC, enhanced]");
        assertTrue(req >= 0, wire.toString());
        assertTrue(wire.get(req).contains("IRD 1 ORD 1"), wire.get(req));
        int rep = indexOf("MPA Rep rev 2");
        assertTrue(rep > req, wire.toString());
        // ping 0: the start buffer's advertisement (a 16-byte Send), the server's Read of 64 bytes, the go-ahead,
        // the sink's advertisement, the server's Write of 64 bytes, the second go-ahead
        int send = indexOf("RDMAP Send 16 bytes");
        int readReq = indexOf("len 64 source STag");
        int readResp = indexOf("Read Response 64 bytes");
        int write = indexOf("RDMA Write 64 bytes");
        assertTrue(send > rep && readReq > send && readResp > readReq && write > readResp, String.join("\n", wire));
        for (String f : wire.subList(send, write + 1)) {
            if (f.contains("FPDU")) {
                assertTrue(f.contains("CRC ok"), f);
            }
        }
    }

    @Test
    void overIpv6WithBiggerPings() {
        server(serverAt(CmPair.B_V6, 4096));
        client(clientTo(CmPair.B_V6, CmPair.A_V6, 100, 4096));
        assertTrue(nodes.runUntil(() -> clientResult != null && serverResults.size() == 1, LIMIT));
        assertTrue(clientResult.ok(), clientResult.toString());
        assertEquals(100, clientResult.verified());
        assertEquals(100 * 4096L, serverResults.get(0).bytesWritten());
        assertTrue(indexOf("2001:db8::1 → 2001:db8::2") >= 0, wire.get(0));
    }

    @Test
    void aPersistentServerTakesOneClientAfterAnother() {
        RpingServer server = server(serverAt(CmPair.B_V4, RpingOptions.DEFAULT_SIZE).persistently());
        for (int i = 0; i < 3; i++) {
            clientResult = null;
            RpingOptions o = RpingOptions.client(CmPair.B_V4.withPort(RpingOptions.DEFAULT_PORT),
                    CmPair.A_V4.withPort(41000 + i), 20).validating();
            client(o);
            int want = i + 1;
            assertTrue(nodes.runUntil(() -> clientResult != null && serverResults.size() == want, LIMIT));
            assertTrue(clientResult.ok(), clientResult.toString());
            assertTrue(serverResults.get(i).ok(), serverResults.get(i).toString());
        }
        assertEquals(3, server.accepted());
        assertEquals(0, server.rejected());
    }

    @Test
    void withoutPersistenceASecondClientIsRejectedWhileTheFirstRuns() {
        RpingServer server = server(serverAt(CmPair.B_V4, RpingOptions.DEFAULT_SIZE));
        List<RpingResult> second = new ArrayList<>();
        client(clientTo(CmPair.B_V4, CmPair.A_V4, 200, RpingOptions.DEFAULT_SIZE));
        RpingClient other = new RpingClient(nodes.a.cm, nodes.a.verbs, RpingOptions.client(
                CmPair.B_V4.withPort(RpingOptions.DEFAULT_PORT), CmPair.A_V4.withPort(41000), 5))
                .onDone(second::add);
        other.start();
        assertTrue(nodes.runUntil(() -> clientResult != null && second.size() == 1, LIMIT));
        assertTrue(clientResult.ok(), clientResult.toString());
        assertFalse(second.get(0).ok());
        assertTrue(second.get(0).failure().contains("RDMA_CM_EVENT_REJECTED"), second.get(0).failure());
        assertEquals(1, server.rejected());
    }

    @Test
    void aClientWithNoServerFailsWithTheResetAndFreesItsQp() {
        RpingClient c = client(clientTo(CmPair.B_V4, CmPair.A_V4, 5, RpingOptions.DEFAULT_SIZE));
        assertTrue(nodes.runUntil(() -> clientResult != null, LIMIT));
        assertFalse(clientResult.ok());
        assertTrue(clientResult.failure().startsWith("cma event RDMA_CM_EVENT_CONNECT_ERROR, error -104"),
                clientResult.failure());
        assertFalse(c.wasConnected());
        assertNotNull(c.connectFailure());
        assertTrue(nodes.runUntil(() -> c.controlBlock().isReleased(), LIMIT));
        assertNothingLeft(nodes.a);
    }

    @Test
    void aServerWithSmallerBuffersRefusesTheBiggerPingAndBothSidesSaySo() {
        server(serverAt(CmPair.B_V4, 100));
        client(clientTo(CmPair.B_V4, CmPair.A_V4, 5, 200));
        assertTrue(nodes.runUntil(() -> clientResult != null && serverResults.size() == 1, LIMIT));
        assertEquals("the client advertised 200 bytes to read, rdma_buf holds 100", serverResults.get(0).failure());
        assertFalse(clientResult.ok());
        assertTrue(clientResult.failure().startsWith("the server disconnected after 0 of 5 pings"),
                clientResult.failure());
    }

    @Test
    void pingsOverALossyDuplicatingReorderingLinkAreAllVerified() {
        try (TwoNodes faulty = TwoNodes.linked(3, BulkTransferIntegrationTest.FAULTY,
                BulkTransferIntegrationTest.FAULTY)) {
            List<RpingResult> results = new ArrayList<>();
            new RpingServer(faulty.b.cm, faulty.b.verbs, serverAt(CmPair.B_V4, 1000)).onConnectionDone(results::add)
                    .start();
            new RpingClient(faulty.a.cm, faulty.a.verbs, clientTo(CmPair.B_V4, CmPair.A_V4, 300, 1000))
                    .onDone(results::add).start();
            assertTrue(faulty.runUntil(() -> results.size() == 2, LIMIT), results.toString());
            for (RpingResult r : results) {
                assertTrue(r.ok(), r.toString());
                assertEquals(300, r.verified(), r.toString());
            }
            assertTrue(faulty.link.framesLost() > 20, "lost " + faulty.link.framesLost());
        }
    }

    /**
     * A hostile client on raw verbs: connects to the rping server's port onto its own QP and, once up, Sends
     * {@code length} bytes whose first 16 are an advertisement of {@code address} / {@code rkey} / {@code size}.
     */
    private List<dev.irdmaemu.cm.CmEvent> hostileClient(int length, long address, int rkey, int size) {
        List<dev.irdmaemu.cm.CmEvent> events = new ArrayList<>();
        BulkTransfer.Side a = new BulkTransfer.Side(nodes.a, 1 << 16, new ArrayList<>());
        nodes.a.cm.connect(CmPair.A_V4.withPort(42000), CmPair.B_V4.withPort(RpingOptions.DEFAULT_PORT),
                dev.irdmaemu.cm.ConnectParams.of(new byte[0], 1, 1).withQp(a.qp.id()), events::add);
        a.qp.postRecv(new ReceiveWorkRequest().wrId(1).sge(a.mr.address(), 64, a.mr.lkey()));
        assertTrue(nodes.runUntil(() -> BulkTransfer.has(events, dev.irdmaemu.cm.CmEventType.CONNECT_REPLY),
                LIMIT));
        RpingInfo.write(a.store, a.offset + 1024, address, rkey, size);
        a.qp.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).flags(SendWorkRequest.SIGNALED)
                .sge(a.mr.address() + 1024, length, a.mr.lkey()));
        return events;
    }

    @Test
    void aClientSendingAnythingButSixteenBytesIsBogusDataToTheServer() {
        RpingServer server = server(serverAt(CmPair.B_V4, RpingOptions.DEFAULT_SIZE));
        List<dev.irdmaemu.cm.CmEvent> client = hostileClient(15, 0, 0, 64);
        assertTrue(nodes.runUntil(() -> serverResults.size() == 1 && server.liveConnections() == 0, LIMIT));
        assertEquals("Received bogus data, size 15", serverResults.get(0).failure());
        assertTrue(nodes.runUntil(() -> BulkTransfer.has(client, dev.irdmaemu.cm.CmEventType.CLOSE), LIMIT),
                "the server disconnected the client: " + client);
        assertNothingLeft(nodes.b);
    }

    @Test
    void anAdvertisementOfAKeyTheClientDoesNotHaveFailsTheServersReadWithTheDevicesError() {
        RpingServer server = server(serverAt(CmPair.B_V4, RpingOptions.DEFAULT_SIZE));
        List<dev.irdmaemu.cm.CmEvent> client = hostileClient(RpingInfo.SIZE, 0x4000_0000L, 0x00bad0ff, 64);
        assertTrue(nodes.runUntil(() -> serverResults.size() == 1 && server.liveConnections() == 0, LIMIT));
        RpingResult r = serverResults.get(0);
        assertFalse(r.ok());
        assertEquals(0, r.pings());
        assertEquals(0, r.bytesRead());
        // the client's QP refuses the Read Request (its STag is unknown there) and terminates; the server's Read
        // is flushed and its connection ends terminated
        assertTrue(r.failure().contains("TERMINATED") || r.failure().startsWith("QP event")
                || r.failure().startsWith("cq completion failed"), r.failure());
        assertTrue(nodes.runUntil(() -> BulkTransfer.has(client, dev.irdmaemu.cm.CmEventType.CLOSE), LIMIT),
                client.toString());
        assertNothingLeft(nodes.b);
    }
}
