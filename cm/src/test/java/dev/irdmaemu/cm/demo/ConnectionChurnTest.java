package dev.irdmaemu.cm.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ConnectionChurnTest {
    @Test
    void thousandsOfCyclesLeaveNothingBehind() {
        ConnectionChurn churn = new ConnectionChurn(32);
        for (int i = 0; i < 5_000; i++) {
            assertTrue(churn.cycle(), "cycle " + i);
        }
        assertEquals(5_000, churn.established());
        assertEquals(5_000, churn.closed());
        assertEquals(0, churn.pair().scheduler.pendingTimers());
        assertEquals(1, churn.pair().deviceB.qhashEntries().size(), "the listener's entry only");
        assertEquals(0, churn.pair().deviceA.acceleratedPortUse(1024));
    }
}
