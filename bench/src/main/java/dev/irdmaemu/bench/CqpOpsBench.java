package dev.irdmaemu.bench;

import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.driver.IrdmaDriver;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Synchronous CQP ops through the driver layer: WQE written, PFPE_CQPDB rung, the model runs the op and writes
 * the CCQ completion, the driver polls it. A NOP (alone, and followed by its interrupt's handling), and a quad-hash
 * add + delete pair (two ops).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CqpOpsBench {
    private ModelBenchPair pair;
    private IrdmaDriver driver;
    private final int[] local = {(int) CmPair.A_V4.addressLo()};
    private final int[] remote = {(int) CmPair.B_V4.addressLo()};

    @Setup(Level.Trial)
    public void setUp() {
        pair = new ModelBenchPair((t, s, o, l) -> { });
        driver = pair.a.driver;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pair.close();
    }

    @Benchmark
    public void nop() {
        driver.cqp().nop();
    }

    /**
     * A NOP and then the interrupt it raises, handled: in {@link #nop} the handler never runs (each op's wait
     * defers it to after the op, and the next op's wait defers it again, so the CCQ stays disarmed); here the
     * scheduler runs until idle after each op, so the CCQ's CEQE is dispatched and the CCQ re-armed every time.
     */
    @Benchmark
    public boolean nopThenInterrupt() {
        driver.cqp().nop();
        return pair.runUntilIdle(1_000_000_000L);
    }

    @Benchmark
    public void qhashAddDelete() {
        driver.cqp().manageQhash(true, true, local, 4791, remote, 40000, true, -1, CmPair.MAC_A, 1);
        driver.cqp().manageQhash(false, true, local, 4791, remote, 40000, true, -1, CmPair.MAC_A, 1);
    }
}
