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
 * Wall nanoseconds per full-size FPDU through both models: RDMA Writes of exactly one MULPDU of payload (1440
 * bytes with MSS 1460 and CRC), {@value #BATCH} per invocation, so the time per op is one FPDU's trip: gathered,
 * framed and CRCed, segmented and checksummed by TCP, carried by the link, classified, checked against its STag and
 * placed through the STag table, and its ACK's way back.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class IwarpFpduBench {
    static final int BATCH = 512;
    static final int PAYLOAD = 1440;

    private IwarpBenchPair pair;
    private final SgeList sge = new SgeList();
    private IwarpBenchPair.Region dst;

    @Setup(Level.Trial)
    public void setUp() {
        pair = new IwarpBenchPair();
        if (pair.a.engine().mulpduBytes() - 14 != PAYLOAD) {
            throw new IllegalStateException("MULPDU " + pair.a.engine().mulpduBytes());
        }
        IwarpBenchPair.Region src = pair.a.register(PAYLOAD, Access.LOCAL_WRITE);
        sge.add(src.address(), PAYLOAD, src.stag());
        dst = pair.b.register(PAYLOAD, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pair.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long fpdu() {
        long before = pair.a.engine().stats().fpdusSent();
        for (int i = 0; i < BATCH; i++) {
            pair.write(sge, dst.stag(), dst.address(), i == BATCH - 1);
        }
        pair.a.ring();
        if (!pair.awaitCompletions(pair.a, 1)) {
            throw new IllegalStateException("stalled");
        }
        long sent = pair.a.engine().stats().fpdusSent() - before;
        if (sent != BATCH) {
            throw new IllegalStateException(sent + " FPDUs for " + BATCH + " Writes");
        }
        return sent;
    }
}
