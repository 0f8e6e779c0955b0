package dev.irdmaemu.model.qp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.reg.Gen2Registers;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The CQ arm that arrives after a completion it was meant to catch: over vfio-user the arm doorbell is a posted
 * write, so the stock rping's cq thread (req_notify, then poll until empty) can poll before the device writes a
 * CQE and arm after it. Found by the stock irdma.ko and libirdma against the model (the 7th of 10 pings hung with
 * the receive CQE written, unarmed, 0.14 ms before the arm reached the model).
 */
class CqArmCatchUpTest {
    private static final int ENTRIES = 64;
    private final HostMemory memory = new HostMemory();
    private HostRam ram;
    private final List<Integer> notified = new ArrayList<>();
    private CompletionQueue cq;
    private long shadow;

    @BeforeEach
    void setUp() {
        ram = new HostRam(memory, 0x10_0000L, 1 << 20);
        long ring = ram.allocate(ENTRIES * 32L);
        shadow = ram.allocate(64);
        CqTable table = new CqTable(memory, new CompletionQueue.CqEvents() {
            @Override
            public void cqNotify(int ceqId, int cqId) {
                notified.add(cqId);
            }

            @Override
            public void cqOverflow(CompletionQueue q) {
            }

            @Override
            public void cqLost(int cqId, int qpId, CqTable.Loss why) {
            }
        }, 16);
        cq = table.create(3, ring, ENTRIES, shadow, 0, true, false, false);
    }

    @AfterEach
    void tearDown() {
        ram.close();
    }

    private void arm(int seq) {
        memory.writeLong(shadow + Gen2Registers.CQ_SHADOW_ARM_OFFSET, Gen2Registers.cqArmWord(seq, 0, true, true));
        assertTrue(cq.arm());
    }

    /** The driver reaped up to {@code head} (uk.c writes its CQ head into shadow quadword 0 as it polls). */
    private void reaped(int head) {
        memory.writeLong(shadow, head);
    }

    @Test
    void aCompletionWrittenBeforeALateArmAndNotReapedNotifiesAtTheArm() {
        arm(1);
        cq.produced(1, false); // the send completion: armed, notifies
        assertEquals(List.of(3), notified);
        reaped(1); // the consumer's poll after its event took it
        cq.produced(1, false); // the receive completion, before the (posted) arm reaches the device
        assertEquals(1, notified.size(), "not armed: no event yet");
        arm(2);
        assertEquals(List.of(3, 3), notified, "the late arm finds an unreaped CQE: notifies at once");
        assertEquals(1, cq.armCatchUps());
        assertTrue(!cq.armed());
    }

    @Test
    void anArmAfterEverythingWasReapedWaitsForTheNextCompletion() {
        arm(1);
        cq.produced(1, false);
        cq.produced(1, false); // unarmed
        reaped(2); // the consumer's poll took both
        arm(2);
        assertEquals(1, notified.size(), "nothing unreaped: no event at the arm");
        assertTrue(cq.armed());
        cq.produced(1, false);
        assertEquals(2, notified.size());
        assertEquals(0, cq.armCatchUps());
    }

    @Test
    void aSolicitedOnlyArmDoesNotCatchUpOnOrdinaryCompletions() {
        arm(1);
        cq.produced(1, false);
        cq.produced(1, false); // unarmed, not reaped
        memory.writeLong(shadow + Gen2Registers.CQ_SHADOW_ARM_OFFSET, Gen2Registers.cqArmWord(2, 0, true, false));
        assertTrue(cq.arm());
        assertEquals(1, notified.size(), "an arm for the next solicited completion only is not caught up");
    }

    @Test
    void aCatchUpHappensOncePerBatchNotAtEveryArm() {
        arm(1);
        cq.produced(1, false);
        cq.produced(1, false); // unarmed, never reaped (a consumer that does not poll)
        arm(2);
        assertEquals(2, notified.size());
        arm(3); // no new CQE since the catch-up's notification
        assertEquals(2, notified.size(), "no event storm: the CQEs were already notified");
    }
}
