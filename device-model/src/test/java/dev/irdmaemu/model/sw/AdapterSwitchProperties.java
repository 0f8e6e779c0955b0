package dev.irdmaemu.model.sw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.aq.VsiCommand;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Whatever the guests send and however their drivers program the switch (rules added and removed, loopback flags
 * on and off), the switch never throws, never sends a frame back out of the port it came from, never hands a frame
 * back to the function that sent it unless it is unicast to a MAC that function's own filters name (its own, or
 * another it added) and comes from its RDMA block or the VSI has LOCAL_LB, and delivers each frame at most once per
 * function: nothing it does can make a frame circle.
 */
class AdapterSwitchProperties {
    private static final long[] MACS = {0x02_00_5E_10_00_01L, 0x02_00_5E_10_00_02L, 0x02_00_5E_10_00_03L};
    private static final long BROADCAST = SwitchBench.BROADCAST;

    /** One thing a guest or its driver does. */
    private record Act(int kind, int function, int mac, int length, boolean rdma, int flags) {
    }

    @Provide
    Arbitrary<List<Act>> acts() {
        Arbitrary<Act> act = Combinators.combine(Arbitraries.integers().between(0, 9),
                Arbitraries.integers().between(0, 2), Arbitraries.integers().between(0, 5),
                Arbitraries.integers().between(0, 80), Arbitraries.of(true, false),
                Arbitraries.of(0, VsiCommand.SW_FLAG_ALLOW_LB, VsiCommand.SW_FLAG_ALLOW_LB | VsiCommand.SW_FLAG_LOCAL_LB,
                        VsiCommand.SW_FLAG_LOCAL_LB)).as(Act::new);
        return act.list().ofMaxSize(60);
    }

    @Property(tries = 300)
    void framesNeverCircleAndNeverReturnToTheirSender(@ForAll("acts") List<Act> acts) {
        SwitchBench b = new SwitchBench(3);
        int[] vsi = new int[3];
        int[][] rules = new int[3][6];
        for (int f = 0; f < 3; f++) {
            vsi[f] = b.addPfVsi(f, VsiCommand.SW_FLAG_ALLOW_LB);
            rules[f][f] = b.addMacRule(f, MACS[f], vsi[f], SwitchBench.UNICAST_ACT) + 1;
            b.addMacRule(f, BROADCAST, vsi[f], SwitchBench.GROUP_ACT);
        }
        for (Act a : acts) {
            long dst = switch (a.mac()) {
                case 0, 1, 2 -> MACS[a.mac()];
                case 3 -> BROADCAST;
                case 4 -> 0x33_33_FF_00_00_01L;
                default -> 0x02_00_00_00_00_09L;
            };
            int f = a.function();
            if (a.kind() == 7) {
                b.updateVsi(f, vsi[f], a.flags());
                continue;
            }
            if (a.kind() == 8) {
                int m = a.mac() % 3;
                if (rules[f][m] != 0) {
                    b.removeRule(f, rules[f][m] - 1);
                    rules[f][m] = 0;
                } else {
                    rules[f][m] = b.addMacRule(f, MACS[m], vsi[f], SwitchBench.UNICAST_ACT) + 1;
                }
                continue;
            }
            b.clear();
            AdapterSwitch.Counters before = b.fabric.counters();
            BytesStore<?, ?> frame = SwitchBench.frameTo(dst, 0x02_00_00_00_00_00L + f);
            int length = Math.min(a.length(), 64);
            if (a.kind() == 9) {
                b.fabric.fromUplink(frame, 0, length);
                assertEquals(before.toUplink(), b.fabric.counters().toUplink(), "back out of the uplink");
            } else if (a.rdma()) {
                b.ports.get(f).fromRdma().transmit(frame, 0, length);
            } else {
                b.ports.get(f).fromLan().transmit(frame, 0, length);
            }
            for (int g = 0; g < 3; g++) {
                assertTrue(b.received.get(g).size() <= 1, "delivered at most once to each function");
            }
            assertTrue(b.uplink.size() <= 1, "at most once to the uplink");
            if (a.kind() != 9 && !b.received.get(f).isEmpty()) {
                int flags = b.firmware.get(f).vsis().switchFlags(vsi[f]);
                assertTrue(a.mac() < 3 && rules[f][a.mac()] != 0,
                        "only a frame to a MAC its own filters name comes back to a function");
                assertTrue(a.rdma() || (flags & VsiCommand.SW_FLAG_LOCAL_LB) != 0,
                        "a LAN frame comes back only with LOCAL_LB");
            }
        }
    }
}
