package dev.irdmaemu.bridge.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.model.ModelNode;
import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.driver.CqpException;
import dev.irdmaemu.driver.HwStatistics;
import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.cm.rping.RpingClient;
import dev.irdmaemu.cm.rping.RpingOptions;
import dev.irdmaemu.cm.rping.RpingResult;
import dev.irdmaemu.cm.rping.RpingServer;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.GatherStatsBuffer.Stat;
import dev.irdmaemu.fw.pcap.FrameTap;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Gather Stats (CQP 0x2E) on two model nodes after rping traffic: each node's counters, gathered by the driver as
 * irdma does (utils.c irdma_cqp_gather_stats_cmd, ctrl.c irdma_update_stats), match what the other node sent and
 * what the rping protocol makes: per ping the client Sends two advertisements, the server Reads the client's
 * buffer, Writes into its sink and Sends two go-aheads.
 */
class GatherStatsIntegrationTest {
    private static final long LIMIT = 600_000_000_000L;
    private static final int PINGS = 25;
    private final TwoNodes nodes = TwoNodes.linked(FrameTap.NONE, t -> t, t -> t);
    private final List<RpingResult> serverResults = new ArrayList<>();
    private RpingResult clientResult;

    @AfterEach
    void close() {
        nodes.close();
    }

    private static RpingOptions serverAt(IpEndpoint address) {
        return new RpingOptions(true, address.withPort(RpingOptions.DEFAULT_PORT), null, 0, RpingOptions.DEFAULT_SIZE,
                true, false, false);
    }

    private static long v(ModelNode n, Stat s) {
        return n.driver.statistics().value(s);
    }

    @Test
    void theCountersMoveWithRpingTrafficAndMatchWhatThePeerSent() {
        HwStatistics a = nodes.a.driver.statistics();
        HwStatistics b = nodes.b.driver.statistics();
        assertTrue(a.gather() && b.gather(), "a first gather after bring-up");
        long aTxBefore = a.value(Stat.IP4TXPKTS);
        long bRxBefore = b.value(Stat.IP4RXPKTS);
        new RpingServer(nodes.b.cm, nodes.b.verbs, serverAt(CmPair.B_V4)).onConnectionDone(serverResults::add)
                .start();
        RpingClient c = new RpingClient(nodes.a.cm, nodes.a.verbs, RpingOptions.client(
                CmPair.B_V4.withPort(RpingOptions.DEFAULT_PORT), CmPair.A_V4.withPort(40000), PINGS).validating())
                .onDone(r -> clientResult = r);
        c.start();
        assertTrue(nodes.runUntil(() -> clientResult != null && serverResults.size() == 1, LIMIT));
        assertTrue(clientResult.ok(), clientResult.toString());
        assertEquals(PINGS, clientResult.pings());
        assertTrue(nodes.runUntil(() -> c.controlBlock().isReleased(), LIMIT));
        nodes.runUntil(() -> false, 1_000_000_000L);
        assertTrue(a.gather() && b.gather());
        assertEquals(2, a.gathers());
        String all = "A " + describe(nodes.a) + "\nB " + describe(nodes.b);
        System.out.println("Gathered after " + PINGS + " pings:\n" + all);
        // RDMA messages: the server Reads and Writes once per ping, the client Sends twice, the server Sends twice
        assertEquals(PINGS, v(nodes.b, Stat.RDMATXRDS), all);
        assertEquals(v(nodes.b, Stat.RDMATXRDS), v(nodes.a, Stat.RDMARXRDS), all);
        assertEquals(PINGS, v(nodes.b, Stat.RDMATXWRS), all);
        assertEquals(v(nodes.b, Stat.RDMATXWRS), v(nodes.a, Stat.RDMARXWRS), all);
        assertEquals(v(nodes.a, Stat.RDMATXWRS), v(nodes.b, Stat.RDMARXWRS), all);
        // the client's one Read: the RTR irdma writes before RTS (ctrl.c irdma_sc_send_rtt, a zero-length Read)
        assertEquals(1, v(nodes.a, Stat.RDMATXRDS), all);
        assertEquals(v(nodes.a, Stat.RDMATXRDS), v(nodes.b, Stat.RDMARXRDS), all);
        assertEquals(2L * PINGS, v(nodes.a, Stat.RDMATXSNDS), all);
        assertEquals(v(nodes.a, Stat.RDMATXSNDS), v(nodes.b, Stat.RDMARXSNDS), all);
        assertEquals(2L * PINGS, v(nodes.b, Stat.RDMATXSNDS), all);
        assertEquals(v(nodes.b, Stat.RDMATXSNDS), v(nodes.a, Stat.RDMARXSNDS), all);
        // on a perfect link every IPv4 packet and octet one node sent, the other received, and each is a TCP segment
        assertTrue(v(nodes.a, Stat.IP4TXPKTS) > aTxBefore + 4L * PINGS, all);
        assertEquals(v(nodes.a, Stat.IP4TXPKTS) - aTxBefore, v(nodes.b, Stat.IP4RXPKTS) - bRxBefore, all);
        assertEquals(v(nodes.a, Stat.IP4TXOCTS), v(nodes.b, Stat.IP4RXOCTS), all);
        assertEquals(v(nodes.b, Stat.IP4TXOCTS), v(nodes.a, Stat.IP4RXOCTS), all);
        assertEquals(v(nodes.a, Stat.IP4TXPKTS), v(nodes.a, Stat.TCPTXSEG), all);
        assertEquals(v(nodes.b, Stat.IP4RXPKTS), v(nodes.b, Stat.TCPRXSEGS), all);
        // every frame the port put on the wire was one of them (no LAN traffic in this run)
        assertEquals(nodes.a.device.port().txFrames(), v(nodes.a, Stat.IP4TXPKTS), all);
        assertEquals(0, v(nodes.a, Stat.TCPRTXSEG), "a perfect link retransmits nothing");
        assertEquals(0, v(nodes.a, Stat.IP6TXPKTS));
        assertEquals(0, a.failures());
    }

