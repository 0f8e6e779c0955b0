package dev.irdmaemu.bridge.e810;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.decode.Tshark;
import dev.irdmaemu.model.sw.AdapterSwitch;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One adapter, many endpoints, with what users bring: {@code irdma-emu serve --functions 2} (one E810, functions A
 * and B on one embedded switch and one cable) and docs/e810.md's virtme-ng command running {@code
 * kit/guest/vng-one-adapter.sh} on the host's userspace (rdma-core, perftest and python3-pyverbs, which {@code
 * ./irdma-emu test} installs, as an RDMA developer's machine has them; rdma-core's udev rule renames the ib devices,
 * which the script follows through their PCI functions). Within one function (irdma's loopback connections) and
 * across the two (the switch turns the frames around): rping -V, ucmatose with 100 connections and perftest's six
 * rdma_cm tools; then rdma-core's own tests, every failure and skip classified ({@link RdmaCoreTestResults}). No
 * hung task, no kernel warning, nothing left on the model, every frame the switch turned around clean under tshark.
 * The figures (perftest, ucmatose, the rdma-core counts) go to {@code target/guest-boot/vng-one-adapter/figures.txt}.
 */
class OneAdapterVngBootTest {
    private static final Logger LOG = LoggerFactory.getLogger(OneAdapterVngBootTest.class);
    /** vng's boot (about a minute under TCG), the traffic (about a minute) and rdma-core's tests twice (about two). */
    private static final Duration RUN_TIMEOUT = Duration.ofSeconds(1200);
    private static final int MEMORY_MIB = 1024;
    private static final String SCRIPT = "qemu-bridge/src/main/kit/guest/vng-one-adapter.sh";
    private static final Pattern STEP = Pattern.compile("^one-adapter: (\\S+)(.*) uptime=([0-9.]+)$");
    private static final Pattern FIELD = Pattern.compile("(\\w+)=(\\S*)");
    private static final String[] PERFTEST = {"ib_write_bw", "ib_read_bw", "ib_send_bw", "ib_write_lat",
        "ib_read_lat", "ib_send_lat"};
    /** rdma-core's rdma_cm traffic tests that ran into the missing loopback before the adapter had its switch. */
    private static final String[] RDMACM_OVER_LOOPBACK = {"test_rdmacm_sync_traffic", "test_rdmacm_async_read",
        "test_rdmacm_async_write", "test_rdmacm_async_reject_traffic"};

    private VngGuest vng;
    private Path sockets;
    private Path runDir;
    private E810Serve serve;

    @BeforeEach
    void start() throws Exception {
        vng = VngGuest.locate();
        sockets = Files.createTempDirectory("irdma-emu-vng");
        runDir = Path.of("target", "guest-boot", "vng-one-adapter").toAbsolutePath();
        // no trace file (perftest's data would make it gigabytes): the session log still names every reset
        serve = E810Serve.start(new E810Serve.Settings(2, sockets, runDir, MEMORY_MIB, Duration.ofSeconds(20), false,
                true, null, false), line -> LOG.info("serve: {}", line));
    }

    @AfterEach
    void stop() throws Exception {
        if (serve != null) {
            serve.close();
        }
        Files.deleteIfExists(sockets);
    }

    @Test
    void rdmaCoresToolsAndTestsRunWithinOneFunctionAndAcrossTwoFunctionsOfOneAdapter() throws Exception {
        String script = vng.readmeExample(serve.settings().runDir().resolve(E810Serve.QEMU_ARGUMENTS), SCRIPT);
        VngGuest.Output out = vng.run(script, runDir.resolve("vng-console.log"), RUN_TIMEOUT);
        assertTrue(out.ended(), "vng ended within " + RUN_TIMEOUT + "; its output in " + out.console());
        assertEquals(0, out.exitCode(), () -> "the guest script's exit status; output in " + out.console() + ":\n"
                + out.tail(60));
        List<String> lines = out.lines();
        List<Map<String, String>> steps = new ArrayList<>();
        for (String l : lines) {
            Matcher m = STEP.matcher(l);
            if (m.matches()) {
                Map<String, String> f = new HashMap<>();
                f.put("step", m.group(1));
                Matcher kv = FIELD.matcher(m.group(2));
                while (kv.find()) {
                    f.put(kv.group(1), kv.group(2));
                }
                steps.add(f);
            }
        }
        Map<String, String> netdevs = step(steps, "netdevs", null, null);
        assertEquals("02:00:5e:10:00:01", netdevs.get("a_mac"), "function A's MAC: " + netdevs);
        assertEquals("02:00:5e:10:00:02", netdevs.get("b_mac"), "function B's MAC: " + netdevs);
        Map<String, String> irdma = step(steps, "irdma", null, null);
        assertEquals("4:_RNIC", irdma.get("node_type"), irdma::toString);
        assertEquals("2", irdma.get("links"), "an iWARP device on each function: " + irdma);
        Map<String, String> after = step(steps, "after", null, null);
        assertEquals(irdma.get("a"), after.get("a"), "the devices keep the names found after udev: " + steps);
        assertEquals(irdma.get("b"), after.get("b"), steps::toString);

        assertEquals(List.of(), lines.stream().filter(l -> l.startsWith("one-adapter: no-listener")).toList(),
                "every server's rdma_cm id listened before its client started");
        StringBuilder figures = new StringBuilder();
        for (String path : new String[] {"loop", "cross"}) {
            Map<String, String> rping = step(steps, "rping", "path", path);
            assertEquals("0", rping.get("rc"), () -> path + " rping client: " + rping);
            assertEquals("0", rping.get("server_rc"), () -> path + " rping server: " + rping);
            assertEquals("10", rping.get("pings"), () -> path + " rping verified pings: " + rping);
            Map<String, String> ucm = step(steps, "ucmatose", "path", path);
            assertEquals("0", ucm.get("rc"), () -> path + " ucmatose client: " + ucm);
            assertEquals("0", ucm.get("server_rc"), () -> path + " ucmatose server: " + ucm);
            assertEquals("100", ucm.get("connections"), ucm::toString);
            figures.append(String.format("%s ucmatose 100 connections %s s%n", path, ucm.get("seconds")));
            for (String tool : PERFTEST) {
                Map<String, String> p = steps.stream().filter(s -> s.get("step").equals("perftest")
                        && path.equals(s.get("path")) && tool.equals(s.get("tool"))).findFirst().orElseThrow(
                                () -> new AssertionError("no " + path + " " + tool + " result: " + out.tail(80)));
                assertEquals("0", p.get("rc"), () -> path + " " + tool + ": " + p + "\n" + out.tail(80));
                double value = Double.parseDouble(p.get("value"));
                assertTrue(value > 0, () -> path + " " + tool + " reports a figure: " + p);
                figures.append(String.format("%s %s %s %s%n", path, tool, p.get("value"), p.get("unit")));
            }
        }

        for (String mode : new String[] {"default", "gid0"}) {
            List<String> block = block(lines, "rdma-core " + mode);
            RdmaCoreTestResults results = RdmaCoreTestResults.parse(block);
            assertTrue(results.ran() > 200, () -> "rdma-core's run_tests.py ran (" + mode + "): " + block);
            assertEquals(results.ran(), results.results().size(),
                    () -> "every test's outcome parsed (" + mode + "): " + results.results());
            assertEquals(List.of(), results.unclassified(),
                    () -> "rdma-core (" + mode + "): what did not pass and no category explains (a model defect?)");
            LOG.info("rdma-core's tests ({}): {}; by category {}", mode, results.counts(), results.byCategory());
            figures.append(String.format("rdma-core %s: ran %d, %s, by category %s%n", mode, results.ran(),
                    results.counts(), results.byCategory()));
            if (mode.equals("gid0")) {
                for (String t : RDMACM_OVER_LOOPBACK) {
                    assertEquals(RdmaCoreTestResults.Outcome.OK, results.outcomeOf(t).orElse(null),
                            () -> t + " passes over the adapter's loopback: " + results.results());
                }
            }
        }

        List<String> kernel = block(lines, "dmesg");
        for (String bad : new String[] {"blocked for more than", "BUG:", "Oops", "UBSAN", "Call Trace"}) {
            assertFalse(kernel.stream().anyMatch(l -> l.contains(bad)), () -> "the kernel log has " + bad + ": "
                    + kernel);
        }
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("one-adapter: ok ")), out.tail(20));

        for (int i = 0; i < 2; i++) {
            assertTrue(serve.adapter().server(i).awaitClientsEnded(1, Duration.ofSeconds(30)), "QEMU left " + i);
            E810Serve.ModelCounts left = serve.counts(i);
            assertTrue(left.empty(), "nothing left on function " + i + " after vng's QEMU: " + left);
        }
        AdapterSwitch.Counters sw = serve.adapter().loop().call(() -> serve.adapter().adapterSwitch().counters(),
                Duration.ofSeconds(10));
        assertTrue(sw.switched() > 10_000, "the switch turned the traffic around inside the adapter: " + sw);
        assertEquals(0, sw.runts(), sw::toString);
        serve.close();
        serve = null;
        Path capture = runDir.resolve(E810Serve.SWITCH_PCAP);
        List<String> tshark = Tshark.run(runDir, capture, "--disable-protocol", "rpcordma");
        assertTrue(tshark.size() > 10_000, "tshark read the switched frames: " + tshark.size());
        assertTrue(tshark.stream().noneMatch(l -> l.contains("Malformed")), () -> "tshark: malformed frames in "
                + capture);
        figures.append("switch: ").append(sw).append('\n');
        LOG.info("one adapter, many endpoints:\n{}", figures);
        Files.writeString(runDir.resolve("figures.txt"), figures.toString(), StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
    }

    /** The first step named {@code name} (whose {@code key} is {@code value}, when given). */
    private static Map<String, String> step(List<Map<String, String>> steps, String name, String key, String value) {
        return steps.stream().filter(s -> s.get("step").equals(name) && (key == null || value.equals(s.get(key))))
                .findFirst().orElseThrow(() -> new AssertionError("the guest script reported no " + name
                        + (key == null ? "" : " " + key + "=" + value) + ": " + steps));
    }

    /** The lines between "one-adapter: begin NAME" and "one-adapter: end NAME...". */
    private static List<String> block(List<String> lines, String name) {
        int begin = lines.indexOf("one-adapter: begin " + name);
        assertTrue(begin >= 0, "no block " + name);
        for (int i = begin + 1; i < lines.size(); i++) {
            if (lines.get(i).startsWith("one-adapter: end " + name)) {
                return lines.subList(begin + 1, i);
            }
        }
        throw new AssertionError("block " + name + " never ends");
    }
}
