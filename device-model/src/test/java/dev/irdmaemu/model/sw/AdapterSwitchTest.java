package dev.irdmaemu.model.sw;

import static dev.irdmaemu.model.sw.SwitchBench.BROADCAST;
import static dev.irdmaemu.model.sw.SwitchBench.GROUP_ACT;
import static dev.irdmaemu.model.sw.SwitchBench.UNICAST_ACT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.aq.VsiCommand;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The embedded switch as ice programs it in VEB mode: two functions, each with its PF VSI (ALLOW_LB) and the MAC
 * filters ice_init_mac_fltr adds (its own MAC, unicast: LB; broadcast: LB and LAN). Where each frame goes, from a
 * function's LAN queues, from its RDMA block and from the uplink.
 */
class AdapterSwitchTest {
    private static final long MAC0 = 0x02_00_5E_10_00_01L;
    private static final long MAC1 = 0x02_00_5E_10_00_02L;
    private static final long ELSEWHERE = 0x02_00_00_00_00_01L;
    private static final long MULTICAST = 0x33_33_00_00_00_01L;

    private SwitchBench b;
    private int vsi0;
    private int vsi1;
    private int rule0;

    @BeforeEach
    void twoFunctionsInVebMode() {
        b = new SwitchBench(2);
        vsi0 = b.addPfVsi(0, VsiCommand.SW_FLAG_ALLOW_LB);
        vsi1 = b.addPfVsi(1, VsiCommand.SW_FLAG_ALLOW_LB);
        rule0 = b.addMacRule(0, MAC0, vsi0, UNICAST_ACT);
        b.addMacRule(0, BROADCAST, vsi0, GROUP_ACT);
        b.addMacRule(1, MAC1, vsi1, UNICAST_ACT);
        b.addMacRule(1, BROADCAST, vsi1, GROUP_ACT);
    }

    @Test
    void unicastToAnotherFunctionIsTurnedAroundInsideTheAdapter() {
        b.fromLan(0, MAC1);
        b.fromRdma(0, MAC1);
        assertEquals(List.of(MAC1, MAC1), b.received.get(1));
        assertEquals(List.of(), b.received.get(0));
        assertEquals(List.of(), b.uplink, "a unicast rule without LAN_ENABLE keeps the frame off the cable");
        assertEquals(List.of(MAC1, MAC1), b.tapped, "the switched-frame tap sees both");
        assertEquals(2, b.fabric.counters().switched());
        assertEquals(2, b.ports.get(1).delivered());
    }

    @Test
    void theRdmaBlockReachesItsOwnMacButTheLanIsPrunedWithoutLocalLoopback() {
        b.fromRdma(0, MAC0);
        assertEquals(List.of(MAC0), b.received.get(0), "irdma's loopback connection (cm.c do_lpb)");
        b.clear();
        b.fromLan(0, MAC0);
        assertEquals(List.of(), b.received.get(0));
        assertEquals(List.of(), b.uplink);
        assertEquals(1, b.fabric.counters().pruned());
        b.updateVsi(0, vsi0, VsiCommand.SW_FLAG_ALLOW_LB | VsiCommand.SW_FLAG_LOCAL_LB);
        b.fromLan(0, MAC0);
        assertEquals(List.of(MAC0), b.received.get(0), "LOCAL_LB lets a VSI reach itself");
    }

    /** The case the property found: a function that filters another's MAC too gets its RDMA frames to it back. */
    @Test
    void aFunctionFilteringAnothersMacTooGetsItsOwnRdmaFramesToItBack() {
        b.addMacRule(1, MAC0, vsi1, UNICAST_ACT);
        b.fromRdma(1, MAC0);
        assertEquals(List.of(MAC0), b.received.get(0));
        assertEquals(List.of(MAC0), b.received.get(1), "both filters name MAC0");
        b.clear();
        b.fromLan(1, MAC0);
        assertEquals(List.of(MAC0), b.received.get(0));
        assertEquals(List.of(), b.received.get(1), "a LAN frame back to its own VSI needs LOCAL_LB");
        assertEquals(1, b.fabric.counters().pruned());
    }

