package dev.irdmaemu.bench;

import dev.irdmaemu.driver.verbs.PostStatus;
import dev.irdmaemu.driver.verbs.ReceiveWorkRequest;
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
 * 64-byte Sends between two in-process model nodes through the verbs, messages per wall second: each invocation
 * posts {@value #BATCH} Sends on A (the last signaled) and runs the simulation until B has polled a receive
 * completion for every one (reposting each receive as it completes, so B always has {@value #BATCH} posted) and A
 * its Send completion. Each Send is one FPDU of 64 bytes (the receive path: the RQ WQE, placement, the CQE).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class VerbsSendBench {
    static final int BATCH = 128;
    static final int MESSAGE = 64;

    private VerbsBenchPair pair;
    private final SendWorkRequest wr = new SendWorkRequest();
    private final ReceiveWorkRequest rr = new ReceiveWorkRequest();
    private final WorkCompletion wc = new WorkCompletion();

    @Setup(Level.Trial)
    public void setUp() {
        pair = new VerbsBenchPair(2 * BATCH, 2 * BATCH, 4096);
        for (int i = 0; i < BATCH; i++) {
            postReceive(i);
        }
        for (int i = 0; i < 4; i++) {
            send64();
        }
    }

    private void postReceive(int slot) {
        VerbsBenchPair.Side b = pair.b;
        if (b.qp.postRecv(rr.clear().wrId(slot).sge(b.mr.address() + (slot & 31) * 128L, 128, b.mr.lkey()))
                != PostStatus.OK) {
            throw new IllegalStateException("receive " + slot + " refused");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pair.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long send64() {
        VerbsBenchPair.Side a = pair.a;
        for (int i = 0; i < BATCH; i++) {
            wr.clear().wrId(i).opcode(WrOpcode.SEND).flags(i == BATCH - 1 ? SendWorkRequest.SIGNALED : 0)
                    .sge(a.mr.address() + (i & 31) * 128L, MESSAGE, a.mr.lkey());
            if (a.qp.postSend(wr) != PostStatus.OK) {
                throw new IllegalStateException("post " + i + " refused");
            }
        }
        long bytes = 0;
        for (int i = 0; i < BATCH; i++) {
            pair.awaitCompletion(pair.b.cq, wc);
            bytes += wc.byteLen();
            postReceive((int) wc.wrId());
        }
        if (bytes != (long) BATCH * MESSAGE) {
            throw new IllegalStateException(bytes + " bytes received");
        }
        pair.awaitCompletion(a.cq, wc);
        return bytes;
    }
}
