package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.bridge.run.BootRun;
import dev.irdmaemu.bridge.run.BootReport;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * {@code RefusedConnectionBootTest}, {@code RpingBootTest}, {@code UcmatoseBootTest}) and a boot whose QEMU runs in a
 * guest container (the container tests' {@code HostedNodeModel}). Both hand over the same {@link BootReport}: the
 * guest's result line, the hosted node's counters (at the result, and after the run: nothing may be left) and
 * services, and the run folder's console log, pcap (issue 6 test 6: it decodes with {@code irdma-emu decode}, and
 * where there is a connection its MPA exchange is there) and trace.
 */
public final class ScenarioExpectations {
    private static final Pattern TCP = Pattern.compile(
            "(\\S+) → (\\S+) (TCP|MPA|DDP/RDMA) \\d+ (\\d+) → (\\d+) \\[([A-Z, ]+)]");
    private static final String NODE = "192.0.2.1";
    private static final String GUEST = "192.0.2.2";

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
        assertEquals(r.siw() == null ? "02:00:5e:10:00:01" : "02:00:00:00:00:02", g.field("eth0_mac"),
                "the guest NIC's MAC: the E810's NVM MAC, or the one QEMU gives virtio-net");
        NodeCounters c = r.counters();
        assertEquals(2, c.neighbours(), "the node learned the guest's IPv4 and IPv6 addresses");
        assertEquals(0, c.lanMalformed(), "a real guest sends nothing malformed");
        assertTrue(c.lanAnswered() >= 8, "at least 1 ARP reply, 3 echo replies, 1 advertisement, 3 ICMPv6 replies: "
                + c.lanAnswered());
        assertEquals(0, c.cmNodesCreated(), "no RDMA traffic in this scenario");
        assertTrue(Double.parseDouble(g.field("ping4_warm_rtt_avg_ms")) > 0, "20 warm echoes timed");

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
     * Issue 6, test 2: the model as rping client, stock siw as server. The guest's {@code rping -s -C 10 -V}
     * verifies ten pings and the node's rping client ten more; the capture shows the node's MPA v2 request with the
     * peer-to-peer bit and its RTR offer, the guest's accepting reply choosing one, the node's RTR of that kind as the
     * connection's first FPDU (the model, as initiator, sends it), then rping's exchange: each ping the client's
     * 16-byte advertisements (Sends), the server's Read of the start buffer and its Write into the sink, every FPDU
     * with a good CRC.
     */
    public static void rpingServer(BootReport r) throws IOException {
        ranAndPassed(r, BootScenario.RPING_SERVER);
        GuestResult g = r.guest();
        iwarpDevice(r, GuestLaunch.Siw.STOCK, "siw.ko");
        assertEquals("0", g.field("rping_exit"));
        assertEquals("10", g.field("rping_verified"), "the guest's rping server verified 10 iterations");
        ServiceOutcome client = service(r, "rping-client");
        assertEquals("10", client.field("pings"));
        assertEquals("10", client.field("verified"), "the node's rping client verified 10 pings");

        Conversation c = Conversation.find(BootTests.decode(r.pcap()), NODE, GUEST);
        assertTrue(c.request.contains("MPA Req rev 2") && c.request.contains("enhanced") && c.request.contains(" P2P")
                && c.request.contains("RTR="), "the node's MPA v2 request, peer-to-peer, offering an RTR: " + c.request);
        String rtr = c.acceptedRtr();
        String first = c.fpdus().get(0);
        assertTrue(first.startsWith(NODE + " → "), "the node sends the first FPDU, the RTR: " + first);
        assertTrue(rtr.equals("write") ? first.contains("RDMA Write 0 bytes")
                : first.contains("Read Request") && first.contains(" len 0 "), "an RTR of the kind the reply chose ("
                + rtr + "): " + first);
        c.assertAllCrcGood();
        assertEquals(10, c.count(NODE, "Read Response 64 bytes"), "the node answers the server's ten Reads");
        assertEquals(10, c.count(GUEST, "RDMA Write 64 bytes"), "the server Writes ten pings back");
        assertTrue(c.count(NODE, "Send 16 bytes") >= 20, "two advertisements a ping");
        assertTrue(c.count(GUEST, "Send 16 bytes") >= 20, "two go-aheads a ping");
    }

