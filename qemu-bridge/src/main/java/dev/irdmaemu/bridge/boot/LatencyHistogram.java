package dev.irdmaemu.bridge.boot;

import java.util.Locale;

/**
 * Wall-clock latencies in power-of-two buckets (bucket {@code b} holds values below {@code 2^b} ns and at least
 * {@code 2^(b-1)}): recording allocates nothing, so the model loop keeps one per hand-off it measures. One writer
 * thread; a reader on another thread sees a slightly stale but never torn count.
 */
public final class LatencyHistogram {
    private static final int BUCKETS = 64;
    private final long[] buckets = new long[BUCKETS];
    private volatile long count;
    private volatile long max;
    private long sum;

    /** Records one latency; a negative one (a clock that went backwards) counts as 0. Writer thread only. */
    public void record(long nanos) {
        long v = Math.max(0, nanos);
        buckets[64 - Long.numberOfLeadingZeros(v)]++;
        sum += v;
        if (v > max) {
            max = v;
        }
        count++;
    }

    public long count() {
        return count;
    }

    public long max() {
        return max;
    }

    public long sum() {
        return sum;
    }

    /**
     * An upper bound of the {@code q} quantile (0..1): the top of the bucket that holds it, so at most twice the true
     * value; 0 when nothing was recorded.
     */
    public long quantileUpperBound(double q) {
        long n = count;
        if (n == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(q * n));
        long seen = 0;
        for (int b = 0; b < BUCKETS; b++) {
            seen += buckets[b];
            if (seen >= rank) {
                return b == 0 ? 0 : Math.min(max, (1L << b) - 1);
            }
        }
        return max;
    }

    /** "n 1234, median < 16 µs, p90 < 64 µs, max 3.2 ms, mean 20 µs", for a log line. */
    public String summary() {
        long n = count;
        if (n == 0) {
            return "n 0";
        }
        return String.format(Locale.ROOT, "n %d, median < %s, p90 < %s, max %s, mean %s", n,
                human(quantileUpperBound(0.5)), human(quantileUpperBound(0.9)), human(max), human(sum / n));
    }

    static String human(long nanos) {
        if (nanos < 10_000) {
            return String.format(Locale.ROOT, "%.1f µs", nanos / 1e3);
        }
        if (nanos < 10_000_000) {
            return String.format(Locale.ROOT, "%.0f µs", nanos / 1e3);
        }
        return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
    }
}
