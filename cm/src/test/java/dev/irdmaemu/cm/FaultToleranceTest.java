package dev.irdmaemu.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.fw.sim.SimTimer;
import dev.irdmaemu.fw.wire.FaultProfile;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Many connections between two nodes over a lossy, duplicating, reordering, delaying (and, in the second test,
 * corrupting) wire. Every connect must end in a CONNECT_REPLY, success or reported error, within bounded
 * simulated time; closing everything must leave no node, no listener child and no timer on either side.
 */
class FaultToleranceTest {
    private static final long SECOND = 1_000_000_000L;
    private static final int PORT = 4791;

    private static final FaultProfile LOSSY = new FaultProfile(0.05, 0.01, 0.02, 0, 20_000, 30_000, 500_000);

    @Test
    void tenThousandConnectionsOverALossyWire() {
        Outcome o = run(10_000, LOSSY, 42, CmPair.A_V4, CmPair.B_V4);
        assertTrue(o.established > 9_900, "nearly all connect: " + o);
        assertEquals(0, o.corruptedAccepted);
    }

    @Test
    void corruptedSegmentsAreNeverAccepted() {
        Outcome o = run(2_000, LOSSY.withCorruption(0.03), 7, CmPair.A_V4, CmPair.B_V4);
        assertTrue(o.corruptedRefused > 100, "corruption happened and was refused: " + o);
        assertEquals(0, o.corruptedAccepted, "a corrupted segment passed the checksums");
        assertTrue(o.established > 1_900, o.toString());
    }

    private record Outcome(int established, int failed, long corruptedRefused, long corruptedAccepted,
                           long simulatedNanos) {
    }

    @ParameterizedTest(name = "seed {0}, {1}")
    @CsvSource({"1, IPv4", "2, IPv6", "3, VLAN", "4, IPv6", "5, VLAN"})
    void otherSeedsFamiliesAndVlans(long seed, String family) {
        IpEndpoint a = family.equals("IPv6") ? CmPair.A_V6 : family.equals("VLAN") ? CmPair.A_VLAN : CmPair.A_V4;
        IpEndpoint b = family.equals("IPv6") ? CmPair.B_V6 : family.equals("VLAN") ? CmPair.B_VLAN : CmPair.B_V4;
        Outcome o = run(1_000, LOSSY.withCorruption(0.01), seed, a, b);
        assertEquals(0, o.corruptedAccepted);
        assertTrue(o.established > 950, o.toString());
    }

