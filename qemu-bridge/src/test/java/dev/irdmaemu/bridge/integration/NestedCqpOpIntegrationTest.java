package dev.irdmaemu.bridge.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.model.ModelPair;
import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.fw.sim.SimTimer;
import org.junit.jupiter.api.Test;

/**
 * A CQP op posted while another waits for its completion (the driver runs the scheduler during the wait, so a timer
 * due then can post one: a connection's release after its CLOSE and a consumer's teardown did so) gets its own
 * completion, and the op it interrupted still gets its one, as hw.c irdma_cqp_ce_handler hands each CCQ CQE to the
 * request it names. Before, the inner op's wait consumed the outer's CQE and the outer timed out.
 */
class NestedCqpOpIntegrationTest {
    @Test
    void anOpPostedDuringAnothersWaitAndTheOpItInterruptedBothComplete() {
        try (ModelPair pair = new ModelPair()) {
            CompletionQueue[] inner = new CompletionQueue[1];
            SimTimer t = pair.scheduler.newTimer("nested-op", () -> inner[0] = pair.a.verbs.createCq(8));
            t.scheduleIn(0);
            long before = pair.scheduler.now();
            CompletionQueue outer = pair.a.verbs.createCq(8);
            assertNotNull(inner[0], "the timer ran during the outer op's wait and posted its op");
            assertTrue(pair.scheduler.now() - before < IrdmaDriver.CQP_TIMEOUT_NANOS, "no op waited out the timeout");
            assertTrue(outer.id() != inner[0].id());
            assertEquals(2, pair.a.verbs.cqsInUse());
            outer.destroy();
            inner[0].destroy();
            assertEquals(0, pair.a.verbs.cqsInUse());
        }
    }
}
