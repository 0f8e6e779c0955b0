package dev.irdmaemu.bridge.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.kit.GuestResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 6, test 1 (and test 6 for its run): the guest reaches the model's port. The real guest (Debian 12's
 * kernel under QEMU, its virtio-net NIC served by the hosted node over vhost-user) resolves 192.0.2.1 with ARP and
 * pings it, resolves 2001:db8::1 with Neighbor Discovery and pings it; the hosted node's LAN function answers on
 * behalf of its addresses and learns the guest's MAC; the run's pcap decodes with {@code irdma-emu decode}.
 */
class PingBootTest {
    @Test
    void theGuestResolvesAndPingsTheNodesIpv4AndIpv6Addresses() throws Exception {
        BootReport r = BootTests.boot(BootScenario.PING, "ping");
        GuestResult g = r.guest();
        assertTrue(r.ok(), () -> String.join("\n", r.summary()));
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

        String console = Files.readString(r.console(), StandardCharsets.UTF_8);
        assertTrue(console.contains(GuestResult.MARKER + " scenario=ping status=ok"), "the console log holds the result");
        assertTrue(Files.size(r.trace()) > 0, "the model's trace is written");

        List<String> lines = BootTests.decode(r.pcap());
        assertTrue(lines.stream().anyMatch(l -> l.contains("ARP 42 Who has 192.0.2.1? Tell 192.0.2.2")), lines::toString);
        assertTrue(lines.stream().anyMatch(l -> l.contains("ARP 60 192.0.2.1 is at 02:00:00:00:00:01")), lines::toString);
        assertTrue(lines.stream().filter(l -> l.contains("192.0.2.1 → 192.0.2.2 ICMP 98")).count() >= 3, lines::toString);
        assertTrue(lines.stream().anyMatch(l -> l.contains("2001:db8::1 → 2001:db8::2 ICMPv6 86")),
                "the neighbor advertisement: " + lines);
        assertTrue(lines.stream().filter(l -> l.contains("2001:db8::1 → 2001:db8::2 ICMPv6 118")).count() >= 3,
                lines::toString);
    }
}
