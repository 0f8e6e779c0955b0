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
 * The CM's receive path per segment in steady state (irdma_receive_ilq down to the state handler): the server's
 * pure ACK of an MPA request, fed again and again to the client node waiting in MPAREQ_SENT. The frame is the
 * real one from the wire (captured in set-up), so it passes every check. Issue target: 0 B allocated per segment.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CmReceiveBench {
    private CmPair pair;
    private CmNode client;
    private final BytesStore<?, Void> frame = BytesStore.nativeStoreWithFixedCapacity(2048);
    private int length;

    @Setup(Level.Trial)
    public void setUp() {
        TcpPacket view = new TcpPacket();
        EthernetFrame eth = new EthernetFrame();
        pair = new CmPair(CmPair.Config.perfect().withTap((time, store, offset, len) -> {
            // keep the latest pure ACK that B sends to A
            if (!eth.wrap(store, offset, len).validate().accepted() || eth.source() != CmPair.MAC_B) {
                return;
            }
            if (view.wrap(store, offset, len).validate().accepted() && view.tcp().flags() == 0x10
                    && view.tcpPayloadLength() == 0) {
                frame.write(0, store, offset, len);
                length = len;
            }
        }));
        pair.deviceA.quiet();
        pair.deviceB.quiet();
        pair.b.listen(CmPair.B_V4.withPort(4791), 4, e -> { }); // never accepts: A stays in MPAREQ_SENT
        client = pair.a.connect(CmPair.A_V4.withPort(1000), CmPair.B_V4.withPort(4791),
                ConnectParams.of(new byte[8], 4, 4), e -> {
                    if (e.type() == CmEventType.CONNECT_REPLY) {
                        throw new IllegalStateException("the server was not meant to answer");
                    }
                });
        pair.runFor(1_000_000);
        if (client.state() != CmState.MPAREQ_SENT || length == 0) {
            throw new IllegalStateException("set-up did not reach MPAREQ_SENT with a captured ACK: "
                    + client.state() + ", " + length);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (client.state() != CmState.MPAREQ_SENT) {
            throw new IllegalStateException("the node moved: " + client.state());
        }
        frame.releaseLast();
    }

    @Benchmark
    public void receiveDuplicateAck() {
        pair.a.receive(frame, 0, length);
    }
}
