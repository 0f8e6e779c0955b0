package dev.irdmaemu.bridge.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The model loop's wall-clock hand-off figures: power-of-two buckets, quantiles as upper bounds. */
class LatencyHistogramTest {
    @Test
    void quantilesAreTheTopsOfTheirBuckets() {
        LatencyHistogram h = new LatencyHistogram();
        assertEquals(0, h.quantileUpperBound(0.5));
        assertEquals("n 0", h.summary());
        for (int i = 0; i < 90; i++) {
            h.record(20_000); // bucket [16384, 32768)
        }
        for (int i = 0; i < 10; i++) {
            h.record(3_000_000); // bucket [2^21, 2^22)
        }
        assertEquals(100, h.count());
        assertEquals(32_767, h.quantileUpperBound(0.5));
        assertEquals(32_767, h.quantileUpperBound(0.9));
        assertEquals(3_000_000, h.quantileUpperBound(0.95), "capped at the largest value seen");
        assertEquals(3_000_000, h.max());
        assertEquals(90 * 20_000L + 10 * 3_000_000L, h.sum());
        String s = h.summary();
        assertTrue(s.startsWith("n 100, median < 33 µs, p90 < 33 µs, max 3000 µs, mean 318 µs"), s);
    }

    @Test
    void aNegativeLatencyCountsAsZero() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(-5);
        h.record(0);
        assertEquals(2, h.count());
        assertEquals(0, h.quantileUpperBound(1.0));
        assertEquals(0, h.max());
    }
}
