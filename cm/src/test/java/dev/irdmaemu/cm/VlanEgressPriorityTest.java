package dev.irdmaemu.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.cm.hw.InMemoryHardwarePort;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A connection's user priority on a VLAN sub-interface goes through that sub-interface's egress QoS map, on both
 * ends (cm.c irdma_iw_get_vlan_prio, from irdma_connect, irdma_create_listen and irdma_make_cm_node; net/8021q
 * vlan_dev_get_egress_qos_mask): the priority the peer's tag carries plays no part, and an untagged address keeps
 * rt_tos2priority's.
 */
class VlanEgressPriorityTest {
    private static final long MINUTE = 60_000_000_000L;
    private static final int PORT = 4791;
    private static final byte[] PD = "pd".getBytes(StandardCharsets.US_ASCII);

    private static Recorder acceptingServer(ConnectionManager cm) {
        return new Recorder("server").onEvent(e -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                assertTrue(cm.accept(e.node(), PD));
            }
        });
    }

    @Test
    void eachEndTagsWithItsOwnVlansEgressPriority() {
        try (Capture c = new Capture("vlan egress priority")) {
            CmPair p = c.pair;
            p.deviceA.egressQosMap(CmPair.VLAN, 5, 5, 5, 5, 5, 5, 5, 5);
            p.deviceB.egressQosMap(CmPair.VLAN, 3, 3, 3, 3, 3, 3, 3, 3);
            p.b.listen(CmPair.B_VLAN.withPort(PORT), 8, acceptingServer(p.b));
            CmNode n = p.a.connect(CmPair.A_VLAN.withPort(40001), CmPair.B_VLAN.withPort(PORT),
                    ConnectParams.of(PD, 8, 8), new Recorder("client"));
            assertTrue(p.runUntilIdle(MINUTE));
            assertEquals(CmState.OFFLOADED, n.state());
            InMemoryHardwarePort.Offload ao = p.deviceA.lastOffload();
            InMemoryHardwarePort.Offload bo = p.deviceB.lastOffload();
            assertEquals(5, ao.tcp().userPriority(), "the initiator's VLAN maps priority 0 to 5");
            assertEquals(3, bo.tcp().userPriority(), "the listener's VLAN maps it to 3, whatever A's tag said");
            assertEquals(CmPair.VLAN, bo.tcp().vlanId());
            assertTrue(bo.tcp().insertVlanTag());
        }
    }

    @Test
    void anUntaggedAddressKeepsTheTosPriority() {
        try (Capture c = new Capture("untagged priority")) {
            CmPair p = c.pair;
            p.deviceA.egressQosMap(CmPair.VLAN, 5, 5, 5, 5, 5, 5, 5, 5);
            p.b.listen(CmPair.B_V4.withPort(PORT), 8, acceptingServer(p.b));
            CmNode n = p.a.connect(CmPair.A_V4.withPort(40002), CmPair.B_V4.withPort(PORT),
                    ConnectParams.of(PD, 8, 8), new Recorder("client"));
            assertTrue(p.runUntilIdle(MINUTE));
            assertEquals(CmState.OFFLOADED, n.state());
            assertEquals(0, p.deviceA.lastOffload().tcp().userPriority(), "the VLAN's map is not the netdev's");
        }
    }

    @Test
    void aMapOfTheWrongShapeIsRefused() {
        try (Capture c = new Capture("bad map")) {
            InMemoryHardwarePort d = c.pair.deviceA;
            assertThrows(IllegalArgumentException.class, () -> d.egressQosMap(CmPair.VLAN, 1, 2, 3));
            assertThrows(IllegalArgumentException.class, () -> d.egressQosMap(CmPair.VLAN, 0, 0, 0, 0, 0, 0, 0, 8));
            assertThrows(IllegalArgumentException.class, () -> d.egressQosMap(CmNode.NO_VLAN, 0, 0, 0, 0, 0, 0, 0, 0));
            assertEquals(4, d.egressPriority(CmPair.VLAN, 4), "nothing was kept");
        }
    }
}
