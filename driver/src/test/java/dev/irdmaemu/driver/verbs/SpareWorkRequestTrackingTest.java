package dev.irdmaemu.driver.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/** A destroyed QP's tracking arrays go only to a QP of the same depths, and at most CAPACITY are kept. */
class SpareWorkRequestTrackingTest {
    @Test
    void arraysGoToAQpOfTheSameDepthsOnly() {
        SpareWorkRequestTracking spares = new SpareWorkRequestTracking();
        WorkRequestTracking t = spares.take(512, 32);
        assertEquals(512, t.sqWrid.length);
        assertEquals(32, t.rqWrid.length);
        spares.give(t);
        assertNotSame(t, spares.take(512, 64));
        assertNotSame(t, spares.take(1024, 32));
        assertSame(t, spares.take(512, 32));
        assertEquals(0, spares.count());
        for (int i = 0; i < SpareWorkRequestTracking.CAPACITY + 5; i++) {
            spares.give(new WorkRequestTracking(512, 32));
        }
        assertEquals(SpareWorkRequestTracking.CAPACITY, spares.count());
    }
}
