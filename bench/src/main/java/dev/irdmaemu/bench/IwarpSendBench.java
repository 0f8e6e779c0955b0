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
 * 64-byte Sends between two in-process E810 models over one offloaded iWARP connection: each invocation posts
 * {@value #BATCH} receives on B and {@value #BATCH} Sends on A (the last signaled), and runs until B has every
 * receive completion and A its send completion. Ops/s are messages per wall second (one FPDU each, one RQ CQE
 * each), the message rate of the whole path.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class IwarpSendBench {
    static final int BATCH = 256;

    private IwarpBenchPair pair;
    private final SgeList sge = new SgeList();
    private final SgeList rsge = new SgeList();

    @Setup(Level.Trial)
    public void setUp() {
        pair = new IwarpBenchPair();
        IwarpBenchPair.Region src = pair.a.register(64, Access.LOCAL_WRITE);
        IwarpBenchPair.Region dst = pair.b.register(64, Access.LOCAL_WRITE);
        sge.add(src.address(), 64, src.stag());
        rsge.add(dst.address(), 64, dst.stag());
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pair.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int send64B() {
        for (int i = 0; i < BATCH; i++) {
            pair.b.postRecv(rsge);
        }
        for (int i = 0; i < BATCH; i++) {
            pair.send(sge, i == BATCH - 1);
        }
        pair.a.ring();
        int received = 0;
        int sent = 0;
        while (received < BATCH || sent < 1) {
            if (!pair.scheduler.runNext()) {
                throw new IllegalStateException("the Sends stalled");
            }
            received += pair.b.consume();
            sent += pair.a.consume();
        }
        return received;
    }
}
