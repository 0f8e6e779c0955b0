package dev.irdmaemu.model.reg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.ArrayList;
import java.util.List;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class RegisterFileTest {
    private final RecordingTraceSink sink = new RecordingTraceSink();
    private final RegisterFile regs = new RegisterFile(new Trace(new SimScheduler(1)).enableAll(sink));

    @Test
    void plainStorageKeepsWhatIsWritten() {
        regs.define("PLAIN", 0x100);
        regs.write32(0x100, 0xdead_beef);
        assertEquals(0xdead_beef, regs.read32(0x100));
        assertEquals("PLAIN", sink.of(TraceKind.REG_WRITE).get(0).get("reg"));
        assertEquals("0xdeadbeef", sink.of(TraceKind.REG_READ).get(0).get("val"));
    }

    @Test
    void arraysDispatchEachElementToTheNamedHandler() {
        List<String> seen = new ArrayList<>();
        regs.define("ARR", 0x1000, 2048, 4, "arr_read", (e, s) -> e * 10, "arr_write",
                (e, v) -> seen.add(e + "=" + v));
        regs.write32(0x1000 + 4 * 2047, 7);
        regs.write32(0x1000, 3);
        assertEquals(List.of("2047=7", "0=3"), seen);
        assertEquals(20470, regs.read32(0x1000 + 4 * 2047));
        assertEquals("arr_write", sink.of(TraceKind.REG_WRITE).get(0).get("handler"));
        // Between elements and past the end: unknown.
        assertEquals(0, regs.read32(0x1002));
        assertEquals(0, regs.read32(0x1000 + 4 * 2048));
    }

    @Test
    void unknownOffsetsReadZeroIgnoreWritesAndAreTracedOnce() {
        regs.define("R", 0x10);
        for (int i = 0; i < 3; i++) {
            assertEquals(0, regs.read32(0x20));
            regs.write32(0x20, 5);
        }
        assertEquals(0, regs.read32(-4));
        assertEquals(0, regs.read32(Long.MAX_VALUE));
        assertEquals(1 + 2, sink.of(TraceKind.REG_UNKNOWN).size());
        assertEquals(5, regs.unknownReads());
        assertEquals(3, regs.unknownWrites());
        assertEquals(0, regs.read32(0x10));
    }

    @Test
    void writesToReadOnlyRegistersAreIgnoredTracedAndWarnedOncePerRegister() {
        Logger log = (Logger) LoggerFactory.getLogger(RegisterFile.class);
        ListAppender<ILoggingEvent> warnings = new ListAppender<>();
        warnings.start();
        log.addAppender(warnings);
        try {
            int ro = regs.defineReadOnly("STATUS", 0x200, 1, 0, null, null);
            int ro2 = regs.defineReadOnly("ERRCODES", 0x204, 1, 0, "err", (e, s) -> 0x42);
            regs.store(ro, 0, 0x80);
            for (int i = 0; i < 3; i++) {
                regs.write32(0x200, 0x1234 + i);
            }
            regs.write32(0x204, 9);
            assertEquals(0x80, regs.read32(0x200));
            assertEquals(0x42, regs.read32(0x204));
            assertEquals(3, regs.readOnlyWrites(ro));
            assertEquals(1, regs.readOnlyWrites(ro2));
            var events = sink.of(TraceKind.REG_READ_ONLY);
            assertEquals(2, events.size());
            assertEquals("STATUS", events.get(0).get("reg"));
            assertEquals("0x1234", events.get(0).get("val"));
            assertEquals("ERRCODES", events.get(1).get("reg"));
            List<ILoggingEvent> warned = warnings.list.stream().filter(e -> e.getLevel() == Level.WARN).toList();
            assertEquals(2, warned.size());
            assertTrue(warned.get(0).getFormattedMessage().contains("STATUS"));
            assertTrue(warned.get(1).getFormattedMessage().contains("ERRCODES"));
        } finally {
            log.detachAppender(warnings);
        }
    }

    @Test
    void aRegisterCannotBeDefinedTwice() {
        regs.define("A", 0x40);
        assertThrows(IllegalArgumentException.class, () -> regs.define("B", 0x40));
    }

    @Test
    void manyBlocksStillResolve() {
        for (int i = 0; i < 40; i++) {
            regs.define("B" + i, 0x10_0000L + i * 0x1000L, 300, 4, null, null, null, null);
        }
        regs.write32(0x10_0000L + 39 * 0x1000L + 4 * 299, 99);
        assertEquals(99, regs.read32(0x10_0000L + 39 * 0x1000L + 4 * 299));
    }
}
