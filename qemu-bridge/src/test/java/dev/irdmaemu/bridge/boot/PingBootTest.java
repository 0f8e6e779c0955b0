package dev.irdmaemu.bridge.boot;

import org.junit.jupiter.api.Test;

/**
 * Issue 6, test 1 (and test 6 for its run), booted directly: the real guest (Debian 12's kernel under QEMU, its
 * virtio-net NIC served by the hosted node over vhost-user) resolves and pings the node's IPv4 and IPv6
 * addresses ({@link ScenarioExpectations#ping}, which the container tests check too).
 */
class PingBootTest {
    @Test
    void theGuestResolvesAndPingsTheNodesIpv4AndIpv6Addresses() throws Exception {
        ScenarioExpectations.ping(BootTests.boot(BootScenario.PING, "ping"));
    }
}