    /**
     * Issue 6, test 4: siw built with peer_to_peer true as rping client, the model as server. siw's
     * {@code peer_to_peer} is a source-level setting (siw_main.c defines it as a constant, false in the stock
     * build); the kit builds siw-p2p.ko with it true, and the guest loads that build here. Its MPA v2 request then
     * carries the peer-to-peer bit irdma requires, the node accepts, the guest sends the RTR the reply chose, and
     * both sides count ten pings: the node Reads each of the guest's start buffers and Writes it back, every FPDU
     * with a good CRC.
     */
    public static void rpingClient(BootReport r) throws IOException {
        ranAndPassed(r, BootScenario.RPING_CLIENT);
        GuestResult g = r.guest();
        iwarpDevice(r, GuestLaunch.Siw.PEER_TO_PEER, "siw-p2p.ko");
        assertEquals("0", g.field("rping_exit"));
        assertEquals("10", g.field("rping_pings"), "the guest's rping client made 10 pings");
        ServiceOutcome server = service(r, "rping-server");
        assertEquals("10", server.field("pings"));
        assertEquals("10", server.field("verified"), "each Read brought rping's ping data");
        assertEquals(1, r.counters().cmAccepts(), "the node accepted the guest's connection");
        assertEquals(0, r.counters().cmPassiveErrors(), "and refused nothing");

        Conversation c = Conversation.find(BootTests.decode(r.pcap()), GUEST, NODE);
        assertTrue(c.request.contains("MPA Req rev 2") && c.request.contains(" P2P"),
                "the p2p build's request carries the peer-to-peer bit: " + c.request);
        String rtr = c.acceptedRtr();
        String first = c.fpdus().get(0);
        assertTrue(first.startsWith(GUEST + " → "), "the guest, as initiator, sends the RTR: " + first);
        assertTrue(rtr.equals("write") ? first.contains("RDMA Write 0 bytes")
                : first.contains("Read Request") && first.contains(" len 0 "), "an RTR of the kind the reply chose ("
                + rtr + "): " + first);
        c.assertAllCrcGood();
        assertEquals(10, c.count(GUEST, "Read Response 64 bytes"), "the guest answers the node's ten Reads");
        assertEquals(10, c.count(NODE, "RDMA Write 64 bytes"), "the node Writes ten pings back");
    }

    /**
     * Issue 16, the rping throughput run: the guest's rping client (the peer-to-peer siw build on virtio-net, irdma
     * on the E810) makes {@link BootScenario#THROUGHPUT_COUNT} pings of {@link BootScenario#THROUGHPUT_SIZE} bytes
     * against the node's rping server, every one of them verified there, and the guest reports the time and the
     * rate it measured. On the E810 the guest has no siw for the in-guest comparison and says so
     * ({@code local_rping=none}).
     */
    public static void rpingThroughput(BootReport r) throws IOException {
        ranAndPassed(r, BootScenario.RPING_THROUGHPUT);
        GuestResult g = r.guest();
        iwarpDevice(r, GuestLaunch.Siw.PEER_TO_PEER, "siw-p2p.ko");
        assertEquals("0", g.field("rping_exit"));
        assertEquals(Long.toString(2L * BootScenario.THROUGHPUT_COUNT * BootScenario.THROUGHPUT_SIZE),
                g.field("rping_bytes"), "each ping's buffer crosses twice");
        assertPositive(g, "rping_ms");
        assertTrue(Double.parseDouble(g.field("rping_mb_per_s")) > 0, "a rate: " + g.field("rping_mb_per_s"));
        int busy = Integer.parseInt(g.field("rping_guest_busy_pct"));
        assertTrue(busy > 0 && busy <= 100, "the guest CPU's busy share during the rping: " + busy);
        String pings = Integer.toString(BootScenario.THROUGHPUT_COUNT);
        ServiceOutcome server = service(r, "rping-server");
        assertEquals(pings, server.field("pings"), "the node counts every ping");
        assertEquals(pings, server.field("verified"), "each Read brought the guest's ping data");
        assertEquals(1, r.counters().cmAccepts(), "the node accepted the guest's connection");
        assertEquals(0, r.counters().cmPassiveErrors(), "and refused nothing");
        Conversation c = Conversation.find(BootTests.decode(r.pcap()), GUEST, NODE);
        c.assertAllCrcGood();
        if (r.siw() == null) {
            assertEquals("none", g.field("local_rping"), "the e810 flavour has no siw to compare with");
        }
    }

