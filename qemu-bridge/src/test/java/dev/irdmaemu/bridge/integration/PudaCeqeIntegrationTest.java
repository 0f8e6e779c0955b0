package dev.irdmaemu.bridge.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.model.ModelNode;
import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmListener;
import dev.irdmaemu.cm.CmNode;
import dev.irdmaemu.cm.CmStatus;
import dev.irdmaemu.cm.ConnectParams;
import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.fw.wire.FaultProfile;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The driver handles a PUDA CQ only when a CEQE names it (hw.c irdma_process_ceq -> irdma_puda_ce_handler), never
 * by polling it on other interrupts: so every completion the model writes to the ILQ or IEQ CQ must come with a
 * CEQE, or a connection stalls. Many connections set up and closed between two model nodes, on a clean link and on
 * one that drops, duplicates and reorders frames (SYN and MPA retransmissions, stray segments to the ILQ): every
 * connection completes, and each frame the model placed on a PUDA RQ and each PUDA send it completed reached the
 * driver's handler.
 */
class PudaCeqeIntegrationTest {
    private static final long LIMIT = 120_000_000_000L;
    private static final int CONNECTIONS = 24;

    @ParameterizedTest(name = "loss {0}")
    @ValueSource(doubles = {0.0, 0.05})
    void everyPudaCompletionReachesTheDriverThroughItsCeqe(double loss) {
        FaultProfile faults = loss == 0 ? FaultProfile.NONE
                : FaultProfile.NONE.withLoss(loss).withDuplication(0.02).withReordering(0.02, 200_000);
        try (TwoNodes n = TwoNodes.linked(17, faults, faults)) {
            IpEndpoint server = CmPair.B_V4.withPort(4791);
            CmListener listener = n.b.cm.listen(server, 64, e -> {
                if (e.type() == CmEventType.CONNECT_REQUEST) {
                    n.b.cm.accept(e.node(), new byte[0]);
                }
            });
            List<CmStatus> replies = new ArrayList<>();
            List<CmNode> clients = new ArrayList<>();
            for (int i = 0; i < CONNECTIONS; i++) {
                clients.add(n.a.cm.connect(CmPair.A_V4.withPort(20000 + i), server,
                        ConnectParams.of(new byte[0], 16, 16), e -> {
                            if (e.type() == CmEventType.CONNECT_REPLY) {
                                replies.add(e.status());
                            }
                        }));
            }
            assertTrue(n.runUntil(() -> replies.size() == CONNECTIONS, LIMIT), "replies: " + replies.size());
            assertEquals(CONNECTIONS, replies.stream().filter(s -> s == CmStatus.OK).count(), "" + replies);
            for (CmNode c : clients) {
                n.a.cm.disconnect(c, false);
            }
            assertTrue(n.runUntil(() -> n.a.cm.nodeCount() == 0 && n.b.cm.nodeCount() == 0, LIMIT),
                    "closed: " + n.a.cm.nodeCount() + " / " + n.b.cm.nodeCount());
            n.b.cm.destroyListener(listener);
            n.runUntil(() -> false, 1_000_000_000L);
            for (ModelNode m : List.of(n.a, n.b)) {
                long placed = m.device.puda().received();
                long handled = m.driver.puda().ilqReceived() + m.driver.puda().ilqRefused()
                        + m.driver.puda().ieqReceived() + m.driver.puda().ieqRefused();
                assertTrue(placed > 0);
                assertEquals(placed, handled, "PUDA receives the model completed vs those the driver handled");
                long sent = m.device.puda().transmitted() - m.device.puda().sendCompletionsLost();
                assertEquals(sent, m.driver.puda().ilqSendsCompleted(), "PUDA sends completed vs handled");
            }
        }
    }
}
