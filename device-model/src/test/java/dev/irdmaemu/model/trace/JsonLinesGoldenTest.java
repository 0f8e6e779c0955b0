package dev.irdmaemu.model.trace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.irdmaemu.fw.sim.SimScheduler;
import java.io.BufferedWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The allocation-free {@link JsonLinesTraceSink} writes, byte for byte, what its first version wrote (kept below as
 * {@link Oracle}, its code unchanged but for the name): {@code irdma-emu trace}, {@code decode}, tests and users parse
 * this text. Every kind, every field type, escapes, hex numbers and bytes, booleans, negatives, lines longer than the
 * sink's first buffer; through a {@link Writer} (the runs' BufferedWriter, compared as UTF-8 bytes) and through a
 * plain {@link Appendable}.
 */
class JsonLinesGoldenTest {
    private final SimScheduler clock = new SimScheduler(1);
    private final BytesStore<?, Void> nativeFrame = BytesStore.nativeStoreWithFixedCapacity(300);
    private final byte[] heap = new byte[300];
    private final BytesStore<?, byte[]> heapFrame = BytesStore.wrap(heap);

    JsonLinesGoldenTest() {
        for (int i = 0; i < 300; i++) {
            nativeFrame.writeByte(i, (byte) (i * 37 + 11));
            heap[i] = (byte) (255 - i);
        }
    }

    @AfterEach
    void release() {
        nativeFrame.releaseLast();
    }

    /** Hand-written lines, so a change to the oracle cannot hide a change of format. */
    @Test
    void goldenLines() {
        clock.runFor(987_654_321L);
        assertEquals("{\"t\":987654321,\"ev\":\"frame_rx\",\"len\":1514,\"queued\":0,\"hdr\":\"0b30557a\"}\n",
                line(e -> e.start(TraceKind.FRAME_RX).num("len", 1514).num("queued", 0)
                        .bytes("hdr", nativeFrame, 0, 4).emit()));
        assertEquals("{\"t\":987654321,\"ev\":\"cqe\",\"action\":\"sq_completion\",\"qp\":-3,\"op\":\"0x0\","
                        + "\"minor\":\"0xffffffffffffffff\",\"big\":-9223372036854775808,\"last\":false,\"ok\":true,"
                        + "\"n\":\"null\",\"empty\":\"\",\"why\":\"a \\\"q\\\" \\\\ \\u0001\\u001f\\u000a\u00e9\"}\n",
                line(e -> e.start(TraceKind.CQE).text("action", "sq_completion").num("qp", -3).hex("op", 0)
                        .hex("minor", -1).num("big", Long.MIN_VALUE).flag("last", false).text("ok", "true")
                        .text("n", null).bytes("empty", nativeFrame, 400, 4)
                        .text("why", "a \"q\" \\ \u0001\u001f\n\u00e9").emit()));
    }

    /** A tag (two nodes or functions in one file) comes first, as the callers' prefixing Appendables put it. */
    @Test
    void taggedLinesStartWithTheTag() {
        clock.runFor(5);
        Consumer<Trace> ev = t -> t.start(TraceKind.CQE).num("qp", 3).hex("op", 0x1f).emit();
        StringBuilder out = new StringBuilder();
        ev.accept(new Trace(clock).enableAll(new JsonLinesTraceSink(out, "\"node\":\"A\"")));
        ev.accept(new Trace(clock).enableAll(new JsonLinesTraceSink(out, "\"pf\":1")));
        ev.accept(new Trace(clock).enableAll(new JsonLinesTraceSink(out, "")));
        assertEquals("{\"node\":\"A\",\"t\":5,\"ev\":\"cqe\",\"qp\":3,\"op\":\"0x1f\"}\n"
                + "{\"pf\":1,\"t\":5,\"ev\":\"cqe\",\"qp\":3,\"op\":\"0x1f\"}\n"
                + "{\"t\":5,\"ev\":\"cqe\",\"qp\":3,\"op\":\"0x1f\"}\n", out.toString());
    }