    /**
     * Issue 6, test 5, the guest as client (peer-to-peer siw): two rounds of 100 ucmatose connections at once to the
     * node's ucmatose servers (4 guest processes of 25: siw holds at most 36 a process), the first with no messages
     * ({@code -C 0}), the second with cmatose's default exchange ({@code -C 10 -S 100}, a thousand Sends each way);
     * every process completes, the node's servers see every connection come up and go down, and nothing is left on
     * the model afterwards. On virtio-net (issue 17), the same two rounds between two siw endpoints inside the guest
     * complete too, and the guest reports their rates and the model's over them; the E810 flavour has no siw and
     * says so.
     */
    public static void ucmatoseClient(BootReport r) throws IOException {
        ranAndPassed(r, BootScenario.UCMATOSE_CLIENT);
        GuestResult g = r.guest();
        iwarpDevice(r, GuestLaunch.Siw.PEER_TO_PEER, "siw-p2p.ko");
        assertEquals("100", g.field("ucmatose_connections"));
        assertEquals("4/4", g.field("connect_complete"), "every ucmatose process of the -C 0 round completed");
        assertEquals("4/4", g.field("exchange_complete"), "every ucmatose process of the -C 10 round completed");
        if (r.siw() == null) {
            assertEquals("none", g.field("local_ucmatose"), "no in-guest rounds on the E810 flavour (no siw)");
        } else {
            for (String round : List.of("local_ucmatose_connect", "local_ucmatose_exchange")) {
                assertEquals("4/4", g.field(round + "_complete"), round + ": every in-guest client completed");
                assertEquals("4/4", g.field(round + "_servers_complete"), round + ": every in-guest server");
                assertPositive(g, round + "_rate");
            }
            assertPositive(g, "model_over_local_ucmatose");
            assertPositive(g, "model_over_local_ucmatose_exchange");
        }
        ServiceOutcome servers = service(r, "ucmatose-server");
        for (String round : List.of("connect", "exchange")) {
            assertEquals("100/100", servers.field(round + "_established"), round);
            assertEquals("100/100", servers.field(round + "_disconnected"), round);
        }
        assertEquals("1000", servers.field("exchange_messages_sent"));
        assertEquals("1000", servers.field("exchange_messages_received"));
        assertEquals(200, r.counters().cmAccepts(), "the node accepted 200 connections");
        assertEquals(200, r.counters().cmNodesCreated());
        assertEquals(0, r.counters().cmPassiveErrors());

        List<String> lines = BootTests.decode(r.pcap());
        assertEquals(200, countFirst(lines, GUEST + " → " + NODE, "MPA Req rev 2"), "200 MPA v2 requests");
        assertEquals(200, countFirst(lines, NODE + " → " + GUEST, "MPA Rep rev 2"), "200 replies");
        assertTrue(lines.stream().noneMatch(l -> l.contains("reject") || l.contains("CRC BAD")), "none refused, "
                + "no bad CRC");
    }

    /**
     * Issue 6, test 5, the guest as server (stock siw): 100 connections from the node's ucmatose clients to the
     * guest's 4 ucmatose servers of 25, with cmatose's default exchange ({@code -C 10 -S 100}); the node's clients
     * Send first, which cmatose's server does not mind (see BootScenario on siw_accept's RTR race). Every server
     * completes, the node's clients see every connection come up and go down, and nothing is left on the model
     * afterwards.
     */
    public static void ucmatoseServer(BootReport r) throws IOException {
        ranAndPassed(r, BootScenario.UCMATOSE_SERVER);
        GuestResult g = r.guest();
        iwarpDevice(r, GuestLaunch.Siw.STOCK, "siw.ko");
        assertEquals("100", g.field("ucmatose_connections"));
        assertEquals("4/4", g.field("exchange_complete"), "every ucmatose server completed");
        ServiceOutcome clients = service(r, "ucmatose-client");
        assertEquals("100/100", clients.field("exchange_established"));
        assertEquals("100/100", clients.field("exchange_disconnected"));
        assertEquals("1000", clients.field("exchange_messages_sent"));
        assertEquals("1000", clients.field("exchange_messages_received"));
        assertEquals(100, r.counters().cmNodesCreated(), "one attempt, 100 connections");
        assertEquals(0, r.counters().cmConnectErrors());

        List<String> lines = BootTests.decode(r.pcap());
        assertEquals(100, countFirst(lines, NODE + " → " + GUEST, "MPA Req rev 2"), "100 MPA v2 requests");
        assertEquals(100, countFirst(lines, GUEST + " → " + NODE, "MPA Rep rev 2"), "100 replies");
        assertTrue(lines.stream().noneMatch(l -> l.contains("reject") || l.contains("CRC BAD")), "none refused, "
                + "no bad CRC");
    }

    /** The guest's field {@code key} is a number above 0 (a rate or a ratio the guest printed). */
    private static void assertPositive(GuestResult g, String key) {
        String value = g.field(key);
        assertTrue(value.matches("[0-9]+(\\.[0-9]+)?") && Double.parseDouble(value) > 0,
                key + " is a positive number: '" + value + "'");
    }

