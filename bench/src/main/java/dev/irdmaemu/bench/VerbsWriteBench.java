package dev.irdmaemu.bench;

import dev.irdmaemu.driver.verbs.PostStatus;
import dev.irdmaemu.driver.verbs.SendWorkRequest;
import dev.irdmaemu.driver.verbs.WorkCompletion;
import dev.irdmaemu.driver.verbs.WrOpcode;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * RDMA Write throughput between two in-process model nodes through the verbs: each invocation posts {@value #BATCH}
 * 4 KiB Writes with {@link dev.irdmaemu.driver.verbs.QueuePair#postSend} (the last signaled, as a consumer batches)
 * from a registered 64 KiB source into the peer's registered region, then runs the simulation until their
 * completion is polled. Everything runs on the benchmark thread: the verbs' WQEs and doorbells, the SQ engine,
 * MPA/DDP/RDMAP with CRC32c, the QP's TCP and its ACKs, the link, the peer's checks and placement through its MR
 * table, the CQE and the poll. Ops/s are 4 KiB messages per wall second; payload Gbit/s = ops/s x 32768 / 10^9
 * (305,176 ops/s is 10 Gbit/s).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class VerbsWriteBench {
    static final int BATCH = 256;
    static final int MESSAGE = 4096;
    static final int BUFFER = 16 * MESSAGE;

    private VerbsBenchPair pair;
    private final SendWorkRequest wr = new SendWorkRequest();
    private final WorkCompletion wc = new WorkCompletion();

    @Setup(Level.Trial)
    public void setUp() {
        pair = new VerbsBenchPair(2 * BATCH, 8, BUFFER);
        for (int i = 0; i < 4; i++) {
            write4KiB();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pair.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long write4KiB() {
        VerbsBenchPair.Side a = pair.a;
        VerbsBenchPair.Side b = pair.b;
        for (int i = 0; i < BATCH; i++) {
            long at = (i & 15) * (long) MESSAGE;
            wr.clear().wrId(i).opcode(WrOpcode.RDMA_WRITE).flags(i == BATCH - 1 ? SendWorkRequest.SIGNALED : 0)
                    .sge(a.mr.address() + at, MESSAGE, a.mr.lkey()).remote(b.mr.address() + at, b.mr.rkey());
            if (a.qp.postSend(wr) != PostStatus.OK) {
                throw new IllegalStateException("post " + i + " refused");
            }
        }
        pair.awaitCompletion(a.cq, wc);
        return wc.wrId();
    }

    /** FPDUs the sending side has sent so far (for {@link VerbsThroughputProbe}). */
    long fpdusSent() {
        return pair.a.counters().fpdusSent();
    }
}
