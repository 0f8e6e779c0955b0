package dev.irdmaemu.model.ice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Named.named;

import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.FwLog;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.FwLogModules;
import java.util.function.ToIntFunction;
import java.util.stream.Stream;
import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Firmware logging as libie/fwlog.c drives it: the query ice's __fwlog_init sends on PF 0 (a 4 KiB buffer, SI,
 * AQ_QUERY) succeeds with 32 modules, so ice creates its fwlog debugfs instead of warning that the NVM has no FW log
 * support; config and unregister at unload succeed; and a lying driver gets EINVAL and changes nothing.
 */
class FirmwareLogTest {
    private final AqBench bench = new AqBench();
    private final FirmwareLog log = new FirmwareLog();

    FirmwareLogTest() {
        log.registerWith(bench.handlers::put);
    }

    @Test
    void theQueryIceSendsAtProbeReportsEveryModule() {
        Bytes<?> buf = AqBench.buffer(4096);
        assertEquals(AqError.OK, bench.send(AqOpcode.FW_LOGS_QUERY, d -> d.paramU8(FwLog.CMD_FLAGS, FwLog.AQ_QUERY),
                buf));
        assertEquals(FwLog.MODULES, bench.desc.paramU16(FwLog.MDL_CNT), "LIBIE_AQC_FW_LOG_ID_MAX entries");
        int res = bench.desc.paramU16(FwLog.LOG_RESOLUTION);
        assertTrue(res >= FwLog.MIN_RESOLUTION && res <= FwLog.MAX_RESOLUTION, "resolution " + res);
        assertEquals(0, bench.desc.paramU8(FwLog.CMD_FLAGS), "no output on, not registered");
        assertEquals(FwLog.MODULES * FwLogModules.ENTRY_SIZE, bench.desc.datalen());
        FwLogModules m = new FwLogModules().wrap(buf, 0, 4096);
        for (int i = 0; i < FwLog.MODULES; i++) {
            assertEquals(i, m.moduleId(i));
            assertEquals(0, m.logLevel(i), "LIBIE_FWLOG_LEVEL_NONE");
        }
    }

    @Test
    void configThenRegisterIsReportedBackAndUnloadTurnsItOff() {
        Bytes<?> set = AqBench.buffer(2 * FwLogModules.ENTRY_SIZE);
        new FwLogModules().wrap(set, 0, set.writeLimit()).entry(0, 8, 4).entry(1, 12, 2);
        assertEquals(AqError.OK, bench.send(AqOpcode.FW_LOGS_CONFIG, d -> d.paramU8(FwLog.CMD_FLAGS,
                FwLog.CONF_SET_VALID | FwLog.CONF_AQ_EN).paramU16(FwLog.LOG_RESOLUTION, 50)
                .paramU16(FwLog.MDL_CNT, 2), set));
        assertEquals(AqError.OK, bench.send(AqOpcode.FW_LOGS_REGISTER,
                d -> d.paramU8(FwLog.CMD_FLAGS, FwLog.AQ_REGISTER), null));
        Bytes<?> q = AqBench.buffer(4096);
        assertEquals(AqError.OK, bench.send(AqOpcode.FW_LOGS_QUERY, d -> d.paramU8(FwLog.CMD_FLAGS, FwLog.AQ_QUERY), q));
        assertEquals(FwLog.CONF_AQ_EN | FwLog.QUERY_REGISTERED, bench.desc.paramU8(FwLog.CMD_FLAGS));
        assertEquals(50, bench.desc.paramU16(FwLog.LOG_RESOLUTION));
        FwLogModules m = new FwLogModules().wrap(q, 0, 4096);
        assertEquals(4, m.logLevel(8));
        assertEquals(2, m.logLevel(12));
        assertEquals(0, m.logLevel(9));

        // libie_fwlog_deinit: config with ARQ off (all 32 modules), then unregister
        Bytes<?> all = AqBench.buffer(FwLog.MODULES * FwLogModules.ENTRY_SIZE);
        FwLogModules w = new FwLogModules().wrap(all, 0, all.writeLimit());
        for (int i = 0; i < FwLog.MODULES; i++) {
            w.entry(i, i, m.logLevel(i));
        }
        assertEquals(AqError.OK, bench.send(AqOpcode.FW_LOGS_CONFIG, d -> d.paramU8(FwLog.CMD_FLAGS,
                FwLog.CONF_SET_VALID).paramU16(FwLog.LOG_RESOLUTION, 50).paramU16(FwLog.MDL_CNT, FwLog.MODULES), all));
        assertEquals(AqError.OK, bench.send(AqOpcode.FW_LOGS_REGISTER, null));
        assertFalse(log.registered());
        assertEquals(0, log.outputs());
        assertEquals(4, log.level(8), "levels stay as set");
    }

