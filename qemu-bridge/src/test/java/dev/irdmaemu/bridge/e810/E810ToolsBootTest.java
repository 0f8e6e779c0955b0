package dev.irdmaemu.bridge.e810;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.MissingGuestKitException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The everyday tools through the stock ice.ko of Linux 7.3 on one emulated E810 (scenario {@code e810-tools}):
 * {@code ethtool -i}, {@code -p}, {@code -m}, {@code -t} online and offline, {@code -k/-K}, {@code -g/-G},
 * {@code -l/-L} and {@code -S} pass in the guest, the LAN path to the hosted node works after each, and the model's trace shows the admin queue commands behind them answered OK
 * (set_port_id_led 0x06E9 blink and back, sff_eeprom 0x06EE, nvm_checksum 0x0706, set_mac_lb 0x0620 on and off)
 * with the loopback test's 32 frames turned back by the MAC.
 */
class E810ToolsBootTest {
    private static final Logger LOG = LoggerFactory.getLogger(E810ToolsBootTest.class);
    private static final Duration RESULT_TIMEOUT = Duration.ofSeconds(600);
    private static final Pattern COMMAND = Pattern.compile(
            "\"dir\":\"cmd\",\"opcode\":\"[^\"]*\",\"op\":\"([a-z0-9_]+)\",\"retval\":\"([A-Z0-9_]+)\"");

    @Test
    void ethtoolsIdentifyModuleAndSelfTestsPassAsOnARealE810() throws Exception {
        GuestKit kit;
        try {
            kit = GuestKit.locate().e810();
        } catch (MissingGuestKitException e) {
            fail(e.getMessage());
            return;
        }
        E810ToolsRun.Outcome o = E810ToolsRun.run(kit, Path.of("target", "guest-boot", E810ToolsRun.SCENARIO),
                RESULT_TIMEOUT, s -> LOG.info("tools: {}", s));
        assertTrue(o.result().ok(), "the guest's result: " + o.result() + " (console in " + o.console() + ")");
        assertEquals("PASS", o.result().field("selftest_online"));
        assertEquals("PASS", o.result().field("selftest_offline"));
        assertEquals("QSFP28", o.result().field("module"));
        assertEquals("IRDMA-EMU", o.result().field("module_vendor"));
        Map<String, int[]> commands = commands(o.trace());
        LOG.info("tools: admin queue commands (ok, refused): {}", describe(commands));
        assertEquals(2, ok(commands, "set_port_id_led"), "ethtool -p: blink, then the original mode");
        assertTrue(ok(commands, "sff_eeprom") >= 3, "ethtool -m: identifier, revision, then the map");
        assertEquals(1, ok(commands, "nvm_checksum"), "ethtool -t offline's EEPROM test");
        assertEquals(2, ok(commands, "set_mac_lb"), "the loopback test: on, then off");
        for (String op : new String[] {"set_port_id_led", "sff_eeprom", "nvm_checksum", "set_mac_lb"}) {
            assertEquals(0, commands.getOrDefault(op, new int[2])[1], op + " refused");
        }
        assertTrue(o.txLoopedBack() >= 32, "the loopback test's frames: " + o.txLoopedBack());
    }

    /** Each admin queue command's name with how often it was answered OK and how often with an error. */
    static Map<String, int[]> commands(Path trace) throws java.io.IOException {
        Map<String, int[]> out = new TreeMap<>();
        for (String line : Files.readAllLines(trace, StandardCharsets.UTF_8)) {
            Matcher m = COMMAND.matcher(line);
            if (m.find()) {
                out.computeIfAbsent(m.group(1), k -> new int[2])[m.group(2).equals("OK") ? 0 : 1]++;
            }
        }
        return out;
    }

    private static int ok(Map<String, int[]> commands, String op) {
        return commands.getOrDefault(op, new int[2])[0];
    }

    private static String describe(Map<String, int[]> commands) {
        StringBuilder b = new StringBuilder();
        commands.forEach((k, v) -> b.append(k).append('=').append(v[0]).append('/').append(v[1]).append(' '));
        return b.toString().trim();
    }
}
