package dev.irdmaemu.bench;

import dev.irdmaemu.fw.frame.InternetChecksum;
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
 * The Internet checksum (RFC 1071) over an IPv4 header (20 bytes), an ACK's TCP segment (32 bytes: the header with
 * timestamps) and a full-size TCP segment (1480 bytes: MSS 1460 and the 20-byte header), in native memory as the
 * offloaded TCP and the port sum them, and in a heap array. Nanoseconds per sum.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class InternetChecksumBench {
    @Param({"20", "32", "1480"})
    int size;

    private BytesStore<?, Void> nativeStore;
    private BytesStore<?, byte[]> heapStore;

    @Setup(Level.Trial)
    public void setUp() {
        nativeStore = BytesStore.nativeStoreWithFixedCapacity(size + 64);
        byte[] array = new byte[size + 64];
        heapStore = BytesStore.wrap(array);
        for (int i = 0; i < size + 64; i++) {
            nativeStore.writeByte(i, (byte) (i * 131 + 7));
            array[i] = (byte) (i * 131 + 7);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        nativeStore.releaseLast();
    }

    @Benchmark
    public int sumNative() {
        return InternetChecksum.sum(nativeStore, 34, size);
    }

    @Benchmark
    public int sumHeap() {
        return InternetChecksum.sum(heapStore, 34, size);
    }
}
