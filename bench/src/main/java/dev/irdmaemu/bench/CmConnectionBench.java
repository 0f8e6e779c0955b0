package dev.irdmaemu.bench;

import dev.irdmaemu.cm.demo.ConnectionChurn;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Connection setup plus teardown between two in-process CM nodes on a perfect wire, on one core: SYN, SYN-ACK,
 * ACK, MPA v2 request and reply, the RTR, offload to the (stand-in) QP, graceful close, both nodes empty again.
 * Issue target: 100,000 connections per second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CmConnectionBench {
    private ConnectionChurn churn;

    @Setup(Level.Trial)
    public void setUp() {
        churn = new ConnectionChurn();
        for (int i = 0; i < 1000; i++) {
            if (!churn.cycle()) {
                throw new IllegalStateException("warm-up connection " + i + " did not complete cleanly");
            }
        }
    }

    @Benchmark
    public boolean connectAndClose() {
        return churn.cycle();
    }
}
