package dev.irdmaemu.bench;

import dev.irdmaemu.driver.verbs.Access;
import dev.irdmaemu.fw.queue.SgeList;
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
 * RDMA Write throughput between two in-process E810 models over one offloaded iWARP connection: each invocation
 * posts {@value #BATCH} 4 KiB Writes (the last signaled, one doorbell) and runs the simulation until the
 * completion; the whole data path runs on the benchmark thread (SQ, gather and placement through both models'
 * STag tables, MPA/DDP/RDMAP with CRC32c, TCP with ACKs, the link, the peer's receive path). Ops/s are 4 KiB
 * messages per wall second: payload Gbit/s is ops/s x 4096 x 8 / 10^9 (32768 ops/s is 1 Gbit/s of payload... so
 * 305,176 ops/s is 10 Gbit/s).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class IwarpWriteBench {
    static final int BATCH = 256;
    static final int MESSAGE = 4096;

    private IwarpBenchPair pair;
    private final SgeList sge = new SgeList();
    private IwarpBenchPair.Region src;
    private IwarpBenchPair.Region dst;

    @Setup(Level.Trial)
    public void setUp() {
        pair = new IwarpBenchPair();
        src = pair.a.register(MESSAGE * 16L, Access.LOCAL_WRITE);
        dst = pair.b.register(MESSAGE * 16L, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pair.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int write4KiB() {
        for (int i = 0; i < BATCH; i++) {
            long at = (i & 15) * (long) MESSAGE;
            sge.clear().add(src.address() + at, MESSAGE, src.stag());
            pair.write(sge, dst.stag(), dst.address() + at, i == BATCH - 1);
        }
        pair.a.ring();
        if (!pair.awaitCompletions(pair.a, 1)) {
            throw new IllegalStateException("the Writes did not complete");
        }
        return pair.a.cqHead;
    }
}
