package dev.irdmaemu.bench;

import dev.irdmaemu.fw.iwarp.Crc32c;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.bytes.BytesStore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * CRC32c over an FPDU-sized range of native memory (issue target: 2 GB/s or better for 4 KiB).
 * Throughput in bytes/s = size / (ns per op).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class Crc32cBench {
    @Param({"4096"})
    int size;

    private BytesStore<?, Void> store;
    private final Crc32c crc = new Crc32c();

    @Setup(Level.Trial)
    public void setUp() {
        store = BytesStore.nativeStoreWithFixedCapacity(size + 64);
        for (int i = 0; i < size + 64; i++) {
            store.writeByte(i, (byte) (i * 131 + 7));
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        store.releaseLast();
    }

    @Benchmark
    public int crc32cNative4KiB() {
        return crc.compute(store, 16, size);
    }
}
