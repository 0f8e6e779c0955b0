package dev.irdmaemu.bridge.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.kit.GuestLaunch;
import dev.irdmaemu.bridge.kit.GuestResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What each end-to-end scenario must show, written once and checked on both ways of running it: a direct boot
 * ({@code irdma-emu boot}'s {@link BootRun}, QEMU a child process: {@code PingBootTest},
 * {@code RefusedConnectionBootTest}) and a boot whose QEMU runs in a guest container (the container tests'
 * {@code HostedNodeModel}). Both hand over the same {@link BootReport}: the guest's result line, the hosted node's
 * counters and services, and the run folder's console log, pcap (issue 6 test 6: it decodes with
 * {@code irdma-emu decode}) and trace.
 */
public final class ScenarioExpectations {
    private static final Pattern TCP = Pattern.compile("(\\S+) → (\\S+) (TCP|MPA) \\d+ (\\d+) → (\\d+) \\[([A-Z, ]+)]");

    private ScenarioExpectations() {
    }

    /**
     * Issue 6, test 1: the guest reaches the model's port. It resolves 192.0.2.1 with ARP and pings it, resolves
     * 2001:db8::1 with Neighbor Discovery and pings it; the hosted node's LAN function answers on behalf of its
     * addresses and learns the guest's MAC; the capture shows all of it.
     */
    public static void ping(BootReport r) throws IOException {
        ranAndPassed(r, BootScenario.PING);
        GuestResult g = r.guest();
        assertEquals("3", g.field("ping4_replies"), "three ICMP echo replies from 192.0.2.1");
        assertEquals("02:00:00:00:00:01", g.field("arp_mac"), "ARP resolved the node's MAC");
        assertEquals("3", g.field("ping6_replies"), "three ICMPv6 echo replies from 2001:db8::1");
        assertEquals("02:00:00:00:00:01", g.field("nd_mac"), "Neighbor Discovery resolved the node's MAC");
        assertEquals("02:00:00:00:00:02", g.field("eth0_mac"));
        NodeCounters c = r.counters();
        assertEquals(2, c.neighbours(), "the node learned the guest's IPv4 and IPv6 addresses");
        assertEquals(0, c.lanMalformed(), "a real guest sends nothing malformed");
        assertTrue(c.lanAnswered() >= 8, "at least 1 ARP reply, 3 echo replies, 1 advertisement, 3 ICMPv6 replies: "
                + c.lanAnswered());
        assertEquals(0, c.cmNodesCreated(), "no RDMA traffic in this scenario");

        List<String> lines = BootTests.decode(r.pcap());
        assertTrue(lines.stream().anyMatch(l -> l.contains("ARP 42 Who has 192.0.2.1? Tell 192.0.2.2")), lines::toString);
        assertTrue(lines.stream().anyMatch(l -> l.contains("ARP 60 192.0.2.1 is at 02:00:00:00:00:01")), lines::toString);
        assertTrue(lines.stream().filter(l -> l.contains("192.0.2.1 → 192.0.2.2 ICMP 98")).count() >= 3, lines::toString);
        assertTrue(lines.stream().anyMatch(l -> l.contains("2001:db8::1 → 2001:db8::2 ICMPv6 86")),
                "the neighbor advertisement: " + lines);
        assertTrue(lines.stream().filter(l -> l.contains("2001:db8::1 → 2001:db8::2 ICMPv6 118")).count() >= 3,
                lines::toString);
    }

    /**
     * Issue 6, test 3: stock siw as rping client, the model as server. siw ships with peer_to_peer false (a
     * compile-time constant in siw_main.c), so its MPA v2 request lacks the peer-to-peer bit; irdma refuses such a
     * request (irdma_negotiate_mpa_v2_ird_ord) and resets the connection, and so does the model's CM. The guest's
     * rping reports the failure, the capture shows the MPA request followed by the node's RST, and the trace names
     * the rule.
     */
    public static void rpingClientRefused(BootReport r) throws IOException {
        assertEquals(GuestLaunch.Siw.STOCK, r.siw());
        ranAndPassed(r, BootScenario.RPING_CLIENT_REFUSED);
        GuestResult g = r.guest();
        assertEquals("siw.ko", g.field("siw_module"), "the stock siw build");
        assertNotEquals("0", g.field("rping_exit"), "rping failed");
        assertEquals("0", g.field("rping_pings"));
        assertTrue(g.field("rping_said").contains("RDMA_CM_EVENT_REJECTED"), "rping says why: " + g.field("rping_said"));

        NodeCounters c = r.counters();
        assertEquals(1, c.cmPassiveErrors(), "the CM refused one connection");
        assertEquals(0, c.cmAccepts());
        assertEquals(0, c.cmNodesLeft(), "and left no connection node behind");
        assertEquals(1, c.cmNodesCreated());
        assertEquals(0, c.qps(), "no QP was offloaded");
        assertEquals("0", r.services().get(0).field("requests"), "nothing reached the listening service");

        List<String> lines = BootTests.decode(r.pcap());
        int request = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains("192.0.2.2 → 192.0.2.1 MPA") && lines.get(i).contains("MPA Req rev 2")) {
                request = i;
                break;
            }
        }
        assertTrue(request >= 0, "the MPA request is in the capture: " + lines);
        String req = lines.get(request);
        assertTrue(!req.contains("P2P"), "stock siw's request lacks the peer-to-peer bit: " + req);
        Matcher m = TCP.matcher(req);
        assertTrue(m.find(), req);
        String guestPort = m.group(4);
        String answer = null;
        for (int i = request + 1; i < lines.size() && answer == null; i++) {
            Matcher n = TCP.matcher(lines.get(i));
            if (n.find() && n.group(1).equals("192.0.2.1") && n.group(5).equals(guestPort)) {
                answer = lines.get(i);
            }
        }
        assertTrue(answer != null && answer.contains("[RST, ACK]") && !answer.contains("MPA Rep"),
                "the node's next segment on that connection is a reset, not a reply: " + answer);

        String trace = Files.readString(r.trace(), StandardCharsets.UTF_8);
        assertTrue(trace.lines().anyMatch(l -> l.contains("\"ev\":\"cm_refusal\"")
                        && l.contains("\"mpa\":\"NOT_PEER_TO_PEER\"")
                        && l.contains("\"remote\":\"192.0.2.2:" + guestPort + "\"")),
                "the trace names the rule and the connection");
    }

    /**
     * What every scenario run shows: it ran {@code scenario} and passed (the guest and the node's services said
     * so, the model did not fail), the console log holds the guest's result line, the model's trace was written.
     */
    static void ranAndPassed(BootReport r, BootScenario scenario) throws IOException {
        assertEquals(scenario, r.scenario());
        assertTrue(r.ok(), () -> String.join("\n", r.summary()));
        assertEquals(scenario.word(), r.guest().scenario());
        String console = Files.readString(r.console(), StandardCharsets.UTF_8);
        assertTrue(console.contains(GuestResult.MARKER + " scenario=" + scenario.word() + " status=ok"),
                "the console log holds the result");
        assertTrue(Files.size(r.trace()) > 0, "the model's trace is written");
    }
}
