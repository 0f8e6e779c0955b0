package dev.irdmaemu.bridge.vhost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringWriter;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The hand-off stamps: off unless asked for, a ring keeping the latest, written oldest first from the first kept. */
class HandOffTraceTest {
    @AfterEach
    void clear() {
        System.clearProperty(HandOffTrace.PROPERTY);
    }

    @Test
    void offByDefaultRecordsNothing() throws Exception {
        HandOffTrace t = HandOffTrace.fromSystemProperty();
        assertFalse(t.enabled());
        t.record(HandOffTrace.TX_KICK);
        assertEquals(0, t.recorded());
        StringWriter w = new StringWriter();
        t.writeTo(w);
        assertEquals("", w.toString());
        System.setProperty(HandOffTrace.PROPERTY, "not a number");
        assertFalse(HandOffTrace.fromSystemProperty().enabled());
        System.setProperty(HandOffTrace.PROPERTY, "-5");
        assertFalse(HandOffTrace.fromSystemProperty().enabled());
        assertThrows(IllegalArgumentException.class, () -> new HandOffTrace(-1));
    }

    @Test
    void theRingKeepsTheLatestStampsInOrder() throws Exception {
        System.setProperty(HandOffTrace.PROPERTY, "4");
        HandOffTrace t = HandOffTrace.fromSystemProperty();
        assertTrue(t.enabled());
        int[] points = {HandOffTrace.TX_KICK, HandOffTrace.POLL, HandOffTrace.FROM_GUEST, HandOffTrace.TO_GUEST,
            HandOffTrace.RX_CALL, HandOffTrace.ROUND_END};
        for (int p : points) {
            t.record(p);
        }
        assertEquals(6, t.recorded());
        StringWriter w = new StringWriter();
        t.writeTo(w);
        List<String> lines = Arrays.asList(w.toString().split("\n"));
        assertTrue(lines.get(0).startsWith("#"), "a header line");
        assertEquals(5, lines.size(), "the last 4 of 6 kept");
        assertEquals(List.of("from_guest", "to_guest", "rx_call", "round_end"),
                lines.subList(1, 5).stream().map(l -> l.split("\t")[1]).toList());
        assertEquals("0", lines.get(1).split("\t")[0], "times from the first kept");
        long last = -1;
        for (String l : lines.subList(1, 5)) {
            long ns = Long.parseLong(l.split("\t")[0]);
            assertTrue(ns >= last, "wall time does not run back: " + lines);
            last = ns;
        }
        assertEquals("?99", HandOffTrace.name(99));
    }
}
