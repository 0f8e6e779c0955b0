package dev.irdmaemu.bench;

import dev.irdmaemu.cm.verbs.PostStatus;
import dev.irdmaemu.cm.verbs.SendWorkRequest;
import dev.irdmaemu.cm.verbs.WorkCompletion;
import dev.irdmaemu.cm.verbs.WrOpcode;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

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
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        SendWorkRequest wr = new SendWorkRequest();
        WorkCompletion wc = new WorkCompletion();
        try (VerbsBenchPair pair = new VerbsBenchPair(2 * VerbsWriteBench.BATCH, 8, VerbsWriteBench.BUFFER)) {
            for (int round = 0; round < 2; round++) {
                long wall0 = System.nanoTime();
                long cpu0 = threads.getCurrentThreadCpuTime();
                long fpdus0 = pair.a.counters().fpdusSent();
                long messages = 0;
                long limit = wall0 + (round == 0 ? 3L : seconds) * 1_000_000_000L;
                while (System.nanoTime() < limit) {
                    for (int i = 0; i < VerbsWriteBench.BATCH; i++) {
                        long at = (i & 15) * (long) VerbsWriteBench.MESSAGE;
                        wr.clear().wrId(i).opcode(WrOpcode.RDMA_WRITE)
                                .flags(i == VerbsWriteBench.BATCH - 1 ? SendWorkRequest.SIGNALED : 0)
                                .sge(pair.a.mr.address() + at, VerbsWriteBench.MESSAGE, pair.a.mr.lkey())
                                .remote(pair.b.mr.address() + at, pair.b.mr.rkey());
                        if (pair.a.qp.postSend(wr) != PostStatus.OK) {
                            throw new IllegalStateException("post refused");
                        }
                    }
                    pair.awaitCompletion(pair.a.cq, wc);
                    messages += VerbsWriteBench.BATCH;
                }
                double wall = (System.nanoTime() - wall0) / 1e9;
                double cpu = (threads.getCurrentThreadCpuTime() - cpu0) / 1e9;
                long fpdus = pair.a.counters().fpdusSent() - fpdus0;
                double bits = messages * (double) VerbsWriteBench.MESSAGE * 8;
                System.out.printf("%s: %d messages of 4 KiB (%d FPDUs) in %.2f s wall (%.2f s CPU): %.2f Gbit/s per "
                                + "wall second, %.2f Gbit/s per CPU second, %.0f CPU ns per FPDU%n",
                        round == 0 ? "warm-up" : "measured", messages, fpdus, wall, cpu, bits / wall / 1e9,
                        bits / cpu / 1e9, cpu * 1e9 / fpdus);
            }
        }
    }
}
