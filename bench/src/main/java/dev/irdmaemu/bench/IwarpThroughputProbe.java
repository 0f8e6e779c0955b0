package dev.irdmaemu.bench;

/**
 * The RDMA Write workload of {@link IwarpWriteBench} (4 KiB Writes in batches of 256 between two in-process
 * models) measured against both the wall clock and the thread's CPU clock: on a shared machine the wall figure
 * depends on what else runs, the CPU figure says what one core does. Not a JMH benchmark: a probe to read next to
 * IwarpWriteBench's numbers. {@code java ... dev.irdmaemu.bench.IwarpThroughputProbe [seconds]}
 */
public final class IwarpThroughputProbe {
    private IwarpThroughputProbe() {
    }

    public static void main(String[] args) {
        int seconds = ThroughputProbe.seconds(args);
        IwarpWriteBench bench = new IwarpWriteBench();
        bench.setUp();
        try {
            ThroughputProbe.run(seconds, IwarpWriteBench.BATCH, bench::write4KiB, () -> 0, r ->
                    System.out.printf("%s: %d messages of 4 KiB in %.2f s wall (%.2f s CPU): %.2f Gbit/s per wall"
                                    + " second, %.2f Gbit/s per CPU second, %.0f CPU ns per FPDU (3 per message)%n",
                            r.name(), r.messages(), r.wall(), r.cpu(), r.gbitPerWall(), r.gbitPerCpu(),
                            r.cpu() * 1e9 / (r.messages() * 3.0)));
        } finally {
            bench.tearDown();
        }
    }
}
