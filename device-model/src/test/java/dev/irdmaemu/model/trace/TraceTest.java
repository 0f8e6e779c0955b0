package dev.irdmaemu.model.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.sim.SimScheduler;
import org.junit.jupiter.api.Test;

class TraceTest {
    @Test
    void offKindsBuildNothing() {
        RecordingTraceSink sink = new RecordingTraceSink();
        Trace t = new Trace(new SimScheduler(1)).enable(sink, TraceKind.CQP_OP);
        assertNull(t.start(TraceKind.REG_READ));
        t.start(TraceKind.CQP_OP).text("op", "NOP").emit();
        assertEquals(1, sink.events().size());
        t.off();
        assertNull(t.start(TraceKind.CQP_OP));
    }

    @Test
    void jsonLinesCarryTimeKindAndTypedFields() {
        SimScheduler s = new SimScheduler(1);
        s.runFor(1234);
        StringBuilder out = new StringBuilder();
        Trace t = new Trace(s).enableAll(new JsonLinesTraceSink(out));
        t.start(TraceKind.CQP_OP).text("op", "CREATE_QP").num("wqe", 3).hex("addr", 0x4000_1000L)
                .flag("ok", true).text("why", "a \"quoted\" reason").emit();
        assertEquals("{\"t\":1234,\"ev\":\"cqp_op\",\"op\":\"CREATE_QP\",\"wqe\":3,\"addr\":\"0x40001000\","
                + "\"ok\":true,\"why\":\"a \\\"quoted\\\" reason\"}\n", out.toString());
    }

    @Test
    void fieldsBeyondTheLimitAreDropped() {
        RecordingTraceSink sink = new RecordingTraceSink();
        Trace t = new Trace(new SimScheduler(1)).enableAll(sink);
        TraceEvent e = t.start(TraceKind.HMC);
        for (int i = 0; i < TraceEvent.MAX_FIELDS + 5; i++) {
            e.num("f" + i, i);
        }
        e.emit();
        assertEquals(TraceEvent.MAX_FIELDS, sink.events().get(0).fields().size());
    }

    @Test
    void latencySummaryCountsAndBuckets() {
        OpLatencyStats st = new OpLatencyStats(new String[] {"NOP", "CREATE_QP"});
        st.record(1, 1000, false);
        st.record(1, 3000, true);
        st.record(5, 1, false);
        assertEquals(2, st.count(1));
        assertEquals(1, st.errors(1));
        assertEquals(1000, st.min(1));
        assertEquals(3000, st.max(1));
        assertEquals(2000.0, st.mean(1));
        assertEquals(1, st.bucket(1, 9));
        assertEquals(1, st.bucket(1, 11));
        assertTrue(st.summary().contains("CREATE_QP"));
        assertTrue(!st.summary().contains("NOP "));
    }

    /** A bytes field (a frame's headers) is written as hexadecimal from the emitter's buffer, cut to MAX_BYTES. */
    @Test
    void bytesFieldsAreHexCutToTheLimitAndBoundsChecked() {
        StringBuilder out = new StringBuilder();
        RecordingTraceSink rec = new RecordingTraceSink();
        Trace t = new Trace(new SimScheduler(1)).enableAll(e -> {
            new JsonLinesTraceSink(out).accept(e);
            rec.accept(e);
        });
        byte[] frame = new byte[300];
        for (int i = 0; i < frame.length; i++) {
            frame[i] = (byte) i;
        }
        var store = net.openhft.chronicle.bytes.BytesStore.wrap(frame);
        t.start(TraceKind.FRAME_RX).num("len", 3).bytes("hdr", store, 1, 3).emit();
        assertEquals("{\"t\":0,\"ev\":\"frame_rx\",\"len\":3,\"hdr\":\"010203\"}\n", out.toString());
        assertEquals("010203", rec.events().get(0).get("hdr"));
        out.setLength(0);
        t.start(TraceKind.FRAME_TX).bytes("hdr", store, 0, 300).emit();
        assertEquals(TraceEvent.MAX_BYTES * 2, rec.events().get(1).get("hdr").length());
        // past the end of the store, negative lengths, before its start: an empty field, never an exception
        t.start(TraceKind.FRAME_TX).bytes("hdr", store, 299, 10).emit();
        assertEquals("2b", rec.events().get(2).get("hdr"));
        t.start(TraceKind.FRAME_TX).bytes("hdr", store, 400, 10).bytes("b", store, 0, -1).bytes("c", store, -8, 4)
                .emit();
        assertEquals("", rec.events().get(3).get("hdr"));
        assertEquals("", rec.events().get(3).get("b"));
        assertEquals("", rec.events().get(3).get("c"));
    }
}
