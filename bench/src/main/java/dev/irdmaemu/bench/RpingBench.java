package dev.irdmaemu.bench;

import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.cm.rping.RpingClient;
import dev.irdmaemu.cm.rping.RpingOptions;
import dev.irdmaemu.cm.rping.RpingServer;
import dev.irdmaemu.fw.pcap.FrameTap;
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
 * rping on two in-process model nodes, pings per wall second: the Java rping client ({@code -C 0 -V}, 64 bytes)
 * against the Java rping server ({@code -V}) on the verbs, the CM and the iWARP data path; each invocation runs
 * the simulation until {@value #PINGS} more pings are done, each one 4 Sends, an RDMA Read and an RDMA Write with
 * their completions, the CQ events that drive the two state machines, and the checks of the data on both sides.
 * {@code gc.alloc.rate.norm} shows what a ping allocates on the whole stack (expected: 0).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RpingBench {
    static final int PINGS = 100;

    private ModelBenchPair pair;
    private RpingClient client;

    @Setup(Level.Trial)
    public void setUp() {
        pair = new ModelBenchPair(FrameTap.NONE);
        RpingOptions server = new RpingOptions(true, CmPair.B_V4.withPort(RpingOptions.DEFAULT_PORT), null, 0,
                RpingOptions.DEFAULT_SIZE, true, false, false);
        new RpingServer(pair.b.cm, pair.b.port.verbs(), server).start();
        client = new RpingClient(pair.a.cm, pair.a.port.verbs(), RpingOptions.client(
                CmPair.B_V4.withPort(RpingOptions.DEFAULT_PORT), CmPair.A_V4.withPort(40000), 0).validating());
        client.start();
        pings();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pair.close();
    }

    @Benchmark
    @OperationsPerInvocation(PINGS)
    public int pings() {
        int target = client.pings() + PINGS;
        while (client.pings() < target) {
            if (client.isDone() || !pair.scheduler.runNext()) {
                throw new IllegalStateException("rping stopped: " + client.state() + " " + client.result());
            }
        }
        return client.pings();
    }
}
