package dev.irdmaemu.bench;

import dev.irdmaemu.cm.CmNode;
import dev.irdmaemu.cm.CmState;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.bytes.BytesStore;
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
 * A frame into the model's Ethernet port all the way to the CM: classification (quad hash), PUDA placement into an
 * ILQ buffer, the CQE and CEQE, the MSI-X, the driver's CQ poll, the frame rebuilt and handed to the CM, the
 * buffer reposted and the CQ re-armed. The frame is the server's pure ACK of the MPA request, fed to the client
 * waiting in MPAREQ_SENT (as CmReceiveBench does for the CM alone).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class IlqReceiveBench {
    private ModelBenchPair pair;
    private CmNode client;
    private final BytesStore<?, Void> frame = BytesStore.nativeStoreWithFixedCapacity(2048);
    private int length;
    private long before;
    private long invocations;

    /**
     * A fresh pair per iteration: each invocation advances simulated time by 20 us, so over a long iteration the
     * client's MPA retransmission timer (irdma's 32 tries, about 6 simulated minutes) would otherwise expire and
     * end the connection the frames are aimed at.
     */
    @Setup(Level.Iteration)
    public void setUp() {
        UnansweredMpaRequest request = new UnansweredMpaRequest(frame);
        pair = new ModelBenchPair(request);
        client = UnansweredMpaRequest.connect(pair.a.cm, pair.b.cm);
        pair.scheduler.runFor(1_000_000);
        length = request.ackLength(client);
        before = pair.a.port.framesToCm();
        invocations = 0;
    }

    @TearDown(Level.Iteration)
    public void tearDown() {
        if (client.state() != CmState.MPAREQ_SENT) {
            throw new IllegalStateException("the node moved: " + client.state());
        }
        // each frame must have reached the CM inside its own simulated window
        if (pair.a.port.framesToCm() - before != invocations) {
            throw new IllegalStateException((pair.a.port.framesToCm() - before) + " frames reached the CM of "
                    + invocations + " sent");
        }
        pair.close();
    }

    @TearDown(Level.Trial)
    public void release() {
        frame.releaseLast();
    }

    @Benchmark
    public void frameThroughIlqToCm() {
        pair.a.device.port().receive(frame, 0, length);
        invocations++;
        // the model's receive latency, the IRQ and the driver's handler: a few simulated microseconds
        pair.scheduler.runFor(10_000);
    }
}
