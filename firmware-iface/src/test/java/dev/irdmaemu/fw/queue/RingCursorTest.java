package dev.irdmaemu.fw.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/** Valid-bit polarity across ring wraps, producer and consumer agreeing (irdma's first pass writes 1). */
class RingCursorTest {
    @Test
    void polarityFlipsOnWrap() {
        RingCursor c = new RingCursor(4);
        assertTrue(c.polarity());
        c.advance(3);
        assertTrue(c.polarity());
        assertEquals(3, c.index());
        c.advance(1);
        assertEquals(0, c.index());
        assertFalse(c.polarity());
        c.advance(2).advance(2);
        assertTrue(c.polarity());
        assertEquals(96, c.seek(3).byteOffset(32));
        assertFalse(c.polarityAt(2));
        assertTrue(c.polarityAt(3));
        assertThrows(IllegalArgumentException.class, () -> c.advance(5));
        assertThrows(IllegalArgumentException.class, () -> c.seek(4));
        assertThrows(IllegalArgumentException.class, () -> new RingCursor(0));
    }

    /** The model produces CQEs around a 4-entry ring twice; the driver's cursor sees each exactly once. */
    @Test
    void producerAndConsumerAgreeAcrossWraps() {
        BytesStore<?, ?> ring = Mem.heap(4 * Cqe.SIZE);
        RingCursor device = new RingCursor(4);
        RingCursor driver = new RingCursor(4);
        Cqe w = new Cqe();
        Cqe r = new Cqe();
        int seen = 0;
        for (int n = 0; n < 10; n++) {
            w.wrap(ring, device.byteOffset(Cqe.SIZE), Cqe.SIZE).clear().wqeIndex(n).valid(device.polarity());
            device.advance(1);
            r.wrap(ring, driver.byteOffset(Cqe.SIZE), Cqe.SIZE);
            assertEquals(CqeCheck.ACCEPTED, r.validate(driver.polarity()));
            assertEquals(n, r.wqeIndex());
            driver.advance(1);
            seen++;
            // the next slot holds last pass's entry (or zeroes on the first pass): not new
            r.wrap(ring, driver.byteOffset(Cqe.SIZE), Cqe.SIZE);
            assertEquals(CqeCheck.NOT_POSTED, r.validate(driver.polarity()));
        }
        assertEquals(10, seen);
    }
}