    @Test
    void aBufferOutsideHostMemoryGetsAnErrorCompletionAndTheTotalsStay() {
        ModelNode n = nodes.a;
        assertTrue(n.driver.statistics().gather());
        long before = n.driver.statistics().value(Stat.IP4TXPKTS);
        CqpException e = assertThrows(CqpException.class, () -> n.driver.cqp().op("GATHER_STATS",
                (o, valid) -> CqpWqeWriter.gatherStats(n.driver.store(), o, 0x10_0000L, 0, false, false, 0, valid)));
        assertEquals(CqpException.Kind.OP_ERROR, e.kind());
        // another function's counters, and a statistics instance, are refused too
        assertThrows(CqpException.class, () -> n.driver.cqp().op("GATHER_STATS", (o, valid) -> CqpWqeWriter.gatherStats(
                n.driver.store(), o, n.driver.statistics().bufferAddress(), 5, true, false, 0, valid)));
        assertThrows(CqpException.class, () -> n.driver.cqp().op("GATHER_STATS", (o, valid) -> CqpWqeWriter.gatherStats(
                n.driver.store(), o, n.driver.statistics().bufferAddress(), 0, false, true, 3, valid)));
        // the driver stays usable and its totals did not move backwards
        n.driver.cqp().nop();
        assertTrue(n.driver.statistics().gather());
        assertTrue(n.driver.statistics().value(Stat.IP4TXPKTS) >= before);
    }

    @Test
    void theSixtySecondTimerGathersOnTheSimulatedClock() {
        HwStatistics s = nodes.a.driver.statistics();
        assertTrue(s.timerRunning(), "started at bring-up (irdma_vsi_stats_init)");
        assertTrue(nodes.runUntil(() -> s.gathers() == 2, 121_000_000_000L));
        assertTrue(nodes.a.driver.scheduler().now() >= 2 * HwStatistics.STATS_TIMER_DELAY_NANOS);
        s.stopTimer();
        assertFalse(s.timerRunning());
        assertEquals(IrdmaDriver.HMC_FN_ID, 0);
    }

    private static String describe(ModelNode n) {
        StringBuilder sb = new StringBuilder();
        for (Stat s : Stat.values()) {
            long x = v(n, s);
            if (x != 0) {
                sb.append(s.name()).append('=').append(x).append(' ');
            }
        }
        return sb.toString();
    }
}
