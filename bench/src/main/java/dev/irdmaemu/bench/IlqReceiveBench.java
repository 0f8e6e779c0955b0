package dev.irdmaemu.bench;

import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmNode;
import dev.irdmaemu.cm.CmState;
import dev.irdmaemu.cm.ConnectParams;
import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.TcpPacket;
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
        TcpPacket view = new TcpPacket();
        EthernetFrame eth = new EthernetFrame();
        pair = new ModelBenchPair((time, store, offset, len) -> {
            if (!eth.wrap(store, offset, len).validate().accepted() || eth.source() != CmPair.MAC_B) {
                return;
            }
            if (view.wrap(store, offset, len).validate().accepted() && view.tcp().flags() == 0x10
                    && view.tcpPayloadLength() == 0) {
                frame.write(0, store, offset, len);
                length = len;
            }
        });
        pair.b.cm.listen(CmPair.B_V4.withPort(4791), 4, e -> { }); // never accepts: A stays in MPAREQ_SENT
        client = pair.a.cm.connect(CmPair.A_V4.withPort(1000), CmPair.B_V4.withPort(4791),
                ConnectParams.of(new byte[8], 4, 4), e -> {
                    if (e.type() == CmEventType.CONNECT_REPLY) {
                        throw new IllegalStateException("the server was not meant to answer");
                    }
                });
        pair.scheduler.runFor(1_000_000);
        if (client.state() != CmState.MPAREQ_SENT || length == 0) {
            throw new IllegalStateException("set-up did not reach MPAREQ_SENT with a captured ACK: "
                    + client.state() + ", " + length);
        }
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
