package dev.irdmaemu.bridge.boot;

import org.junit.jupiter.api.Test;

/**
 * Issue 6, test 3 (and test 6 for its run), booted directly: stock siw as rping client, the model as server; the
 * node resets the connection after siw's MPA request, which lacks the peer-to-peer bit, as irdma does
 * ({@link ScenarioExpectations#rpingClientRefused}, which the container tests check too).
 */
class RefusedConnectionBootTest {
    @Test
    void stockSiwsRequestWithoutPeerToPeerIsResetAsIrdmaResetsIt() throws Exception {
        ScenarioExpectations.rpingClientRefused(BootTests.boot(BootScenario.RPING_CLIENT_REFUSED, "rping-client-refused"));
    }
}
