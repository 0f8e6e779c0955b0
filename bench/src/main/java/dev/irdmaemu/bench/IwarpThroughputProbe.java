package dev.irdmaemu.bench;

import dev.irdmaemu.cm.verbs.Access;
import dev.irdmaemu.fw.queue.SgeList;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

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
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try (IwarpBenchPair pair = new IwarpBenchPair()) {
            IwarpBenchPair.Region src = pair.a.register(4096L * 16, Access.LOCAL_WRITE);
            IwarpBenchPair.Region dst = pair.b.register(4096L * 16, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            SgeList sge = new SgeList();
            // warm-up, then the measured run
            for (int round = 0; round < 2; round++) {
                long wall0 = System.nanoTime();
                long cpu0 = threads.getCurrentThreadCpuTime();
                long messages = 0;
                long limit = wall0 + (round == 0 ? 3L : seconds) * 1_000_000_000L;
                while (System.nanoTime() < limit) {
                    for (int i = 0; i < 256; i++) {
                        long at = (i & 15) * 4096L;
                        sge.clear().add(src.address() + at, 4096, src.stag());
                        pair.write(sge, dst.stag(), dst.address() + at, i == 255);
                    }
                    pair.a.ring();
                    if (!pair.awaitCompletions(pair.a, 1)) {
                        throw new IllegalStateException("stalled");
                    }
                    messages += 256;
                }
                double wall = (System.nanoTime() - wall0) / 1e9;
                double cpu = (threads.getCurrentThreadCpuTime() - cpu0) / 1e9;
                double bits = messages * 4096.0 * 8;
                System.out.printf("%s: %d messages of 4 KiB in %.2f s wall (%.2f s CPU): %.2f Gbit/s per wall second,"
                                + " %.2f Gbit/s per CPU second, %.0f CPU ns per FPDU (3 per message)%n",
                        round == 0 ? "warm-up" : "measured", messages, wall, cpu, bits / wall / 1e9, bits / cpu / 1e9,
                        cpu * 1e9 / (messages * 3.0));
            }
        }
    }
}
