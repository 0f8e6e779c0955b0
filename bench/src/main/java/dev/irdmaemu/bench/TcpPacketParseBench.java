package dev.irdmaemu.bench;

import dev.irdmaemu.fw.Check;
import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
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
 * The receive path's first step: parse and validate Ethernet + IPv4 + TCP of a 64-byte SYN (MSS, window scale,
 * SACK-permitted options), both checksums verified. Issue target: under 100 ns and 0 B/op.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TcpPacketParseBench {
    private BytesStore<?, Void> frame;
    private int length;
    private final TcpPacket packet = new TcpPacket();
    private final TcpPacketBuilder builder = new TcpPacketBuilder();

    @Setup(Level.Trial)
    public void setUp() {
        frame = BytesStore.nativeStoreWithFixedCapacity(128);
        builder.reset()
                .ethernet(0x02_00_00_00_00_02L, 0x02_00_00_00_00_01L)
                .ipv4(IpAddress.ipv4(192, 0, 2, 1), IpAddress.ipv4(192, 0, 2, 2))
                .ttl(64);
        builder.tcp().reset().ports(49152, 4791).sequenceNumber(0x1234_5678L).flags(TcpHeader.SYN)
                .window(64240).mss(1460).windowScale(7).sackPermitted(true);
        length = builder.build(frame, 0);
        Check c = packet.wrap(frame, 0, length).validate();
        if (!c.accepted()) {
            throw new IllegalStateException("benchmark frame does not validate: " + c.describe());
        }
        if (length < 60 || length > 66) {
            throw new IllegalStateException("expected a SYN of about 64 bytes, built " + length);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        frame.releaseLast();
    }

    @Benchmark
    public Check parseAndValidateSyn() {
        return packet.wrap(frame, 0, length).validate();
    }

    @Benchmark
    public int buildSyn() {
        return builder.build(frame, 0);
    }
}
