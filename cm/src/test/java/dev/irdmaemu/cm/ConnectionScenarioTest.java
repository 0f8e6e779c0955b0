package dev.irdmaemu.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.cm.hw.InMemoryHardwarePort;
import dev.irdmaemu.fw.wire.FaultProfile;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two nodes over a perfect wire, one scenario each; every test leaves its capture in target/pcap/.
 * The expected behaviour is cm.c's, cited per test.
 */
class ConnectionScenarioTest {
    private static final long MINUTE = 60_000_000_000L;
    private static final int PORT = 4791;
    private static final byte[] CLIENT_PD = "client private data".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SERVER_PD = "server private data, a little longer".getBytes(StandardCharsets.US_ASCII);

    private static Recorder acceptingServer(ConnectionManager cm, byte[] pd) {
        Recorder r = new Recorder("server");
        return r.onEvent(e -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                assertTrue(cm.accept(e.node(), pd));
            }
        });
    }

    private static void assertClean(CmPair p) {
        assertEquals(0, p.a.nodeCount(), "nodes on A");
        assertEquals(0, p.b.nodeCount(), "nodes on B");
        assertEquals(0, p.a.listenerChildNodeCount());
        assertEquals(0, p.b.listenerChildNodeCount());
        assertEquals(0, p.deviceA.qpCount());
        assertEquals(0, p.deviceB.qpCount());
        assertEquals(0, p.scheduler.pendingTimers(), "timers");
    }

    static Stream<Arguments> setups() {
        return Stream.of(
                Arguments.of("v2-v2 IPv4", 2, CmPair.A_V4, CmPair.B_V4, CmNode.NO_VLAN),
                Arguments.of("v1-v1 IPv4", 1, CmPair.A_V4, CmPair.B_V4, CmNode.NO_VLAN),
                Arguments.of("v2-v2 IPv6", 2, CmPair.A_V6, CmPair.B_V6, CmNode.NO_VLAN),
                Arguments.of("v1-v1 IPv6", 1, CmPair.A_V6, CmPair.B_V6, CmNode.NO_VLAN),
                Arguments.of("v2-v2 IPv4 VLAN 100", 2, CmPair.A_VLAN, CmPair.B_VLAN, CmPair.VLAN));
    }

    @ParameterizedTest(name = "{0}: connect, private data both ways, graceful close")
    @MethodSource("setups")
    void connectExchangePrivateDataAndClose(String name, int revision, IpEndpoint a, IpEndpoint b, int vlan) {
        try (Capture c = new Capture("connect " + name)) {
            CmPair p = c.pair;
            Recorder server = acceptingServer(p.b, SERVER_PD);
            p.b.listen(b.withPort(PORT), 8, server);
            Recorder client = new Recorder("client");
            CmNode n = p.a.connect(a.withPort(40001), b.withPort(PORT),
                    ConnectParams.of(CLIENT_PD, 16, 16).withRevision(revision), client);
            assertEquals(CmState.SYN_SENT, n.state());
            assertTrue(p.runUntilIdle(MINUTE));

            assertEquals(List.of("CONNECT_REQUEST", "ESTABLISHED"), server.types());
            assertEquals(List.of("CONNECT_REPLY"), client.types());
            assertArrayEquals(CLIENT_PD, server.first(CmEventType.CONNECT_REQUEST).privateData());
            assertArrayEquals(SERVER_PD, client.first(CmEventType.CONNECT_REPLY).privateData());
            assertEquals(CmState.OFFLOADED, n.state());
            assertEquals(revision, n.mpaRevision());
            assertEquals(vlan, n.vlanId());

            // the hand-off: both sides' TCP contexts describe one connection
            InMemoryHardwarePort.Offload ao = p.deviceA.lastOffload();
            InMemoryHardwarePort.Offload bo = p.deviceB.lastOffload();
            assertNotNull(ao);
            assertNotNull(bo);
            assertEquals(ao.tcp().sndNxt(), bo.tcp().rcvNxt(), "A's next byte is what B expects");
            assertEquals(bo.tcp().sndNxt() + bo.mpa().lsmmLength() & 0xffff_ffffL, ao.tcp().rcvNxt(),
                    "A has consumed B's MPA reply, which B's QP sends as LSMM");
            int mss = a.ipv4() ? 1460 : 1440;
            assertEquals(mss, ao.tcp().mss());
            assertEquals(mss, bo.tcp().mss());
            assertEquals(2, ao.tcp().sndWscale());
            assertEquals(2, ao.tcp().rcvWscale());
            assertEquals(0xffffL << 2, ao.tcp().rcvWnd());
            assertEquals(CmPair.MAC_B, ao.tcp().remoteMac());
            assertEquals(CmPair.MAC_A, bo.tcp().remoteMac());
            assertEquals(vlan < 4096, ao.tcp().insertVlanTag());
            assertEquals(0x40, ao.tcp().ttl());
            assertTrue(ao.mpa().sendsRtr());
            assertFalse(bo.mpa().sendsRtr());
            assertEquals(revision, bo.mpa().revision());
            assertEquals(20 + (revision == 2 ? 4 : 0) + SERVER_PD.length, bo.mpa().lsmmLength());

            p.a.disconnect(n, false);
            assertTrue(p.runUntilIdle(MINUTE));
            assertEquals(List.of("CONNECT_REPLY", "CLOSE"), client.types());
            assertEquals(List.of("CONNECT_REQUEST", "ESTABLISHED", "DISCONNECT", "CLOSE"), server.types());
            assertClean(p);
            assertEquals(1, p.deviceB.qhashEntries().size(), "only the listener's entry stays");
        }
    }

    @Test
    void v2NodeMeetingV1PeerFallsBackToV1() {
        // cm.c irdma_parse_mpa: a revision above the node's is refused with a reset; irdma_handle_rst_pkt: an
        // MPA v2 attempt that is reset is retried once with MPA v1
        try (Capture c = new Capture("v2 meets v1 peer")) {
            CmPair p = c.pair;
            p.b.defaultMpaRevision(1);
            Recorder server = acceptingServer(p.b, SERVER_PD);
            p.b.listen(CmPair.B_V4.withPort(PORT), 8, server);
            Recorder client = new Recorder("client");
            CmNode n = p.a.connect(CmPair.A_V4.withPort(40002), CmPair.B_V4.withPort(PORT),
                    ConnectParams.of(CLIENT_PD, 8, 8), client);
            assertTrue(p.runUntilIdle(MINUTE));
            assertEquals(List.of("CONNECT_REPLY"), client.types());
            assertEquals(1, n.mpaRevision());
            assertEquals(1, p.deviceA.lastOffload().mpa().revision());
            assertArrayEquals(SERVER_PD, client.first(CmEventType.CONNECT_REPLY).privateData());
            assertEquals(1, p.b.passiveErrors(), "the v2 request was refused once");
            p.a.disconnect(n, false);
            assertTrue(p.runUntilIdle(MINUTE));
            assertClean(p);
        }
    }

    @Test
    void rejectCarriesPrivateDataAndBothNodesGo() {
        // cm.c irdma_send_mpa_reject: MPA reply with the R flag and FIN; the initiator reports -ECONNREFUSED
        try (Capture c = new Capture("reject with private data")) {
            CmPair p = c.pair;
            Recorder server = new Recorder("server").onEvent(e -> {
                if (e.type() == CmEventType.CONNECT_REQUEST) {
                    assertTrue(p.b.reject(e.node(), "go away".getBytes(StandardCharsets.US_ASCII)));
                }
            });
            p.b.listen(CmPair.B_V4.withPort(PORT), 8, server);
            Recorder client = new Recorder("client");
            p.a.connect(CmPair.A_V4.withPort(40003), CmPair.B_V4.withPort(PORT), ConnectParams.of(CLIENT_PD, 8, 8),
                    client);
            assertTrue(p.runUntilIdle(MINUTE));
            assertEquals(List.of("CONNECT_REPLY:CONNECTION_REFUSED"), client.types());
            assertEquals(CmReason.PEER_REJECTED, client.events.get(0).reason());
            assertArrayEquals("go away".getBytes(StandardCharsets.US_ASCII),
                    client.first(CmEventType.CONNECT_REPLY).privateData());
            assertEquals(List.of("CONNECT_REQUEST"), server.types());
            assertEquals(0, p.deviceA.offloads().size());
            assertEquals(0, p.deviceB.offloads().size());
            assertClean(p);
        }
    }

    @Test
    void noListenerMeansResetThenConnectError() {
        // the device has no quad hash entry for the SYN: the host stack resets it; irdma_handle_rst_pkt retries
        // with MPA v1 once, the second reset fails the open (irdma_active_open_err -> -ECONNRESET)
        try (Capture c = new Capture("no listener")) {
            CmPair p = c.pair;
            Recorder client = new Recorder("client");
            CmNode n = p.a.connect(CmPair.A_V4.withPort(40004), CmPair.B_V4.withPort(PORT),
                    ConnectParams.of(CLIENT_PD, 8, 8), client);
            assertTrue(p.runUntilIdle(MINUTE));
            assertEquals(List.of("CONNECT_REPLY:CONNECTION_RESET"), client.types());
            assertEquals(CmReason.PEER_RESET, client.events.get(0).reason());
            assertEquals(2, p.deviceB.resetsFromHostStack());
            assertTrue(n.isDestroyed());
            assertEquals(1, p.a.connectErrors());
            assertClean(p);
            assertEquals(0, p.deviceA.qhashEntries().size());
            assertEquals(0, p.deviceA.acceleratedPortUse(40004));
        }
    }

    @Test
    void destroyingListenerResetsPendingConnections() {
        // cm.c irdma_dec_refcnt_listen: unaccepted children are reset; an indicated one waits in
        // LISTENER_DESTROYED for the consumer, whose accept then fails
        try (Capture c = new Capture("listener destroyed")) {
            CmPair p = c.pair;
            List<CmNode> indicated = new ArrayList<>();
            Recorder server = new Recorder("server").onEvent(e -> indicated.add(e.node()));
            CmListener l = p.b.listen(CmPair.B_V4.withPort(PORT), 8, server);
            List<Recorder> clients = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Recorder r = new Recorder("client" + i);
                clients.add(r);
                p.a.connect(CmPair.A_V4.withPort(41000 + i), CmPair.B_V4.withPort(PORT),
                        ConnectParams.of(CLIENT_PD, 8, 8), r);
            }
            p.runFor(500_000_000L);
            assertEquals(3, indicated.size());
            assertEquals(3, l.pendingAccepts());
            p.b.destroyListener(l);
            for (CmNode n : indicated) {
                assertEquals(CmState.LISTENER_DESTROYED, n.state());
            }
            assertFalse(l.isActive());
            assertFalse(l.isRemoved(), "children still hold it");
            for (CmNode n : indicated) {
                assertFalse(p.b.accept(n, SERVER_PD));
            }
            assertTrue(l.isRemoved());
            assertTrue(p.runUntilIdle(10 * MINUTE));
            for (Recorder r : clients) {
                assertEquals(List.of("CONNECT_REPLY:CONNECTION_RESET"), r.types(), r.name);
            }
            assertClean(p);
            assertEquals(0, p.deviceB.qhashEntries().size());
            assertEquals(0, p.b.listenerCount());
        }
    }

    @Test
    void simultaneousCloseClosesBothSides() {
        try (Capture c = new Capture("simultaneous close")) {
            CmPair p = c.pair;
            List<CmNode> serverNodes = new ArrayList<>();
            Recorder server = acceptingServer(p.b, SERVER_PD);
            Recorder s2 = new Recorder("server").onEvent(e -> {
                server.onEvent(e);
                if (e.type() == CmEventType.ESTABLISHED) {
                    serverNodes.add(e.node());
                }
            });
            p.b.listen(CmPair.B_V4.withPort(PORT), 8, s2);
            Recorder client = new Recorder("client");
            CmNode n = p.a.connect(CmPair.A_V4.withPort(40005), CmPair.B_V4.withPort(PORT),
                    ConnectParams.of(CLIENT_PD, 8, 8), client);
            assertTrue(p.runUntilIdle(MINUTE));
            assertEquals(1, serverNodes.size());
            p.a.disconnect(n, false);
            p.b.disconnect(serverNodes.get(0), false);
            assertTrue(p.runUntilIdle(MINUTE));
            assertEquals(List.of("CONNECT_REPLY", "CLOSE"), client.types());
            assertEquals(List.of("CONNECT_REQUEST", "ESTABLISHED", "CLOSE"), s2.types());
            assertClean(p);
        }
    }

    @Test
    void abortiveCloseResetsThePeer() {
        try (Capture c = new Capture("abortive close")) {
            CmPair p = c.pair;
            Recorder server = acceptingServer(p.b, SERVER_PD);
            p.b.listen(CmPair.B_V4.withPort(PORT), 8, server);
            Recorder client = new Recorder("client");
            CmNode n = p.a.connect(CmPair.A_V4.withPort(40006), CmPair.B_V4.withPort(PORT),
                    ConnectParams.of(CLIENT_PD, 8, 8), client);
            assertTrue(p.runUntilIdle(MINUTE));
            p.a.disconnect(n, true);
            assertTrue(p.runUntilIdle(MINUTE));
            assertEquals(List.of("CONNECT_REPLY", "CLOSE"), client.types());
            assertEquals(List.of("CONNECT_REQUEST", "ESTABLISHED", "DISCONNECT:CONNECTION_RESET", "CLOSE"),
                    server.types());
            assertEquals(CmReason.PEER_RESET, server.first(CmEventType.DISCONNECT).reason());
            assertEquals(CmReason.LOCAL_ABORT, client.first(CmEventType.CLOSE).reason());
            assertClean(p);
        }
    }

    @ParameterizedTest(name = "loopback over {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"IPv4", "IPv6"})
    void loopbackConnectionOnOneNode(String family) {
        // cm.c irdma_ipv4_is_lpb / irdma_ipv6_is_lpb: local and remote address equal, both ends on one CM
        IpEndpoint address = family.equals("IPv4") ? CmPair.A_V4 : CmPair.A_V6;
        try (Capture c = new Capture("loopback " + family)) {
            CmPair p = c.pair;
            Recorder server = acceptingServer(p.a, SERVER_PD);
            p.a.listen(address.withPort(PORT), 8, server);
            Recorder client = new Recorder("client");
            CmNode n = p.a.connect(address.withPort(40007), address.withPort(PORT),
                    ConnectParams.of(CLIENT_PD, 8, 8), client);
            assertTrue(p.runUntilIdle(MINUTE));
            assertEquals(List.of("CONNECT_REPLY"), client.types());
            assertEquals(List.of("CONNECT_REQUEST", "ESTABLISHED"), server.types());
            assertArrayEquals(SERVER_PD, client.first(CmEventType.CONNECT_REPLY).privateData());
            assertTrue(p.deviceA.lastOffload().tcp().loopback());
            assertEquals(CmPair.MAC_A, p.deviceA.lastOffload().tcp().remoteMac());
            assertEquals(0, p.b.nodesCreated(), "nothing reached B");
            p.a.disconnect(n, false);
            assertTrue(p.runUntilIdle(MINUTE));
            assertClean(p);
        }
    }

    @Test
    void backlogLimitsUnacceptedConnections() {
        // cm.c irdma_handle_syn_pkt: a SYN is dropped when pend_accepts_cnt exceeds the backlog
        try (Capture c = new Capture("backlog")) {
            CmPair p = c.pair;
            Recorder server = new Recorder("server");
            CmListener l = p.b.listen(CmPair.B_V4.withPort(PORT), 1, server);
            for (int i = 0; i < 3; i++) {
                p.a.connect(CmPair.A_V4.withPort(42000 + i), CmPair.B_V4.withPort(PORT),
                        ConnectParams.of(CLIENT_PD, 8, 8), new Recorder("c" + i));
            }
            p.runFor(500_000_000L);
            assertEquals(2, l.pendingAccepts(), "backlog 1 admits while pending <= 1");
            assertTrue(p.b.backlogDrops() >= 1);
            assertEquals(2, server.events.size());
            // accepting one makes room: the dropped SYN's retransmission gets in
            assertTrue(p.b.accept(server.events.get(0).node(), SERVER_PD));
            assertEquals(1, l.pendingAccepts());
            p.runFor(5_000_000_000L);
            assertEquals(3, server.events.stream().filter(e -> e.type() == CmEventType.CONNECT_REQUEST).count());
        }
    }

    @Test
    void wildcardListenProgramsOneChildPerLocalAddress() {
        // cm.c irdma_add_mqh_4: a wildcard listen becomes one quad hash entry per address, VLANs included
        try (Capture c = new Capture("wildcard listen")) {
            CmPair p = c.pair;
            Recorder server = acceptingServer(p.b, SERVER_PD);
            CmListener l = p.b.listen(IpEndpoint.of("0.0.0.0", PORT), 8, server);
            assertEquals(2, l.childListenerCount());
            assertEquals(2, p.deviceB.qhashEntries().size());
            Recorder c1 = new Recorder("untagged");
            Recorder c2 = new Recorder("vlan");
            p.a.connect(CmPair.A_V4.withPort(43000), CmPair.B_V4.withPort(PORT), ConnectParams.of(CLIENT_PD, 8, 8), c1);
            p.a.connect(CmPair.A_VLAN.withPort(43001), CmPair.B_VLAN.withPort(PORT), ConnectParams.of(CLIENT_PD, 8, 8),
                    c2);
            assertTrue(p.runUntilIdle(MINUTE));
            assertEquals(List.of("CONNECT_REPLY"), c1.types());
            assertEquals(List.of("CONNECT_REPLY"), c2.types());
            assertEquals(4, server.events.size());
            List<CmNode> accepted = new ArrayList<>();
            server.events.stream().filter(e -> e.type() == CmEventType.ESTABLISHED).forEach(e -> accepted.add(e.node()));
            p.b.destroyListener(l);
            // irdma_dec_refcnt_listen: accepted children keep the listener, and its entries, until they close
            assertEquals(2, p.deviceB.qhashEntries().size());
            assertFalse(l.isRemoved());
            for (CmNode n : accepted) {
                p.b.disconnect(n, false);
            }
            assertTrue(p.runUntilIdle(MINUTE));
            assertTrue(l.isRemoved());
            assertEquals(0, p.deviceB.qhashEntries().size());
            assertEquals(List.of("CONNECT_REPLY", "DISCONNECT", "CLOSE"), c1.types());
        }
    }

    @Test
    void teardownOfALocalAddressEndsItsConnections() {
        // cm.c irdma_cm_teardown_connections: offloaded connections on the address are moved to error (reset)
        try (Capture c = new Capture("teardown address")) {
            CmPair p = c.pair;
            Recorder server = acceptingServer(p.b, SERVER_PD);
            p.b.listen(IpEndpoint.of("0.0.0.0", PORT), 8, server);
            Recorder c1 = new Recorder("untagged");
            Recorder c2 = new Recorder("vlan");
            p.a.connect(CmPair.A_V4.withPort(44000), CmPair.B_V4.withPort(PORT), ConnectParams.of(CLIENT_PD, 8, 8), c1);
            p.a.connect(CmPair.A_VLAN.withPort(44001), CmPair.B_VLAN.withPort(PORT), ConnectParams.of(CLIENT_PD, 8, 8),
                    c2);
            assertTrue(p.runUntilIdle(MINUTE));
            LocalAddress vlanAddress = LocalAddress.onVlan("198.51.100.2", CmPair.VLAN);
            p.b.addressRemoved(vlanAddress);
            assertTrue(p.runUntilIdle(MINUTE));
            assertEquals(List.of("CONNECT_REPLY"), c1.types(), "the untagged connection is untouched");
            assertEquals(List.of("CONNECT_REPLY", "DISCONNECT:CONNECTION_RESET", "CLOSE"), c2.types());
            assertEquals(1, p.b.nodeCount());
            assertEquals(1, p.deviceB.qhashEntries().size(), "the VLAN address's listener entry is gone");
            // a SYN to the address now meets the host stack: reset, v1 retry, reset
            Recorder c3 = new Recorder("vlan again");
            p.a.connect(CmPair.A_VLAN.withPort(44002), CmPair.B_VLAN.withPort(PORT), ConnectParams.of(CLIENT_PD, 8, 8),
                    c3);
            assertTrue(p.runUntilIdle(MINUTE));
            assertEquals(List.of("CONNECT_REPLY:CONNECTION_RESET"), c3.types());
            // the address comes back: the wildcard listener's child gets its entry again and accepts
            p.b.addressAdded(vlanAddress);
            assertEquals(2, p.deviceB.qhashEntries().size());
            Recorder c4 = new Recorder("vlan back");
            p.a.connect(CmPair.A_VLAN.withPort(44003), CmPair.B_VLAN.withPort(PORT), ConnectParams.of(CLIENT_PD, 8, 8),
                    c4);
            assertTrue(p.runUntilIdle(MINUTE));
            assertEquals(List.of("CONNECT_REPLY"), c4.types());
        }
    }

    @Test
    void silentPeerEndsInAbortAfterTheKernelsRetries() {
        // cm.c irdma_cm_timer_tick: 32 retransmissions (IRDMA_DEFAULT_RETRANS), waits of 1 s then doubling,
        // capped at 12 s (IRDMA_MAX_TIMEOUT); then irdma_retrans_expired resets and aborts
        try (Capture c = new Capture("silent peer", new FaultProfile(1, 0, 0, 0, 10_000, 0, 0), 7)) {
            CmPair p = c.pair;
            Recorder client = new Recorder("client");
            p.a.connect(CmPair.A_V4.withPort(45000), CmPair.B_V4.withPort(PORT), ConnectParams.of(CLIENT_PD, 8, 8),
                    client);
            assertTrue(p.runUntilIdle(10 * MINUTE));
            assertEquals(List.of("CONNECT_REPLY:CONNECTION_RESET"), client.types());
            assertEquals(CmReason.RETRIES_EXHAUSTED, client.events.get(0).reason());
            long expected = (1 + 2 + 4 + 8 + 12L * 29) * 1_000_000_000L;
            assertEquals(expected, client.events.get(0).timeNanos());
            assertEquals(32, p.a.retransmissions());
            assertEquals(34, p.link.framesCarried(), "SYN, 32 retransmissions, the final reset");
            assertClean(p);
        }
    }

    @Test
    void synRetransmissionBacksOffAsTheKernel() {
        // cm.c irdma_cm_timer_tick: first resend after IRDMA_RETRY_TIMEOUT (1 s), then the wait doubles
        // (HZ << (IRDMA_DEFAULT_RETRANS - retranscount)) up to IRDMA_MAX_TIMEOUT (12 s)
        List<Long> synTimes = new ArrayList<>();
        dev.irdmaemu.fw.frame.TcpPacket t = new dev.irdmaemu.fw.frame.TcpPacket();
        CmPair p = new CmPair(new CmPair.Config(1, new FaultProfile(1, 0, 0, 0, 10_000, 0, 0), FaultProfile.NONE,
                (time, store, off, len) -> {
                    if (t.wrap(store, off, len).validate().accepted() && t.tcp().syn()) {
                        synTimes.add(time);
                    }
                }, 128, 128, 128, 128));
        p.a.connect(CmPair.A_V4.withPort(45001), CmPair.B_V4.withPort(PORT), ConnectParams.of(CLIENT_PD, 8, 8),
                new Recorder("client"));
        p.runUntilIdle(10 * MINUTE);
        assertEquals(33, synTimes.size(), "the SYN and 32 retransmissions");
        long[] expectedGaps = {1, 2, 4, 8, 12, 12, 12};
        for (int i = 0; i < expectedGaps.length; i++) {
            assertEquals(expectedGaps[i] * 1_000_000_000L, synTimes.get(i + 1) - synTimes.get(i), "gap " + i);
        }
        assertEquals(12_000_000_000L, synTimes.get(32) - synTimes.get(31));
    }

    @Test
    void rejectingSideLingersInTimeWaitForATenthOfASecond() {
        // cm.c irdma_handle_fin_pkt FIN_WAIT2 -> TIME_WAIT with a close entry, HZ/10 (irdma_schedule_cm_timer)
        try (Capture c = new Capture("reject time wait")) {
            CmPair p = c.pair;
            List<CmNode> passive = new ArrayList<>();
            p.b.listen(CmPair.B_V4.withPort(PORT), 8, e -> {
                passive.add(e.node());
                p.b.reject(e.node(), new byte[0]);
            });
            p.a.connect(CmPair.A_V4.withPort(40010), CmPair.B_V4.withPort(PORT), ConnectParams.of(CLIENT_PD, 8, 8),
                    new Recorder("client"));
            long enteredTimeWait = -1;
            while (p.scheduler.runNext()) {
                if (enteredTimeWait < 0 && !passive.isEmpty() && passive.get(0).state() == CmState.TIME_WAIT) {
                    enteredTimeWait = p.scheduler.now();
                }
                if (!passive.isEmpty() && passive.get(0).isDestroyed()) {
                    break;
                }
            }
            assertTrue(enteredTimeWait > 0);
            assertEquals(ConnectionManager.CLOSE_DELAY_NANOS, p.scheduler.now() - enteredTimeWait);
        }
    }

    @Test
    void secondListenOnTheSameAddressIsRefused() {
        // cm.c irdma_make_listen_node: an active listener covering the address and port refuses another
        CmPair p = new CmPair();
        p.b.listen(IpEndpoint.of("0.0.0.0", PORT), 8, e -> { });
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> p.b.listen(CmPair.B_V4.withPort(PORT), 8, e -> { }));
        CmListener v6 = p.b.listen(IpEndpoint.of("::", PORT), 8, e -> { });
        assertEquals(1, v6.childListenerCount(), "one IPv6 address on B");
    }

    @Test
    void destroyedListenerWithLiveChildrenIsTakenOverByANewListen() {
        // cm.c irdma_make_listen_node: a listener found in passive state is reused (reused_node)
        CmPair p = new CmPair();
        Recorder server = acceptingServer(p.b, SERVER_PD);
        CmListener l = p.b.listen(CmPair.B_V4.withPort(PORT), 8, server);
        CmNode n = p.a.connect(CmPair.A_V4.withPort(40011), CmPair.B_V4.withPort(PORT),
                ConnectParams.of(CLIENT_PD, 8, 8), new Recorder("client"));
        assertTrue(p.runUntilIdle(MINUTE));
        p.b.destroyListener(l);
        assertFalse(l.isRemoved());
        CmListener again = p.b.listen(CmPair.B_V4.withPort(PORT), 8, server);
        assertTrue(again == l, "the same listener object");
        assertTrue(again.isActive());
        p.a.disconnect(n, false);
        assertTrue(p.runUntilIdle(MINUTE));
        assertFalse(again.isRemoved(), "its listen reference keeps it");
        assertEquals(1, p.deviceB.qhashEntries().size());
    }

    @Test
    void connectToAnUnresolvableNeighbourFailsAtOnceAndLeavesNothing() {
        // cm.c irdma_make_cm_node: no ARP entry, no node (irdma_connect returns an error)
        CmPair p = new CmPair();
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> p.a.connect(CmPair.A_V4.withPort(40012), IpEndpoint.of("192.0.2.99", PORT),
                        ConnectParams.of(CLIENT_PD, 8, 8), new Recorder("client")));
        assertEquals(0, p.a.nodeCount());
        assertEquals(0, p.deviceA.qhashEntries().size());
        assertEquals(0, p.scheduler.pendingTimers());
        assertEquals(1, p.a.connectErrors());
    }

    @Test
    void teardownOfAllConnectionsEndsSetupAndOffloadedOnes() {
        // cm.c irdma_cm_teardown_connections(disconnect_all): everything goes, whatever its address
        CmPair p = new CmPair();
        Recorder server = acceptingServer(p.b, SERVER_PD);
        p.b.listen(IpEndpoint.of("0.0.0.0", PORT), 8, server);
        p.b.listen(CmPair.B_V4.withPort(PORT + 1), 8, e -> { });
        Recorder offloaded = new Recorder("offloaded");
        Recorder pending = new Recorder("pending");
        p.a.connect(CmPair.A_V4.withPort(46000), CmPair.B_V4.withPort(PORT), ConnectParams.of(CLIENT_PD, 8, 8),
                offloaded);
        p.a.connect(CmPair.A_V4.withPort(46001), CmPair.B_V4.withPort(PORT + 1), ConnectParams.of(CLIENT_PD, 8, 8),
                pending);
        p.runFor(100_000_000L);
        assertEquals(List.of("CONNECT_REPLY"), offloaded.types());
        assertTrue(pending.events.isEmpty(), "the second listener never answers");
        p.a.teardownAllConnections();
        assertTrue(p.runUntilIdle(MINUTE) || p.a.nodeCount() == 0);
        assertEquals(List.of("CONNECT_REPLY", "CLOSE"), offloaded.types());
        assertEquals(CmReason.LOCAL_ABORT, offloaded.first(CmEventType.CLOSE).reason());
        assertEquals(List.of("CONNECT_REPLY:CONNECTION_RESET"), pending.types());
        assertEquals(CmReason.LOCAL_ABORT, pending.events.get(0).reason());
        assertEquals(0, p.a.nodeCount());
        assertEquals(1, p.b.accepts());
    }
}