    /**
     * The guest's iWARP device: on virtio-net, the siw build {@code siw} ({@code module}); on the emulated E810 (a
     * report without a siw build), the stock irdma.ko in iWARP mode on ice's netdev.
     */
    static void iwarpDevice(BootReport r, GuestLaunch.Siw siw, String module) {
        GuestResult g = r.guest();
        if (r.siw() == null) {
            assertEquals("e810", g.field("nic"), "the guest's NIC is the emulated E810");
            assertEquals("iWARP", g.field("transport"), "ibv_devinfo: irdma's transport");
            assertTrue(g.field("rdma_dev").startsWith("irdma"), "the iWARP device is irdma's: " + g.field("rdma_dev"));
            return;
        }
        assertEquals(siw, r.siw());
        assertEquals(module, g.field("siw_module"), "the siw build");
    }

    /** The outcome of the node's service {@code name}, which did its part. */
    static ServiceOutcome service(BootReport r, String name) {
        ServiceOutcome o = r.services().stream().filter(s -> s.service().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no service " + name + " in " + r.services()));
        assertTrue(o.ok(), o::toString);
        return o;
    }

    /** Lines (not retransmissions) that start with {@code endpoints} after the time and hold {@code text}. */
    private static long countFirst(List<String> lines, String endpoints, String text) {
        return lines.stream().filter(l -> !l.contains("[retransmission]") && l.contains(" " + endpoints + " ")
                && l.contains(text)).count();
    }

    /**
     * One iWARP connection in the decoded capture: the first MPA request from {@code initiator} to
     * {@code responder}, its reply, and every later segment of the same connection (retransmissions left out).
     */
    record Conversation(String request, String reply, List<String> later) {
        static Conversation find(List<String> lines, String initiator, String responder) {
            for (int i = 0; i < lines.size(); i++) {
                String l = lines.get(i);
                Matcher m = TCP.matcher(l);
                if (!m.find() || !m.group(1).equals(initiator) || !m.group(2).equals(responder)
                        || !l.contains("MPA Req") || l.contains("[retransmission]")) {
                    continue;
                }
                String iPort = m.group(4);
                String rPort = m.group(5);
                String reply = null;
                List<String> later = new java.util.ArrayList<>();
                for (int j = i + 1; j < lines.size(); j++) {
                    String x = lines.get(j);
                    Matcher n = TCP.matcher(x);
                    if (!n.find() || x.contains("[retransmission]")) {
                        continue;
                    }
                    boolean back = n.group(1).equals(responder) && n.group(4).equals(rPort) && n.group(5).equals(iPort);
                    boolean forth = n.group(1).equals(initiator) && n.group(4).equals(iPort) && n.group(5).equals(rPort);
                    if (!back && !forth) {
                        continue;
                    }
                    if (reply == null) {
                        if (back && x.contains("MPA Rep")) {
                            reply = x;
                        }
                    } else {
                        later.add(x.substring(x.indexOf(n.group(1) + " → ")));
                    }
                }
                assertTrue(reply != null, "the reply to " + l);
                return new Conversation(l, reply, later);
            }
            throw new AssertionError("no MPA request from " + initiator + " to " + responder + " in " + lines);
        }

        /** The RTR the accepting reply chose ({@code write} or {@code read}). */
        String acceptedRtr() {
            assertTrue(reply.contains("MPA Rep rev 2") && !reply.contains("reject") && reply.contains(" P2P"),
                    "an accepting MPA v2 reply, peer-to-peer: " + reply);
            Matcher m = Pattern.compile("RTR=(write|read)\\b").matcher(reply);
            assertTrue(m.find(), "the reply chooses one RTR: " + reply);
            return m.group(1);
        }

        /** The segments carrying FPDUs, each from its source address on. */
        List<String> fpdus() {
            List<String> f = later.stream().filter(l -> l.contains("FPDU len")).toList();
            assertFalse(f.isEmpty(), "FPDUs after the reply");
            return f;
        }

        void assertAllCrcGood() {
            for (String l : fpdus()) {
                assertTrue(l.contains("CRC ok") && !l.contains("CRC BAD") && !l.contains("CRC off"),
                        "every FPDU with a good CRC: " + l);
            }
        }

        /** How often {@code text} appears in the FPDU segments {@code from} sent. */
        int count(String from, String text) {
            int n = 0;
            for (String l : fpdus()) {
                if (l.startsWith(from + " → ")) {
                    for (int at = l.indexOf(text); at >= 0; at = l.indexOf(text, at + 1)) {
                        n++;
                    }
                }
            }
            return n;
        }
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
        // issue 6 test 6 for every run: the capture decodes with irdma-emu decode's code
        assertFalse(BootTests.decode(r.pcap()).isEmpty(), "the capture holds frames");
        // nothing left on the model once the services stopped and the node settled
        assertTrue(r.end() != null, "the node's counters after the run");
        assertEquals(java.util.Map.of(), r.end().leaks(), "left on the model after the run");
        assertEquals(0, r.end().cmListeners(), "no listener left");
        assertEquals(0, r.end().cmNodesLeft(), "no CM node left");
    }
}
