package dev.irdmaemu.bridge.boot;

import org.junit.jupiter.api.Test;

/**
 * Issue 6, test 5 (and test 6 for its runs), booted directly: ucmatose's connect/disconnect loops of 100
 * connections between the real guest's siw and the node's Java ucmatose, both ways, with nothing left on the model
 * afterwards ({@link ScenarioExpectations#ucmatoseClient}, {@link ScenarioExpectations#ucmatoseServer}, which the
 * container tests check too).
 */
class UcmatoseBootTest {
    @Test
    void theGuestsUcmatoseClientsConnectToTheNodeAHundredAtATimeTwice() throws Exception {
        ScenarioExpectations.ucmatoseClient(BootTests.boot(BootScenario.UCMATOSE_CLIENT, "ucmatose-client"));
    }

    @Test
    void theNodesUcmatoseClientsConnectToTheGuestsServersAHundredAtATime() throws Exception {
        ScenarioExpectations.ucmatoseServer(BootTests.boot(BootScenario.UCMATOSE_SERVER, "ucmatose-server"));
    }
}
