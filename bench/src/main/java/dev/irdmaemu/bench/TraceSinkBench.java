package dev.irdmaemu.bench;

import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.trace.JsonLinesTraceSink;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceKind;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.bytes.BytesStore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The run trace on the data path (issue 17 follow-up): the events a guest's rping emits per frame, per completion,
 * per doorbell and per placement, through the real {@link JsonLinesTraceSink} into the writer {@code BootRun} opens
 * (a 64 KiB {@link BufferedWriter} over {@code Files.newBufferedWriter}, UTF-8) on a file, or the same writer over a
 * null stream. ns/op is ns per event; run with {@code -prof gc} for B/op (target: 0).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 4, time = 1)
@Fork(1)
public class TraceSinkBench {
    @Param({"file", "null"})
    String out;

    private final SimScheduler clock = new SimScheduler(1);
    private Trace trace;
    private Writer writer;
    private Path file;
    private BytesStore<?, Void> frame;
    private int n;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        if (out.equals("file")) {
            file = Files.createTempFile("trace-bench-", ".jsonl");
            writer = new BufferedWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8), 1 << 16);
        } else {
            writer = new BufferedWriter(new OutputStreamWriter(OutputStream.nullOutputStream(),
                    StandardCharsets.UTF_8), 1 << 16);
        }
        trace = new Trace(clock).enableAll(new JsonLinesTraceSink(writer));
        frame = BytesStore.nativeStoreWithFixedCapacity(1514);
        for (int i = 0; i < 1514; i++) {
            frame.writeByte(i, (byte) (i * 131 + 7));
        }
        clock.runFor(1_234_567_890L);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        writer.close();
        frame.releaseLast();
        if (file != null) {
            Files.deleteIfExists(file);
        }
    }

    /** EthernetPort.receive: a 1514-byte frame, its first 128 bytes as hex. */
    @Benchmark
    public void frameRx() {
        trace.start(TraceKind.FRAME_RX).num("len", 1514).num("queued", n++ & 7).bytes("hdr", frame, 0, 1514).emit();
    }

    /** CompletionWriter.traceCqe. */
    @Benchmark
    public void cqe() {
        trace.start(TraceKind.CQE).text("action", "sq_completion").num("qp", 3).num("cq", 2).num("wqe", n++ & 255)
                .hex("op", 0x1).num("bytes", 65535).hex("major", 0).hex("minor", 0).emit();
    }

    /** RegisterFile.write of the doorbell (WQE allocate) register. */
    @Benchmark
    public void doorbell() {
        trace.start(TraceKind.REG_WRITE).text("reg", "WQEALLOC").num("idx", 0).hex("off", 0x4_0000L)
                .hex("val", 0x8000_0003L + n++).text("handler", "wqeAlloc").emit();
    }

    /** ReceivePath.traceRx of a tagged FPDU. */
    @Benchmark
    public void fpduRx() {
        int i = n++;
        trace.start(TraceKind.FPDU_RX).num("qp", 3).hex("seq", 0x1234_5678L + i).num("fpdu_len", 1448)
                .text("op", "RDMA_WRITE").flag("last", (i & 1) == 0).num("payload", 1424).hex("stag", 0x1_2300L)
                .hex("to", 0x7f00_1234_0000L + i).emit();
    }
}