    @Test
    void aPfResetDropsTheRegistrationButNotTheConfiguration() {
        Bytes<?> set = AqBench.buffer(FwLogModules.ENTRY_SIZE);
        new FwLogModules().wrap(set, 0, set.writeLimit()).entry(0, 3, 1);
        assertEquals(AqError.OK, bench.send(AqOpcode.FW_LOGS_CONFIG, d -> d.paramU8(FwLog.CMD_FLAGS,
                FwLog.CONF_SET_VALID).paramU16(FwLog.LOG_RESOLUTION, 1).paramU16(FwLog.MDL_CNT, 1), set));
        assertEquals(AqError.OK, bench.send(AqOpcode.FW_LOGS_REGISTER,
                d -> d.paramU8(FwLog.CMD_FLAGS, FwLog.AQ_REGISTER), null));
        log.pfReset();
        assertFalse(log.registered());
        assertEquals(1, log.level(3));
        assertEquals(1, log.resolution());
    }

    record Lie(int expected, ToIntFunction<AqBench> command) {
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("lies")
    void eachLieGetsEinvalAndChangesNothing(Lie lie) {
        int code = lie.command().applyAsInt(bench);
        assertEquals(lie.expected(), code);
        assertFalse(log.registered());
        assertEquals(FirmwareLog.DEFAULT_RESOLUTION, log.resolution());
        assertEquals(0, log.outputs());
        for (int i = 0; i < FwLog.MODULES; i++) {
            assertEquals(0, log.level(i));
        }
    }

    static Stream<Arguments> lies() {
        return Stream.of(
                lie("query: no buffer", b -> b.send(AqOpcode.FW_LOGS_QUERY, null)),
                lie("query: a buffer too short for 32 modules", b -> b.send(AqOpcode.FW_LOGS_QUERY,
                        AqBench.buffer(FwLog.MODULES * FwLogModules.ENTRY_SIZE - 1))),
                lie("config: no buffer", b -> b.send(AqOpcode.FW_LOGS_CONFIG, d -> d.paramU8(FwLog.CMD_FLAGS,
                        FwLog.CONF_SET_VALID).paramU16(FwLog.LOG_RESOLUTION, 10).paramU16(FwLog.MDL_CNT, 1), null)),
                lie("config: SET_VALID clear", b -> config(b, 0, 10, 1, entries(1, 0, 1))),
                lie("config: mdl_cnt 33", b -> config(b, FwLog.CONF_SET_VALID, 10, 33, entries(33, 0, 1))),
                lie("config: mdl_cnt 0", b -> config(b, FwLog.CONF_SET_VALID, 10, 0, entries(1, 0, 1))),
                lie("config: 4 modules in a buffer of 3", b -> config(b, FwLog.CONF_SET_VALID, 10, 4,
                        entries(3, 0, 1))),
                lie("config: resolution 0", b -> config(b, FwLog.CONF_SET_VALID, 0, 1, entries(1, 0, 1))),
                lie("config: resolution 129", b -> config(b, FwLog.CONF_SET_VALID, 129, 1, entries(1, 0, 1))),
                lie("config: module id 32", b -> config(b, FwLog.CONF_SET_VALID | FwLog.CONF_AQ_EN, 10, 2,
                        entries(2, 31, 1))),
                lie("config: log level 5 (LIBIE_FWLOG_LEVEL_INVALID)", b -> config(b, FwLog.CONF_SET_VALID, 10, 1,
                        entries(1, 0, 5))),
                lie("register: a buffer on a direct command", b -> b.send(AqOpcode.FW_LOGS_REGISTER,
                        d -> d.paramU8(FwLog.CMD_FLAGS, FwLog.AQ_REGISTER), AqBench.buffer(8))));
    }

    private static Arguments lie(String name, ToIntFunction<AqBench> c) {
        return Arguments.of(named(name, new Lie(AqError.EINVAL, c)));
    }

    /** {@code n} entries with module ids first, first+1, ... at {@code level}. */
    private static Bytes<?> entries(int n, int first, int level) {
        Bytes<?> b = AqBench.buffer(n * FwLogModules.ENTRY_SIZE);
        FwLogModules m = new FwLogModules().wrap(b, 0, b.writeLimit());
        for (int i = 0; i < n; i++) {
            m.entry(i, first + i, level);
        }
        return b;
    }

    private static int config(AqBench b, int flags, int resolution, int count, Bytes<?> buf) {
        return b.send(AqOpcode.FW_LOGS_CONFIG, d -> d.paramU8(FwLog.CMD_FLAGS, flags)
                .paramU16(FwLog.LOG_RESOLUTION, resolution).paramU16(FwLog.MDL_CNT, count), buf);
    }
}