    private static Outcome run(int connections, FaultProfile faults, long seed, IpEndpoint clientAddress,
                               IpEndpoint serverAddress) {
        CmPair p = new CmPair(CmPair.Config.perfect().withFaults(faults).withSeed(seed));
        p.deviceA.quiet();
        p.deviceB.quiet();
        Set<CmNode> serverAlive = new HashSet<>();
        CmListener l = p.b.listen(serverAddress.withPort(PORT), connections * 2, e -> {
            switch (e.type()) {
                case CONNECT_REQUEST -> p.b.accept(e.node(), new byte[] {9, 8, 7});
                case ESTABLISHED -> serverAlive.add(e.node());
                case CLOSE -> serverAlive.remove(e.node());
                default -> {
                }
            }
        });
        int[] replies = new int[connections];
        boolean[] ok = new boolean[connections];
        boolean[] closed = new boolean[connections];
        List<CmNode> clients = new ArrayList<>(connections);
        // one connect every 50 µs of simulated time
        int[] next = {0};
        SimTimer[] holder = new SimTimer[1];
        holder[0] = p.scheduler.newTimer("launch", () -> {
            int i = next[0]++;
            clients.add(p.a.connect(clientAddress.withPort(10_000 + i), serverAddress.withPort(PORT),
                    ConnectParams.of(new byte[] {(byte) i}, 8, 8), e -> {
                        if (e.type() == CmEventType.CONNECT_REPLY) {
                            replies[i]++;
                            ok[i] = e.status() == CmStatus.OK;
                        } else if (e.type() == CmEventType.CLOSE) {
                            closed[i] = true;
                        }
                    }));
            if (next[0] < connections) {
                holder[0].scheduleIn(50_000);
            }
        });
        holder[0].scheduleIn(0);
        // bounded: every open is decided within the CM's own retry budget (about 6 minutes) plus the launch
        long bound = 20 * 60 * SECOND;
        long start = p.scheduler.now();
        while (p.scheduler.now() - start < bound) {
            p.runFor(SECOND);
            boolean all = clients.size() == connections;
            for (int i = 0; all && i < connections; i++) {
                all = replies[i] > 0;
            }
            if (all) {
                break;
            }
        }
        int established = 0;
        for (int i = 0; i < connections; i++) {
            assertEquals(1, replies[i], "connect " + i + " got " + replies[i] + " replies");
            if (ok[i]) {
                established++;
            }
        }
        long decided = p.scheduler.now() - start;
        // close everything: the clients first, then whatever the server still holds
        for (int i = 0; i < connections; i++) {
            if (ok[i] && !closed[i]) {
                p.a.disconnect(clients.get(i), false);
            }
        }
        p.runFor(2 * SECOND);
        for (CmNode n : new ArrayList<>(serverAlive)) {
            p.b.disconnect(n, false);
        }
        p.b.destroyListener(l);
        assertTrue(p.runUntilIdle(30 * 60 * SECOND), "the simulation went idle");
        assertEquals(0, p.a.nodeCount(), "nodes left on A");
        assertEquals(0, p.b.nodeCount(), "nodes left on B");
        assertEquals(0, p.b.listenerChildNodeCount());
        assertEquals(0, p.b.listenerCount());
        assertEquals(0, p.scheduler.pendingTimers(), "timers left");
        assertEquals(0, p.deviceA.qpCount());
        assertEquals(0, p.deviceB.qpCount());
        assertEquals(0, p.deviceA.qhashEntries().size());
        assertEquals(0, p.deviceB.qhashEntries().size());
        for (int i = 0; i < connections; i++) {
            if (ok[i]) {
                assertTrue(closed[i], "connection " + i + " was closed");
            }
        }
        org.slf4j.LoggerFactory.getLogger(FaultToleranceTest.class).info(
                "{} connections: {} established, decided within {} s simulated; link lost {} dup {} reordered {} corrupted {}",
                connections, established, decided / SECOND, p.link.framesLost(), p.link.framesDuplicated(),
                p.link.framesReordered(), p.link.framesCorrupted());
        return new Outcome(established, connections - established,
                p.deviceA.corruptedFramesRefused() + p.deviceB.corruptedFramesRefused(),
                p.deviceA.corruptedFramesAccepted() + p.deviceB.corruptedFramesAccepted(), decided);
    }

    @Test
    void aLossyHandfulLeftInACapture() {
        // for a person to look at: retransmissions, duplicates, reordering and corruption in target/pcap/lossy.pcap
        try (Capture c = new Capture("lossy", LOSSY.withLoss(0.15).withCorruption(0.05), 11)) {
            CmPair p = c.pair;
            int[] ok = new int[1];
            p.b.listen(CmPair.B_V4.withPort(PORT), 64, e -> {
                if (e.type() == CmEventType.CONNECT_REQUEST) {
                    p.b.accept(e.node(), new byte[] {1});
                }
            });
            List<CmNode> clients = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                clients.add(p.a.connect(CmPair.A_V4.withPort(30_000 + i), CmPair.B_V4.withPort(PORT),
                        ConnectParams.of(new byte[] {2}, 8, 8), e -> {
                            if (e.type() == CmEventType.CONNECT_REPLY && e.status() == CmStatus.OK) {
                                ok[0]++;
                            }
                        }));
            }
            p.runFor(60 * SECOND);
            assertEquals(20, ok[0]);
            for (CmNode n : clients) {
                p.a.disconnect(n, false);
            }
            p.runFor(2 * SECOND);
            assertTrue(p.link.framesLost() > 0 && p.link.framesCorrupted() > 0);
            assertEquals(0, p.deviceA.corruptedFramesAccepted() + p.deviceB.corruptedFramesAccepted());
        }
    }
}
