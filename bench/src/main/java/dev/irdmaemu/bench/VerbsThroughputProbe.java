package dev.irdmaemu.bench;

/**
 * The workload of {@link VerbsWriteBench} (4 KiB RDMA Writes through the verbs, 256 a batch, between two
 * in-process model nodes connected by the CM) measured against the wall clock and the thread's CPU clock: on a
 * shared machine the wall figure depends on what else runs, the CPU figure says what one core does. Not a JMH
 * benchmark: a probe to read next to VerbsWriteBench's numbers.
 * {@code java ... dev.irdmaemu.bench.VerbsThroughputProbe [seconds]}
 */
public final class VerbsThroughputProbe {
    private VerbsThroughputProbe() {
    }

    public static void main(String[] args) {
        int seconds = ThroughputProbe.seconds(args);
        VerbsWriteBench bench = new VerbsWriteBench();
        bench.setUp();
        try {
            ThroughputProbe.run(seconds, VerbsWriteBench.BATCH, bench::write4KiB, bench::fpdusSent, r ->
                    System.out.printf("%s: %d messages of 4 KiB (%d FPDUs) in %.2f s wall (%.2f s CPU): %.2f Gbit/s"
                                    + " per wall second, %.2f Gbit/s per CPU second, %.0f CPU ns per FPDU%n",
                            r.name(), r.messages(), r.fpdus(), r.wall(), r.cpu(), r.gbitPerWall(), r.gbitPerCpu(),
                            r.cpu() * 1e9 / r.fpdus()));
        } finally {
            bench.tearDown();
        }
    }
}
