package dev.irdmaemu.bench;

import dev.irdmaemu.fw.iwarp.MpaFrame;
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
 * Building and parsing the largest MPA v2 request irdma accepts: PD_Length 512, of which the RTR message takes 4
 * (irdma_build_mpa_v2 counts the RTR inside PD_Length, and irdma_parse_mpa refuses PD_Length above
 * IETF_MAX_PRIV_DATA_LEN), so 508 bytes of ULP private data.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class MpaBuildBench {
    private static final int ULP_PRIVATE_DATA = MpaFrame.MAX_PRIVATE_DATA - MpaFrame.RTR_SIZE;

    private BytesStore<?, Void> privateData;
    private BytesStore<?, Void> out;
    private final MpaFrame.Builder builder = new MpaFrame.Builder();
    private final MpaFrame parser = new MpaFrame();

    @Setup(Level.Trial)
    public void setUp() {
        privateData = BytesStore.nativeStoreWithFixedCapacity(MpaFrame.MAX_PRIVATE_DATA);
        for (int i = 0; i < MpaFrame.MAX_PRIVATE_DATA; i++) {
            privateData.writeByte(i, (byte) i);
        }
        out = BytesStore.nativeStoreWithFixedCapacity(MpaFrame.MAX_CM_BUF);
        buildMpaV2RequestMaxPrivateData();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        privateData.releaseLast();
        out.releaseLast();
    }

    @Benchmark
    public int buildMpaV2RequestMaxPrivateData() {
        return builder.reset().request().revision(MpaFrame.REVISION_2).flags(MpaFrame.FLAG_CRC)
                .rtr(128, 128, true, false, true, false)
                .privateData(privateData, 0, ULP_PRIVATE_DATA)
                .build(out, 0, MpaFrame.MAX_CM_BUF);
    }

    @Benchmark
    public Object parseAndValidateMpaV2RequestMaxPrivateData() {
        return parser.wrap(out, 0, MpaFrame.HEADER_SIZE + MpaFrame.MAX_PRIVATE_DATA).validate();
    }
}
