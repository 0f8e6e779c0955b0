package dev.irdmaemu.bridge.container;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.run.BootReport;
import dev.irdmaemu.bridge.boot.ScenarioExpectations;

/**
 * The E810 path through a guest container: QEMU in the container attaches the emulated E810 over the vfio-user
 * socket in the boot's shared folder, the guest (the kit's e810 flavour, Linux 7.3) runs its stock ice.ko and
 * irdma.ko on it, and the hosted node on the E810's cable answers, checked with the same
 * {@link ScenarioExpectations} as the direct boots of {@code E810ScenariosBootTest}: here the longest scenario,
 * rping-throughput. The other E810 scenarios run in containers of the self-contained image with the model inside
 * ({@code RemoteEngineIT}'s fleet on the second engine), and so does the two-guest pair, across two containers over
 * VXLAN.
 */
class E810ContainerTest {
    private static void onTheE810(BootReport run) {
        assertNull(run.siw(), "no siw: the guest's iWARP is irdma on the E810");
        assertNotNull(run.e810(), "the E810's holdings after the guest's poweroff");
        assertTrue(run.e810().empty(), () -> "nothing left on the E810: " + run.e810());
    }

    @GuestTest(scenario = "rping-throughput", model = HostedNodeModel.class, e810 = true, resultTimeoutSeconds = 300)
    void irdmasRpingClientMakesAHundredLargestPingsWithTheNode(BootReport run) throws Exception {
        onTheE810(run);
        ScenarioExpectations.rpingThroughput(run);
    }
}
