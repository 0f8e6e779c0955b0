package dev.irdmaemu.bridge.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.decode.FrameSummarizer;
import dev.irdmaemu.bridge.decode.SampleTrace;
import dev.irdmaemu.fw.pcap.PcapReader;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.trace.JsonLinesTraceSink;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import java.io.ByteArrayInputStream;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Frames in the trace read as {@code irdma-emu decode} prints them: the sample capture's frames (a TCP handshake,
 * the MPA exchange, FPDUs), traced as the port traces them (the length and the first
 * {@link TraceEvent#MAX_BYTES} bytes), give decode's line for every frame the trace keeps whole, and the same
 * headers, the CRC not traced and the cut marked, for the longer ones.
 */
class FrameEventTest {
    @Test
    void framesReadAsDecodePrintsThem() throws Exception {
        SimScheduler s = new SimScheduler(1);
        StringBuilder json = new StringBuilder();
        Trace t = new Trace(s).enableAll(new JsonLinesTraceSink(json));
        FrameSummarizer decode = new FrameSummarizer();
        List<String> expected = new ArrayList<>();
        List<Integer> lengths = new ArrayList<>();
        try (PcapReader pcap = new PcapReader(new ByteArrayInputStream(SampleTrace.pcapBytes()))) {
            while (pcap.next()) {
                int len = pcap.capturedLength();
                StringBuilder line = new StringBuilder();
                decode.summarize(pcap.frame(), 0, len, line);
                expected.add(line.toString());
                lengths.add(len);
                s.runFor(1_000);
                t.start(pcap.frameNumber() % 2 == 1 ? TraceKind.FRAME_TX : TraceKind.FRAME_RX).num("len", len)
                        .bytes("hdr", pcap.frame(), 0, len).emit();
            }
        }
        List<String> lines = new ArrayList<>();
        new TraceTimeline(new TraceQuery().kinds("frame"), null, 0, null).run(new StringReader(json.toString()),
                l -> lines.add(l.toString()));
        assertEquals(expected.size(), lines.size());
        int whole = 0;
        int cut = 0;
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            assertTrue(l.contains((i % 2 == 0 ? " tx " : " rx ") + lengths.get(i) + " | "), l);
            if (lengths.get(i) <= TraceEvent.MAX_BYTES) {
                assertTrue(l.endsWith("| " + expected.get(i)), l + "\n  decode: " + expected.get(i));
                whole++;
            } else {
                // the headers as decode shows them; the FPDU's CRC lies past the traced bytes
                assertTrue(l.endsWith("| " + expected.get(i).replace("CRC ok", "CRC not traced") + " [captured "
                        + TraceEvent.MAX_BYTES + " of " + lengths.get(i) + "]"), l + "\n  decode: " + expected.get(i));
                cut++;
            }
        }
        assertTrue(whole >= 3, "the handshake's frames are whole: " + whole);
        assertTrue(cut >= 1, "an FPDU longer than the traced bytes: " + cut);
    }
}
