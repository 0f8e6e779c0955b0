package dev.irdmaemu.bench;

import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.fw.wire.LinkPort;
import dev.irdmaemu.model.tcp.OffloadedTcp;
import dev.irdmaemu.model.tcp.TcpConnectionParams;
import dev.irdmaemu.model.tcp.TcpEvent;
import dev.irdmaemu.model.tcp.TcpReceiver;
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
 * Throughput of a pair of offloaded TCP engines over a lossless simulated link: one operation moves 1 MiB from A
 * to B in 4 KiB FPDUs (segmentation, checksums, ACKs, delayed ACKs, the link's copy), so ops/s is MiB per wall
 * second. Everything runs on the benchmark thread on simulated time.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class OffloadedTcpBench {
    private static final int MIB = 1024 * 1024;
    private static final int FPDU = 4096;

    private SimScheduler scheduler;
    private OffloadedTcp a;
    private OffloadedTcp b;
    private BytesStore<?, Void> source;
    private long delivered;
    private long queued;
    private long target;

    @Setup(Level.Trial)
    public void setUp() {
        scheduler = new SimScheduler(1);
        Link link = new Link(scheduler);
        source = BytesStore.nativeStoreWithFixedCapacity(FPDU);
        for (int i = 0; i < FPDU; i++) {
            source.writeByte(i, (byte) (i * 31));
        }
        long macA = 0x02_00_00_00_00_0aL;
        long macB = 0x02_00_00_00_00_0bL;
        int ipA = IpAddress.ipv4(192, 0, 2, 1);
        int ipB = IpAddress.ipv4(192, 0, 2, 2);
        TcpConnectionParams pa = TcpConnectionParams.ipv4(macA, macB, ipA, 40000, ipB, 20000, 1000, 5000, 1460)
                .toBuilder().window(65535 << 3, 3, 3).build();
        TcpConnectionParams pb = TcpConnectionParams.ipv4(macB, macA, ipB, 20000, ipA, 40000, 5000, 1000, 1460)
                .toBuilder().window(65535 << 3, 3, 3).build();
        OffloadedTcp.Listener pump = new OffloadedTcp.Listener() {
            @Override
            public void event(OffloadedTcp connection, TcpEvent event) {
                throw new IllegalStateException("unexpected " + event);
            }

            @Override
            public void sendSpaceAvailable(OffloadedTcp connection) {
                fill();
            }
        };
        TcpReceiver sink = new TcpReceiver() {
            @Override
            public void deliver(BytesStore<?, ?> store, long offset, int length) {
                delivered += length;
            }

            @Override
            public long freeSpace() {
                return 256 * 1024;
            }
        };
        LinkPort[] ports = new LinkPort[2];
        a = new OffloadedTcp(scheduler, pa, (s, o, l) -> ports[0].transmit(s, o, l), sink, pump);
        b = new OffloadedTcp(scheduler, pb, (s, o, l) -> ports[1].transmit(s, o, l), sink, pump);
        ports[0] = link.attach(macA, FaultProfile.NONE, a::receive);
        ports[1] = link.attach(macB, FaultProfile.NONE, b::receive);
    }

    private void fill() {
        while (queued < target && a.send(source, 0, FPDU)) {
            queued += FPDU;
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        a.release();
        b.release();
        source.releaseLast();
    }

    @Benchmark
    public long transferOneMebibyte() {
        target += MIB;
        fill();
        while (delivered < target && scheduler.runNext()) {
            // run the simulation until B has the whole MiB
        }
        if (delivered < target) {
            throw new IllegalStateException("transfer stalled at " + delivered);
        }
        return delivered;
    }
}
