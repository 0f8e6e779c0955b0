package dev.irdmaemu.bridge.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code irdma-emu compare}'s figure table: what {@code --only} selects, and the median each figure reports. */
class CompareFiguresTest {
    @Test
    void onlyPingSelectsBothRoundTripsAndTheirScenarioAlone() {
        var m = CompareCommand.selected(List.of("ping"));
        assertEquals(List.of("ping4 RTT ms", "ping6 RTT ms", "ping4 warm RTT ms", "ping4 user-net RTT ms"),
                List.copyOf(m.keySet()), "ping, not rping");
        assertEquals("usernet_ping4_rtt_avg_ms", m.get("ping4 user-net RTT ms")[1]);
        assertEquals("ping", m.get("ping4 RTT ms")[0]);
        assertEquals("ping6_rtt_avg_ms", m.get("ping6 RTT ms")[1]);
        assertEquals(List.of("rping MB/s"), List.copyOf(CompareCommand.selected(List.of("RPING")).keySet()));
        assertEquals(8, CompareCommand.selected(null).size(), "every figure by default");
        assertEquals(0, CompareCommand.selected(List.of("nothing")).size());
        assertEquals(5, CompareCommand.selected(List.of("ping", "boot")).size());
    }

    @Test
    void theMedianOfRunsIsTheMiddleValueOrTheMeanOfTheMiddleTwo() {
        assertEquals(0.9, CompareCommand.median(List.of(3.1, 0.9, 0.7)));
        assertEquals(2.0, CompareCommand.median(List.of(4.0, 1.0, 3.0, 0.5)));
        assertNull(CompareCommand.median(List.of()));
    }
}
