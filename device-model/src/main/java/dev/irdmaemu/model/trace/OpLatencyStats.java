package dev.irdmaemu.model.trace;

import java.util.Arrays;

/**
 * Per-op counts and latency statistics in simulated nanoseconds (doorbell or fetch to completion written), with a
 * power-of-two histogram per op: bucket b counts latencies in [2^b, 2^(b+1)) ns (bucket 0 also holds 0). Fixed
 * arrays, no allocation per sample.
 */
public final class OpLatencyStats {
    public static final int BUCKETS = 40;

    private final String[] names;
    private final long[] count;
    private final long[] errors;
    private final long[] total;
    private final long[] min;
    private final long[] max;
    private final long[][] histogram;

    /** One slot per name (the caller maps its op codes to slots). */
    public OpLatencyStats(String[] names) {
        this.names = names.clone();
        int n = names.length;
        count = new long[n];
        errors = new long[n];
        total = new long[n];
        min = new long[n];
        max = new long[n];
        histogram = new long[n][BUCKETS];
        java.util.Arrays.fill(min, Long.MAX_VALUE);
    }

    public void record(int slot, long latencyNanos, boolean error) {
        if (slot < 0 || slot >= count.length) {
            return;
        }
        long l = Math.max(0, latencyNanos);
        count[slot]++;
        if (error) {
            errors[slot]++;
        }
        total[slot] += l;
        min[slot] = Math.min(min[slot], l);
        max[slot] = Math.max(max[slot], l);
        int b = l == 0 ? 0 : Math.min(BUCKETS - 1, 63 - Long.numberOfLeadingZeros(l));
        histogram[slot][b]++;
    }

    public long count(int slot) {
        return count[slot];
    }

    public long errors(int slot) {
        return errors[slot];
    }

    public long min(int slot) {
        return count[slot] == 0 ? 0 : min[slot];
    }

    public long max(int slot) {
        return max[slot];
    }

    public double mean(int slot) {
        return count[slot] == 0 ? 0 : (double) total[slot] / count[slot];
    }

    public long bucket(int slot, int b) {
        return histogram[slot][b];
    }

    public long totalCount() {
        return Arrays.stream(count).sum();
    }

    /** A table of the ops seen: name, count, errors, min / mean / max latency in ns. */
    public String summary() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("%-32s %8s %6s %10s %10s %10s%n", "op", "count", "errors", "min_ns", "mean_ns",
                "max_ns"));
        for (int i = 0; i < names.length; i++) {
            if (count[i] > 0) {
                sb.append(String.format("%-32s %8d %6d %10d %10.0f %10d%n", names[i], count[i], errors[i], min(i),
                        mean(i), max[i]));
            }
        }
        return sb.toString();
    }
}
