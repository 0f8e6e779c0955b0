package dev.irdmaemu.bridge.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** The guest's result line (written by the kit's guest/init), as QemuProcess reads it off the console. */
class GuestResultTest {
    private static final Duration T = Duration.ofMillis(1234);

    @Test
    void aPassingLineGivesItsScenarioStatusAndFieldsInOrder() {
        GuestResult r = GuestResult.parse("IRDMA-EMU-RESULT scenario=smoke status=ok kernel=6.1.0-57-amd64 siw=siw0 rping=ok", T)
                .orElseThrow();
        assertEquals("smoke", r.scenario());
        assertTrue(r.ok());
        assertEquals(Map.of("kernel", "6.1.0-57-amd64", "siw", "siw0", "rping", "ok"), r.fields());
        assertEquals(java.util.List.of("kernel", "siw", "rping"), java.util.List.copyOf(r.fields().keySet()));
        assertEquals("", r.field("absent"));
        assertEquals(T, r.afterStart());
        assertEquals("IRDMA-EMU-RESULT scenario=smoke status=ok kernel=6.1.0-57-amd64 siw=siw0 rping=ok", r.toString());
    }

    @Test
    void aFailingLineNamesItsStep() {
        GuestResult r = GuestResult.parse("IRDMA-EMU-RESULT scenario=smoke status=fail step=siw-link reason=x", T).orElseThrow();
        assertFalse(r.ok());
        assertEquals("siw-link", r.field("step"));
    }

    @Test
    void terminalNoiseOrAKernelMessageBeforeTheMarkerIsSkipped() {
        assertTrue(GuestResult.parse("[    3.2] x IRDMA-EMU-RESULT scenario=a status=ok", T).isPresent());
    }

    @Test
    void aValueMayHoldAnEqualsSign() {
        assertEquals("b=c", GuestResult.parse("IRDMA-EMU-RESULT scenario=a status=ok a=b=c", T).orElseThrow().field("a"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "",
        "irdma-emu-guest: step modules",
        "IRDMA-EMU-RESULT",
        "IRDMA-EMU-RESULT ",
        "IRDMA-EMU-RESULTscenario=a status=ok",
        "IRDMA-EMU-RESULT status=ok",
        "IRDMA-EMU-RESULT scenario=a",
        "IRDMA-EMU-RESULT scenario= status=ok",
        "IRDMA-EMU-RESULT scenario=a status=maybe",
        "IRDMA-EMU-RESULT scenario=a status=ok lonely",
        "IRDMA-EMU-RESULT scenario=a status=ok =v",
        "IRDMA-EMU-RESULT scenario=a status=ok k=1 k=2",
        "IRDMA-EMU-RESULT scenario=a scenario=b status=ok",
    })
    void aMalformedLineIsNoResult(String line) {
        assertTrue(GuestResult.parse(line, T).isEmpty(), line);
    }

    @Test
    void anOverlongLineOrOneWithTooManyFieldsIsNoResult() {
        assertTrue(GuestResult.parse("IRDMA-EMU-RESULT scenario=a status=ok x=" + "y".repeat(5000), T).isEmpty());
        StringBuilder many = new StringBuilder("IRDMA-EMU-RESULT scenario=a status=ok");
        for (int i = 0; i < 70; i++) {
            many.append(" k").append(i).append("=v");
        }
        assertTrue(GuestResult.parse(many.toString(), T).isEmpty());
    }

    @Property
    void anyConsoleLineParsesOrNotButNeverThrows(@ForAll String line) {
        GuestResult.parse(line, T);
        GuestResult.parse(GuestResult.MARKER + " " + line, T);
    }
}
