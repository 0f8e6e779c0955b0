package dev.irdmaemu.bridge.container;

import dev.irdmaemu.bridge.e810.E810PairExpectations;
import dev.irdmaemu.bridge.e810.E810PairRun;

/**
 * Two guests, each in its own guest container with its own emulated E810 over vfio-user, the two E810s on one
 * cable ({@link E810PairModel}): the stock irdma.ko of one connects to the other's, checked with the same
 * {@link E810PairExpectations} as the direct boot of {@code E810PairBootTest}.
 */
class E810PairContainerTest {
    @GuestTest(scenario = E810PairModel.SCENARIO, model = E810PairModel.class, e810 = true, resultTimeoutSeconds = 300)
    void twoGuestContainersStockIrdmaConnectThroughTheirEmulatedE810s(E810PairRun.Outcome o) throws Exception {
        E810PairExpectations.verifiedPings(o, E810PairModel.PINGS);
        E810PairExpectations.rdmaPaths(o, E810PairModel.PINGS);
    }
}
