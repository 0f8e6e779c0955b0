package dev.irdmaemu.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The harness the throughput probes share: a 3-second warm-up, then the measured run, each timed against the wall
 * clock and the thread's CPU clock and reported by the probe as one line.
 */
final class ThroughputProbe {
    /** Payload bytes of one message. */
    static final int MESSAGE = 4096;
    private static final long WARM_UP_SECONDS = 3;

    /**
     * One round: {@code messages} of {@value #MESSAGE} bytes in {@code wall} and {@code cpu} seconds; {@code fpdus}
     * sent meanwhile by the probe's count (0 without one).
     */
    record Round(String name, long messages, long fpdus, double wall, double cpu) {
        double bits() {
            return messages * (double) MESSAGE * 8;
        }

        double gbitPerWall() {
            return bits() / wall / 1e9;
        }

        double gbitPerCpu() {
            return bits() / cpu / 1e9;
        }
    }

    private ThroughputProbe() {
    }

    /** The probe's run time in seconds: the first argument, 10 without one. */
    static int seconds(String[] args) {
        return args.length > 0 ? Integer.parseInt(args[0]) : 10;
    }

    /**
     * Runs {@code batch} (of {@code perBatch} messages) over and over, 3 seconds to warm up and then {@code seconds}
     * measured, and hands each round to {@code report}. {@code fpdusSent}: the running count of FPDUs sent.
     */
    static void run(int seconds, int perBatch, Runnable batch, LongSupplier fpdusSent, Consumer<Round> report) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (int round = 0; round < 2; round++) {
            long wall0 = System.nanoTime();
            long cpu0 = threads.getCurrentThreadCpuTime();
            long fpdus0 = fpdusSent.getAsLong();
            long messages = 0;
            long limit = wall0 + (round == 0 ? WARM_UP_SECONDS : seconds) * 1_000_000_000L;
            while (System.nanoTime() < limit) {
                batch.run();
                messages += perBatch;
            }
            double wall = (System.nanoTime() - wall0) / 1e9;
            double cpu = (threads.getCurrentThreadCpuTime() - cpu0) / 1e9;
            report.accept(new Round(round == 0 ? "warm-up" : "measured", messages, fpdusSent.getAsLong() - fpdus0,
                    wall, cpu));
        }
    }
}