    @Test
    void everyKindAndFieldTypeMatchesTheFirstVersion() throws IOException {
        List<Consumer<Trace>> events = new ArrayList<>();
        long[] numbers = {0, 1, 9, 10, 99, 100, 12345, 999_999_999_999L, 1_000_000_000_000_000_000L,
            Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, -10, -4096, 0xffff_ffffL, 0x8000_0000L,
            0x7f00_1234_5678L, 1L << 60, 15, 16, 255, 256};
        String[] texts = {"", "CREATE_QP", "true", "false", "True", "a \"quoted\" reason", "back\\slash", "tab\there",
            "nl\nnul\u0000", "\u001f\u0020\u007f", "caf\u00e9 \u20ac", "\ud83d\ude00 pair", "\ud800 lone", "x".repeat(700),
            "\"".repeat(300), "\u0002".repeat(120)};
        for (TraceKind k : TraceKind.values()) {
            events.add(t -> t.start(k).emit());
            events.add(t -> t.start(k).text("op", k.name()).num("n", k.ordinal()).hex("bit", k.bit()).emit());
        }
        for (long n : numbers) {
            events.add(t -> t.start(TraceKind.REG_WRITE).num("dec", n).hex("hex", n).num("neg", -n).emit());
        }
        for (String s : texts) {
            events.add(t -> t.start(TraceKind.CQP_ERROR).text("why", s).text(s, "name escaped").emit());
        }
        for (int len = 0; len <= TraceEvent.MAX_BYTES + 3; len++) {
            int n = len;
            events.add(t -> t.start(TraceKind.FRAME_TX).num("len", n).bytes("hdr", nativeFrame, 3, n)
                    .bytes("heap", heapFrame, 1, n).emit());
        }
        events.add(t -> t.start(TraceKind.FRAME_RX).bytes("end", nativeFrame, 290, 64).bytes("h", heapFrame, 293, 9)
                .bytes("out", heapFrame, 300, 1).bytes("neg", heapFrame, 0, -5).bytes("none", null, 0, 8).emit());
        events.add(t -> {
            TraceEvent e = t.start(TraceKind.HMC);
            for (int i = 0; i < TraceEvent.MAX_FIELDS + 4; i++) {
                e.bytes("b" + i, nativeFrame, i, 128);
            }
            e.emit();
        });
        Random r = new Random(17);
        for (int i = 0; i < 2000; i++) {
            long seed = r.nextLong();
            events.add(t -> randomEvent(t, new Random(seed), numbers, texts));
        }
        for (Consumer<Trace> ev : events) {
            clock.runFor(1 + (clock.now() & 0xfff));
            assertEquals(oracleLine(ev), line(ev));
        }
        // the runs' writer: one file's UTF-8 bytes
        assertArrayEquals(utf8(events, w -> new Oracle(w)), utf8(events, JsonLinesTraceSink::new));
    }

    private void randomEvent(Trace t, Random r, long[] numbers, String[] texts) {
        TraceKind[] kinds = TraceKind.values();
        TraceEvent e = t.start(kinds[r.nextInt(kinds.length)]);
        int fields = r.nextInt(TraceEvent.MAX_FIELDS + 2);
        for (int i = 0; i < fields; i++) {
            long n = r.nextBoolean() ? numbers[r.nextInt(numbers.length)] : r.nextLong() >> r.nextInt(64);
            switch (r.nextInt(6)) {
                case 0 -> e.num("n" + i, n);
                case 1 -> e.hex("h" + i, n);
                case 2 -> e.text("t" + i, texts[r.nextInt(texts.length)]);
                case 3 -> e.flag("f" + i, r.nextBoolean());
                case 4 -> e.bytes("b" + i, nativeFrame, r.nextInt(310), r.nextInt(200) - 10);
                default -> e.bytes("b" + i, heapFrame, r.nextInt(310), r.nextInt(200) - 10);
            }
        }
        e.emit();
    }

    private String line(Consumer<Trace> ev) {
        StringBuilder viaAppendable = new StringBuilder();
        ev.accept(new Trace(clock).enableAll(new JsonLinesTraceSink(viaAppendable)));
        StringWriter viaWriter = new StringWriter();
        ev.accept(new Trace(clock).enableAll(new JsonLinesTraceSink(viaWriter)));
        assertEquals(viaAppendable.toString(), viaWriter.toString());
        return viaWriter.toString();
    }

    private String oracleLine(Consumer<Trace> ev) {
        StringBuilder out = new StringBuilder();
        ev.accept(new Trace(clock).enableAll(new Oracle(out)));
        return out.toString();
    }

    private byte[] utf8(List<Consumer<Trace>> events, java.util.function.Function<Appendable, TraceSink> sink)
            throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (Writer w = new BufferedWriter(new OutputStreamWriter(bytes, StandardCharsets.UTF_8), 1 << 16)) {
            Trace t = new Trace(clock).enableAll(sink.apply(w));
            for (Consumer<Trace> ev : events) {
                ev.accept(t);
            }
        }
        return bytes.toByteArray();
    }

    /** The sink as first written (one StringBuilder, String.format for control characters): the reference. */
    private static final class Oracle implements TraceSink {
        private final Appendable out;
        private final StringBuilder line = new StringBuilder(256);

        Oracle(Appendable out) {
            this.out = out;
        }

        @Override
        public void accept(TraceEvent e) {
            line.setLength(0);
            line.append("{\"t\":").append(e.timeNanos()).append(",\"ev\":\"").append(e.kind().wireName())
                    .append('"');
            for (int i = 0; i < e.fieldCount(); i++) {
                line.append(",\"");
                escape(e.name(i));
                line.append("\":");
                if (e.isBytes(i)) {
                    line.append('"');
                    e.appendHex(i, line);
                    line.append('"');
                } else if (e.textAt(i) != null) {
                    String t = e.textAt(i);
                    if (t.equals("true") || t.equals("false")) {
                        line.append(t);
                    } else {
                        line.append('"');
                        escape(t);
                        line.append('"');
                    }
                } else if (e.isHex(i)) {
                    line.append("\"0x").append(Long.toHexString(e.numberAt(i))).append('"');
                } else {
                    line.append(e.numberAt(i));
                }
            }
            line.append("}\n");
            try {
                out.append(line);
            } catch (IOException ex) {
                throw new java.io.UncheckedIOException(ex);
            }
        }

        private void escape(String s) {
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == '"' || c == '\\') {
                    line.append('\\').append(c);
                } else if (c < 0x20) {
                    line.append(String.format("\\u%04x", (int) c));
                } else {
                    line.append(c);
                }
            }
        }
    }
}
