package dev.irdmaemu.bridge.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.decode.FrameSummarizer;
import dev.irdmaemu.bridge.decode.RoceCapture;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.trace.JsonLinesTraceSink;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * RoCEv2 frames in the trace read as {@code irdma-emu decode} prints them (as {@link FrameEventTest} shows for
 * iWARP): whole frames give decode's line; a frame longer than the bytes the trace keeps gives the same headers,
 * its ICRC (and UDP checksum, which covers the same bytes) "not traced" rather than wrong, and the cut marked.
 */
class RoceFrameEventTest {
    @Test
    void roceFramesReadAsDecodePrintsThem() throws Exception {
        SimScheduler s = new SimScheduler(1);
        StringBuilder json = new StringBuilder();
        Trace t = new Trace(s).enableAll(new JsonLinesTraceSink(json));
        FrameSummarizer decode = new FrameSummarizer();
        List<String> expected = new ArrayList<>();
        List<Integer> lengths = new ArrayList<>();
        for (byte[] f : RoceCapture.frames()) {
            BytesStore<?, byte[]> store = BytesStore.wrap(f);
            StringBuilder line = new StringBuilder();
            decode.summarize(store, 0, f.length, line);
            expected.add(line.toString());
            lengths.add(f.length);
            s.runFor(1_000);
            t.start(TraceKind.FRAME_RX).num("len", f.length).bytes("hdr", store, 0, f.length).emit();
        }
        List<String> lines = new ArrayList<>();
        new TraceTimeline(new TraceQuery().kinds("frame"), null, 0, null).run(new StringReader(json.toString()),
                l -> lines.add(l.toString()));
        assertEquals(expected.size(), lines.size());
        int whole = 0;
        int cut = 0;
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            assertTrue(expected.get(i).contains(" RRoCE "), expected.get(i));
            if (lengths.get(i) <= TraceEvent.MAX_BYTES) {
                assertTrue(l.endsWith("| " + expected.get(i)), l + "\n  decode: " + expected.get(i));
                whole++;
            } else {
                assertTrue(l.endsWith("| " + expected.get(i).replace("ICRC ok", "ICRC not traced") + " [captured "
                        + TraceEvent.MAX_BYTES + " of " + lengths.get(i) + "]"), l + "\n  decode: " + expected.get(i));
                cut++;
            }
        }
        assertTrue(whole >= 10, "ACKs, read requests, short sends are whole: " + whole);
        assertTrue(cut >= 1, "an MTU-sized packet is longer than the traced bytes: " + cut);
    }
}
