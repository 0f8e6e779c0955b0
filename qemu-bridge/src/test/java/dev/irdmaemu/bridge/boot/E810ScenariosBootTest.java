package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.bridge.run.BootRun;
import dev.irdmaemu.bridge.run.BootReport;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.boot.BootOptions.Nic;
import dev.irdmaemu.bridge.decode.Tshark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The scenarios against the hosted node with the guest on the emulated E810 ({@code irdma-emu boot --nic e810}):
 * Linux 7.3's stock ice.ko drives the function's LAN rings, its stock irdma.ko (iWARP mode) and the kit's
 * libirdma drive the RDMA block, and the hosted node sits on the E810's Ethernet cable. Each scenario must show
 * what it shows over virtio-net and siw ({@link ScenarioExpectations}, whose device checks take the E810's
 * irdma in place of siw), its capture must decode with tshark as with {@code irdma-emu decode}, and the E810's
 * model must hold nothing of ice's or irdma's once the guest has powered off.
 */
class E810ScenariosBootTest {
    private static BootReport boot(BootScenario s, String name) throws Exception {
        BootReport r = BootTests.boot(s, "e810-" + name, Nic.E810);
        assertNull(r.siw(), "no siw on the E810");
        assertTrue(Files.exists(r.runDir().resolve(BootRun.E810_TRACE)), "the E810's own trace is written");
        assertNotNull(r.e810(), "the E810's holdings after the poweroff: " + r.summary());
        assertTrue(r.e810().empty(), () -> "the E810 holds nothing after the guest's drivers shut down: " + r.e810());
        assertEquals("e810", r.guest().field("nic"));
        // the capture decodes with tshark too: every frame, none malformed, and irdma's FPDUs as iWARP
        Path dir = Files.createDirectories(r.runDir().resolve("tshark"));
        List<String> tshark = Tshark.run(dir, r.pcap(), "--disable-protocol", "rpcordma");
        assertEquals(BootTests.decode(r.pcap()).size(), tshark.size(), "tshark and irdma-emu decode see the same "
                + "frames");
        assertTrue(tshark.stream().noneMatch(l -> l.contains("Malformed")), () -> "tshark: " + tshark);
        if (s != BootScenario.PING) {
            assertTrue(tshark.stream().anyMatch(l -> l.contains(" DDP/RDMA ")), "tshark reads the FPDUs as iWARP");
        }
        return r;
    }

    /** ice's netdev reaches the node: ARP and ICMP echo over IPv4, Neighbor Discovery and ICMPv6 echo over IPv6. */
    @Test
    void iceReachesTheNodeOverIpv4AndIpv6() throws Exception {
        ScenarioExpectations.ping(boot(BootScenario.PING, "ping"));
    }

    /** The guest's rping -c on irdma: the node's rping server accepts it and ten pings are verified both ends. */
    @Test
    void irdmasRpingClientMakesTenVerifiedPingsWithTheNodesServer() throws Exception {
        ScenarioExpectations.rpingClient(boot(BootScenario.RPING_CLIENT, "rping-client"));
    }

    /** The guest's rping -s on irdma: the node's rping client connects and both count ten verified pings. */
    @Test
    void theNodesRpingClientMakesTenVerifiedPingsWithIrdmasServer() throws Exception {
        ScenarioExpectations.rpingServer(boot(BootScenario.RPING_SERVER, "rping-server"));
    }

    /** 2 rounds of 100 ucmatose connections from the guest's irdma to the node, the second with 1,000 Sends a way. */
    @Test
    void irdmasRpingClientMakesAHundredLargestPingsWithTheNodesServer() throws Exception {
        ScenarioExpectations.rpingThroughput(boot(BootScenario.RPING_THROUGHPUT, "rping-throughput"));
    }

    @Test
    void irdmasUcmatoseClientsMakeTwoHundredConnectionsToTheNode() throws Exception {
        ScenarioExpectations.ucmatoseClient(boot(BootScenario.UCMATOSE_CLIENT, "ucmatose-client"));
    }

    /**
     * Issue 29 item 4 in one boot: irdma's rping -V and ucmatose against the node over IPv6, over a VLAN netdev
     * with priority 5, and at MTU 9000 ({@link RdmaPathsExpectations}).
     */
    @Test
    void irdmaConnectsToTheNodeOverIpv6AVlanWithAPriorityAndJumboFrames() throws Exception {
        BootReport r = boot(BootScenario.RDMA_PATHS, "rdma-paths");
        RdmaPathsExpectations.verify(r, r.runDir().resolve("tshark"));
    }

    /** 100 connections from the node's ucmatose clients to the guest's ucmatose servers on irdma. */
    @Test
    void theNodesUcmatoseClientsMakeAHundredConnectionsToIrdmasServers() throws Exception {
        ScenarioExpectations.ucmatoseServer(boot(BootScenario.UCMATOSE_SERVER, "ucmatose-server"));
    }
}