    @Test
    void irdmasPeFilterUpdateKeepsTheSwitchFlagsOfTheVsi() {
        // the update that cleared ALLOW_LB when the model kept a whole update context instead of its valid sections
        b.enablePeFilter(0, vsi0);
        assertEquals(VsiCommand.SW_FLAG_ALLOW_LB, b.firmware.get(0).vsis().switchFlags(vsi0));
        b.fromRdma(0, MAC0);
        assertEquals(List.of(MAC0), b.received.get(0));
    }

    @Test
    void broadcastAndMulticastGoOutAndToEveryOtherFunctionNeverBack() {
        b.fromLan(0, BROADCAST);
        b.fromRdma(1, MULTICAST);
        assertEquals(List.of(BROADCAST, MULTICAST), b.uplink);
        assertEquals(List.of(MULTICAST), b.received.get(0));
        assertEquals(List.of(BROADCAST), b.received.get(1));
    }

    @Test
    void unknownUnicastLeavesOnTheUplinkOnly() {
        b.fromLan(0, ELSEWHERE);
        b.fromRdma(1, ELSEWHERE);
        assertEquals(List.of(ELSEWHERE, ELSEWHERE), b.uplink);
        assertTrue(b.received.get(0).isEmpty() && b.received.get(1).isEmpty());
    }

    @Test
    void withoutAllowLoopbackTheSwitchIsAVepaAndSendsEverythingOut() {
        b.updateVsi(0, vsi0, 0);
        b.fromLan(0, MAC1);
        b.fromRdma(0, MAC0);
        b.fromLan(0, BROADCAST);
        assertEquals(List.of(MAC1, MAC0, BROADCAST), b.uplink);
        assertTrue(b.received.get(0).isEmpty() && b.received.get(1).isEmpty());
        assertEquals(0, b.fabric.counters().switched());
    }

    @Test
    void aRemovedFilterStopsTheTurnAround() {
        b.fromRdma(1, MAC0);
        assertEquals(List.of(MAC0), b.received.get(0));
        b.removeRule(0, rule0);
        b.clear();
        b.fromRdma(1, MAC0);
        assertEquals(List.of(MAC0), b.uplink, "no rule names MAC0 any more");
        assertEquals(List.of(), b.received.get(0));
    }

    @Test
    void aFilterThroughAVsiListCountsAsTheFunctionsOwn() {
        long extra = 0x02_00_5E_10_00_77L;
        b.addMacRuleToList(1, extra, 3, vsi1);
        b.fromLan(0, extra);
        assertEquals(List.of(extra), b.received.get(1));
        assertEquals(List.of(), b.uplink);
    }

    @Test
    void fromTheUplinkUnicastGoesToItsFunctionAndTheRestFloods() {
        b.fromUplink(MAC1);
        assertEquals(List.of(MAC1), b.received.get(1));
        assertEquals(List.of(), b.received.get(0));
        b.clear();
        b.fromUplink(BROADCAST);
        b.fromUplink(ELSEWHERE);
        assertEquals(List.of(BROADCAST, ELSEWHERE), b.received.get(0));
        assertEquals(List.of(BROADCAST, ELSEWHERE), b.received.get(1));
        assertEquals(1, b.fabric.counters().flooded(), "the unknown unicast");
        assertEquals(List.of(), b.uplink, "nothing from the uplink goes back out of it");
        assertEquals(List.of(), b.tapped, "frames from the cable are not switched ones");
    }

    @Test
    void aRuntIsDroppedAndCountedWherevereItComesFrom() {
        BytesStore<?, ?> runt = BytesStore.wrap(new byte[13]);
        b.ports.get(0).fromLan().transmit(runt, 0, 13);
        b.ports.get(1).fromRdma().transmit(runt, 0, 0);
        b.fabric.fromUplink(runt, 0, 5);
        assertEquals(3, b.fabric.counters().runts());
        assertTrue(b.uplink.isEmpty() && b.received.get(0).isEmpty() && b.received.get(1).isEmpty());
    }

    @Test
    void anAdapterHasAtMostEightFunctions() {
        SwitchBench eight = new SwitchBench(8);
        assertEquals(8, eight.fabric.functions());
        assertThrows(IllegalStateException.class, () -> eight.fabric.attach(eight.firmware.get(0).vsis(),
                eight.firmware.get(0).switchRules(), (s, o, l) -> { }));
        assertThrows(IndexOutOfBoundsException.class, () -> eight.fabric.port(8));
    }
}
