package dev.irdmaemu.bridge.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.model.ModelNode;
import dev.irdmaemu.cm.LocalAddress;
import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An address handle whose create without waiting the device refused, then freed by its owner, as irdma 7.3 frees it
 * (utils.c irdma_puda_free_ah): no Destroy AH (ah_valid is clear) and no irdma_free_rsrc, so the index stays taken
 * in rf->allocated_ahs and irdma_alloc_rsrc hands out the next ones.
 */
class RefusedAddressHandleIndexIntegrationTest {
    private static final long MAC = 0x02_00_00_00_00_0eL;
    private static final int[] DEST = {0xc000_0202, 0, 0, 0};
    private static final int[] SRC = {0xc000_0201, 0, 0, 0};

    @Test
    void aRefusedAhFreedByItsOwnerKeepsItsIndexAndNothingIsDestroyed() {
        RecordingTraceSink sink = new RecordingTraceSink();
        SimScheduler s = new SimScheduler(9);
        try (ModelNode n = new ModelNode(s, new Link(s), new Trace(s).enableAll(sink), MAC,
                List.of(LocalAddress.untagged("192.0.2.1")), FaultProfile.NONE, d -> { })) {
            // index 0 taken in the device behind the driver's back: the driver's create of index 0 is refused (EXISTS)
            n.driver.cqp().op("CREATE_ADDR_HANDLE", (o, v) -> CqpWqeWriter.addressHandle(n.driver.store(), o,
                    CqpOpcode.CREATE_ADDR_HANDLE, 0, MAC, 0, 0, 0, false, 0, 0, 64, true, false, DEST, SRC, v));
            List<String> answers = new ArrayList<>();
            int ah = n.driver.addressHandles().create(MAC, 0, 0, false, 0, 64, true, false, DEST, SRC,
                    (index, valid) -> answers.add(index + ":" + valid));
            assertEquals(0, ah);
            assertTrue(s.runUntilIdle(s.now() + 1_000_000_000L));
            assertEquals(List.of("0:false"), answers);
            assertFalse(n.driver.addressHandles().valid(ah));
            sink.clear();
            n.driver.addressHandles().destroy(ah);
            assertTrue(s.runUntilIdle(s.now() + 1_000_000_000L));
            assertTrue(sink.of(TraceKind.CQP_OP).isEmpty(), "no Destroy AH for an AH that is not valid");
            assertEquals(1, n.driver.addressHandles().inUse(), "the index stays in the bitmap");
            assertEquals(1, n.driver.addressHandles().leaked());
            n.driver.addressHandles().destroy(ah);
            assertEquals(1, n.driver.addressHandles().leaked(), "a second free changes nothing");
            // the next creates go on from rf->next_ah and never hand index 0 out again while it is taken
            int next = n.driver.addressHandles().create(MAC, 0, 0, false, 0, 64, true, false, DEST, SRC);
            assertEquals(1, next);
            n.driver.addressHandles().destroy(next);
            assertTrue(s.runUntilIdle(s.now() + 1_000_000_000L));
            assertEquals(1, n.driver.addressHandles().inUse());
            assertEquals(1, n.device.addressHandles().liveCount(), "only the AH made behind the driver's back");
        }
    }
}
