package dev.irdmaemu.bridge.container;

import dev.irdmaemu.bridge.boot.BootReport;
import dev.irdmaemu.bridge.boot.ScenarioExpectations;

/**
 * Issue 7: the end-to-end scenarios of issue 6 through a guest container, against the hosted node
 * {@code irdma-emu boot} runs, checked with the same {@link ScenarioExpectations} as the direct boots
 * ({@code PingBootTest}, {@code RefusedConnectionBootTest}). The README shows this class as it is
 * ({@code ReadmeExamplesTest} keeps the two the same).
 */
class ScenarioContainerTest {
    @GuestTest(scenario = "ping", model = HostedNodeModel.class)
    void theGuestPingsTheNode(BootReport run) throws Exception {
        ScenarioExpectations.ping(run);
    }

    @GuestTest(scenario = "rping-client-refused", model = HostedNodeModel.class)
    void stockSiwsClientIsRefused(BootReport run) throws Exception {
        ScenarioExpectations.rpingClientRefused(run);
    }
}
