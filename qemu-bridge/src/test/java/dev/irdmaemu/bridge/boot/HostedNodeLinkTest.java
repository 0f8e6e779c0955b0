package dev.irdmaemu.bridge.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.irdmaemu.bridge.lan.LanTag;
import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.fw.frame.ArpPacket;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.IpAddress;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * The hosted node on rdma-paths' link ({@link BootScenario#nodeLink()}): its port at the jumbo MTU, its LAN side
 * answering on VLAN 100 with the VLAN's priority, a neighbour learned there handed to the CM, and its CM's user
 * priority on that VLAN mapped by the VLAN's egress map.
 */
class HostedNodeLinkTest {
    private static final Duration CALL = Duration.ofSeconds(20);
    private static final int GUEST_VLAN_V4 = IpAddress.ipv4(203, 0, 113, 2);

    @Test
    void theNodeAnswersOnItsVlanWithItsPriorityAndRunsAtTheJumboMtu() throws Exception {
        FakeGuestWire wire = new FakeGuestWire();
        NodeLink link = BootScenario.RDMA_PATHS.nodeLink();
        try (HostedNode node = new HostedNode(wire, null, null, System::nanoTime, link).start()) {
            assertEquals(BootScenario.PATHS_JUMBO_MTU, node.port.mtu());
            BytesStore<?, ?> s = BytesStore.wrap(new byte[64]);
            int n = EthernetFrame.writeTagged(s, 0, 0xffff_ffff_ffffL, HostedNode.GUEST_MAC, 0, false,
                    BootScenario.PATHS_VLAN_ID, EthernetFrame.ETHERTYPE_ARP);
            ArpPacket.write(s, n, ArpPacket.REQUEST, HostedNode.GUEST_MAC, GUEST_VLAN_V4, 0,
                    BootScenario.PATHS_VLAN_V4.ipv4Address());
            byte[] request = new byte[64];
            s.read(0, request, 0, 64);
            wire.send(request);
            byte[] reply = wire.await(f -> f.length >= 18 && (f[12] & 0xff) == 0x81);
            EthernetFrame e = new EthernetFrame().wrap(BytesStore.wrap(reply), 0, reply.length);
            assertEquals(BootScenario.PATHS_VLAN_ID, e.vlanId());
            assertEquals(BootScenario.PATHS_VLAN_PCP, e.pcp());
            assertEquals(EthernetFrame.ETHERTYPE_ARP, e.etherType());
            assertEquals(OptionalLong.of(HostedNode.GUEST_MAC), node.loop().call(() -> node.port.neighbourMac(true,
                    0, IpAddress.mappedLo(GUEST_VLAN_V4)), CALL), "the CM resolves the guest's VLAN address");
            assertEquals(BootScenario.PATHS_VLAN_PCP, node.loop().call(() -> node.port.egressPriority(
                    BootScenario.PATHS_VLAN_ID, 0), CALL), "the VLAN's egress map");
            assertEquals(0, node.loop().call(() -> node.port.egressPriority(200, 0), CALL), "no map: unchanged");
        }
    }

    @Test
    void aLinkOutsideIcesMtuRangeIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new NodeLink(1279, List.of()));
        assertThrows(IllegalArgumentException.class, () -> new NodeLink(NodeLink.MAX_MTU + 1, List.of()));
        assertEquals(9702, NodeLink.MAX_MTU, "ice.h ICE_MAX_MTU");
        assertThrows(IllegalArgumentException.class, () -> new NodeLink.VlanNetdev(new LanTag.Vlan(5, 0),
                IpEndpoint.of("2001:db8::1", 0), 24, IpEndpoint.of("2001:db8::2", 0), 64).addresses(1));
    }
}
