package dev.irdmaemu.bridge.boot;

import org.junit.jupiter.api.Test;

/**
 * Issue 6, tests 2 and 4 (and test 6 for their runs), booted directly: rping between the real guest's siw and the
 * node's Java rping over the model's iWARP data path, each way ({@link ScenarioExpectations#rpingServer},
 * {@link ScenarioExpectations#rpingClient}, which the container tests check too).
 */
class RpingBootTest {
    /** Test 2: the model as rping client, its MPA v2 request and RTR, against stock siw's {@code rping -s}. */
    @Test
    void theNodesRpingClientMakesTenVerifiedPingsWithStockSiwsServer() throws Exception {
        ScenarioExpectations.rpingServer(BootTests.boot(BootScenario.RPING_SERVER, "rping-server"));
    }

    /**
     * Test 4: siw's {@code peer_to_peer} is a source-level setting (siw_main.c defines it as a constant, false as
     * Linux ships it); the scenario boots the kit's siw-p2p.ko, built with it true, whose {@code rping -c} the node's
     * rping server then accepts.
     */
    @Test
    void thePeerToPeerSiwBuildsRpingClientMakesTenPingsWithTheNodesServer() throws Exception {
        ScenarioExpectations.rpingClient(BootTests.boot(BootScenario.RPING_CLIENT, "rping-client"));
    }
}
