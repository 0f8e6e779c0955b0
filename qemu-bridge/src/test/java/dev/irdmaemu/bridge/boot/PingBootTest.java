package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.bridge.run.BootReport;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Issue 6, test 1 (and test 6 for its run), booted directly: the real guest (Debian 12's kernel under QEMU, its
 * virtio-net NIC served by the hosted node over vhost-user) resolves and pings the node's IPv4 and IPv6
 * addresses ({@link ScenarioExpectations#ping}, which the container tests check too). A direct boot also attaches
 * QEMU's user-mode network as a second NIC, the baseline device the guest times its echoes to as well (issue 17).
 */
class PingBootTest {
    @Test
    void theGuestResolvesAndPingsTheNodesIpv4AndIpv6Addresses() throws Exception {
        BootReport r = BootTests.boot(BootScenario.PING, "ping");
        ScenarioExpectations.ping(r);
        String baseline = r.guest().field("usernet_ping4_rtt_avg_ms");
        assertTrue(baseline.matches("[0-9]+\\.[0-9]+") && Double.parseDouble(baseline) > 0,
                "QEMU's user-mode gateway answered 20 echoes: '" + baseline + "'");
    }
}
