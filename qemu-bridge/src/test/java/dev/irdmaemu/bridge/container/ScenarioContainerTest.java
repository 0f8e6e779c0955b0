package dev.irdmaemu.bridge.container;

import dev.irdmaemu.bridge.run.BootReport;
import dev.irdmaemu.bridge.boot.ScenarioExpectations;

/**
 * Issue 7: the end-to-end scenarios of issue 6 through a guest container, against the hosted node
 * {@code irdma-emu boot} runs, checked with the same {@link ScenarioExpectations} as the direct boots
 * ({@code PingBootTest}, {@code RefusedConnectionBootTest}, {@code RpingBootTest}, {@code UcmatoseBootTest}): tests
 * 1 to 5, and 6 for each run. The README shows part of this class as it is ({@code ReadmeExamplesTest} keeps the
 * two the same).
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

    @GuestTest(scenario = "rping-server", model = HostedNodeModel.class)
    void theNodesRpingClientPingsStockSiwsServer(BootReport run) throws Exception {
        ScenarioExpectations.rpingServer(run);
    }

    /** siw's peer_to_peer is a source-level setting (siw_main.c); the scenario loads the kit's p2p build. */
    @GuestTest(scenario = "rping-client", model = HostedNodeModel.class)
    void thePeerToPeerSiwsRpingClientPingsTheNode(BootReport run) throws Exception {
        ScenarioExpectations.rpingClient(run);
    }

    @GuestTest(scenario = "ucmatose-client", model = HostedNodeModel.class)
    void theGuestsUcmatoseConnectsAHundredAtATime(BootReport run) throws Exception {
        ScenarioExpectations.ucmatoseClient(run);
    }

    @GuestTest(scenario = "ucmatose-server", model = HostedNodeModel.class)
    void theNodesUcmatoseConnectsAHundredAtATime(BootReport run) throws Exception {
        ScenarioExpectations.ucmatoseServer(run);
    }
}
