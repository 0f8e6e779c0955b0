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
 * Wall nanoseconds per full-size FPDU through the verbs between two in-process model nodes: 64 KiB RDMA Writes
 * (each {@value #FPDUS_PER_WRITE} FPDUs of at most 1440 payload bytes: MSS 1460 less the MPA length and CRC and
 * the tagged DDP/RDMAP header), {@value #WRITES} per invocation, the last signaled; one op is one FPDU, counted by
 * the sending QP's device counter (checked, so the op count is the wire's). The cost of a consumer's post and poll
 * is spread over its FPDUs, as for a bulk transfer.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class VerbsFpduBench {
    static final int MESSAGE = 64 * 1024;
    static final int WRITES = 16;
    static final int FPDUS_PER_WRITE = (MESSAGE + 1439) / 1440;

    private VerbsBenchPair pair;
    private final SendWorkRequest wr = new SendWorkRequest();
    private final WorkCompletion wc = new WorkCompletion();

    @Setup(Level.Trial)
    public void setUp() {
        pair = new VerbsBenchPair(64, 8, MESSAGE);
        for (int i = 0; i < 4; i++) {
            fpdu();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pair.close();
    }

    @Benchmark
    @OperationsPerInvocation(WRITES * FPDUS_PER_WRITE)
    public long fpdu() {
        VerbsBenchPair.Side a = pair.a;
        VerbsBenchPair.Side b = pair.b;
        long before = a.counters().fpdusSent();
        for (int i = 0; i < WRITES; i++) {
            wr.clear().wrId(i).opcode(WrOpcode.RDMA_WRITE).flags(i == WRITES - 1 ? SendWorkRequest.SIGNALED : 0)
                    .sge(a.mr.address(), MESSAGE, a.mr.lkey()).remote(b.mr.address(), b.mr.rkey());
            if (a.qp.postSend(wr) != PostStatus.OK) {
                throw new IllegalStateException("post " + i + " refused");
            }
        }
        pair.awaitCompletion(a.cq, wc);
        long sent = a.counters().fpdusSent() - before;
        if (sent != (long) WRITES * FPDUS_PER_WRITE) {
            throw new IllegalStateException(sent + " FPDUs for " + WRITES + " Writes of " + MESSAGE);
        }
        return sent;
    }
}
