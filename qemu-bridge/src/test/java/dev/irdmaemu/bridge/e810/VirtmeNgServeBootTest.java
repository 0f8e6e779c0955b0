package dev.irdmaemu.bridge.e810;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * docs/e810.md's virtme-ng example run as it stands: {@code irdma-emu serve} (in this JVM, as
 * {@link ServeQemuBootTest} runs it) and, from the repository's root, its bash block: Debian's virtme-ng
 * (the package's {@code vng}, unpacked by {@code provision-vng.sh}) booting the kit's Debian Linux 7.3 with its own
 * modules on the kit's QEMU 11.1, serve's printed arguments passed through {@code --qemu-opts}, and the guest script
 * {@code kit/guest/vng-e810.sh} as {@code --exec} on the host's userspace. The stock ice.ko probes the function, its
 * netdev comes up and pings the hosted node, the stock irdma.ko registers irdma0 in iWARP mode (node type RNIC, port
 * ACTIVE); serve's sessions.log records the connect and the disconnect, nothing left on the model. Logs the time
 * from vng's start to the netdev up and to irdma registered (the host's clock; the guest's uptimes too).
 */
class VirtmeNgServeBootTest {
    private static final Logger LOG = LoggerFactory.getLogger(VirtmeNgServeBootTest.class);
    /** TCG on a loaded host: vng's boot (udev's coldplug over 9p) takes about a minute, the steps about 15 s. */
    private static final Duration RUN_TIMEOUT = Duration.ofSeconds(480);
    /** The guest RAM the documented command gives vng ({@code --memory 1024M}): serve prints the same. */
    private static final int MEMORY_MIB = 1024;
    private static final Pattern STEP = Pattern.compile("^vng-e810: (\\S+)(.*) uptime=([0-9.]+)$");

    private VngGuest vng;
    private Path sockets;
    private Path runDir;
    private E810Serve serve;

    @BeforeEach
    void start() throws Exception {
        vng = VngGuest.locate();
        sockets = Files.createTempDirectory("irdma-emu-vng");
        runDir = Path.of("target", "guest-boot", "vng").toAbsolutePath();
        serve = E810Serve.start(new E810Serve.Settings(1, sockets, runDir, MEMORY_MIB, Duration.ofSeconds(20), true,
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
    void vngBootsTheKitsKernelWithTheServedE810AndIrdmaRegistersInIwarpMode() throws Exception {
        Properties versions = vng.versions();
        String script = vng.readmeExample(serve.settings().runDir().resolve(E810Serve.QEMU_ARGUMENTS),
                VngGuest.DOCUMENTED_SCRIPT);
        VngGuest.Output out = vng.run(script, runDir.resolve("vng-console.log"), RUN_TIMEOUT);
        Map<String, Long> hostMillis = new HashMap<>();
        Map<String, String> stepLines = new HashMap<>();
        for (VngGuest.Line l : out.printed()) {
            Matcher m = STEP.matcher(l.text());
            if (m.matches()) {
                hostMillis.putIfAbsent(m.group(1), l.millis());
                stepLines.putIfAbsent(m.group(1), l.text());
            }
        }
        List<String> lines = out.lines();
        assertTrue(out.ended(), "vng ended within " + RUN_TIMEOUT + "; its output in " + out.console());
        assertEquals(0, out.exitCode(), () -> "vng's exit status (the guest script's); output in " + out.console()
                + ":\n" + out.tail(40));

        assertTrue(step(stepLines, "netdev").contains(" bdf=0000:01:00.0 mac=02:00:5e:10:00:01 "),
                "ice bound the function and registered its netdev with PF 0's MAC: " + stepLines);
        assertTrue(step(stepLines, "netdev_up").contains(" operstate=up "), stepLines::toString);
        assertTrue(step(stepLines, "ping").contains(" target=192.0.2.1 replies=3 "),
                "the hosted node answers the three echoes: " + stepLines);
        // irdma0, or the name rdma-core's udev rule gives it on a host with rdma-core (the guest runs the host's
        // userspace): the script finds it through its PCI function either way
        assertTrue(step(stepLines, "irdma_registered").matches(".* ibdev=(irdma0|iwp1s0) node_type=4:_RNIC .*"),
                "irdma registered its device in iWARP mode (an RNIC): " + stepLines);
        assertTrue(step(stepLines, "irdma_active").contains(" port_state=4:_ACTIVE "), stepLines::toString);
        assertTrue(stepLines.containsKey("ok"), stepLines::toString);
        assertTrue(lines.stream().anyMatch(l -> l.contains("ice 0000:01:00.0: The DDP package was successfully loaded")),
                "ice loaded the DDP package from firmware_class.path (not safe mode)");
        assertFalse(lines.stream().anyMatch(l -> l.contains("BUG:") || l.contains("Oops") || l.contains("Call Trace")),
                "no kernel oops or warning in ice's and irdma's messages");

        assertTrue(serve.adapter().server(0).awaitClientsEnded(1, Duration.ofSeconds(30)), "QEMU left");
        assertEquals(1, serve.adapter().server(0).clientsAccepted());
        E810Serve.ModelCounts left = serve.counts(0);
        assertTrue(left.empty(), "nothing left on the model after vng's QEMU: " + left);
        List<String> sessions = Files.readAllLines(serve.sessionsLog());
        assertEquals(1, sessions.stream().filter(l -> l.contains(" pf0 connect client=1 ")).count(), sessions::toString);
        assertEquals(1, sessions.stream().filter(l -> l.contains(" pf0 disconnect client=1 ")).count(),
                sessions::toString);
        assertTrue(sessions.stream().filter(l -> l.contains(" pf0 power_on ")).allMatch(
                l -> l.contains("qps=0 cqs=0 vsis=0 tx_queues=0")), sessions::toString);

        String figures = String.format("virtme-ng %s (%s), %s, Linux %s: vng start to ice netdev up %.1f s (guest"
                        + " uptime %s s), to irdma0 registered %.1f s (guest uptime %s s), vng ended after %.1f s",
                versions.getProperty("virtme-ng.version"), versions.getProperty("virtme-ng.reported"),
                versions.getProperty("qemu.reported"), versions.getProperty("kernel.release"),
                hostMillis.get("netdev_up") / 1000.0, uptime(stepLines, "netdev_up"),
                hostMillis.get("irdma_registered") / 1000.0, uptime(stepLines, "irdma_registered"),
                out.took().toMillis() / 1000.0);
        LOG.info("{}", figures);
        Files.writeString(runDir.resolve("vng-figures.txt"), figures + "\n", StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    /**
     * The documented command with vng's {@code --dry-run} (it prints the QEMU command line it would run): serve's
     * arguments reach QEMU as they were printed, the JSON device whole; vng adds no network of its own ({@code -net
     * none}: no user networking, no tap), so the E810 is the guest's only NIC; 9p, not virtiofs (whose memory
     * backend would clash with serve's); the kit's QEMU and the kit's kernel with its modules linked in.
     */
    @Test
    void theReadmeCommandGivesQemuServesArgumentsAndNoNetworkOfItsOwn() throws Exception {
        String script = vng.readmeExample(serve.settings().runDir().resolve(E810Serve.QEMU_ARGUMENTS),
                VngGuest.DOCUMENTED_SCRIPT)
                .replace("$V/bin/vng ", "$V/bin/vng --dry-run ");
        Process p = new ProcessBuilder("bash", "-c", script).directory(VngGuest.repository().toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "vng --dry-run ended");
        assertEquals(0, p.exitValue(), out);
        String qemu = out.lines().filter(l -> l.contains("/bin/qemu-system-x86_64 ")).findFirst().orElse("");
        assertFalse(qemu.isEmpty(), "vng printed the QEMU command: " + out);
        for (String argument : serve.qemuArguments()) {
            assertTrue(qemu.contains(argument), "serve's argument " + argument + " reaches QEMU: " + qemu);
        }
        assertTrue(qemu.contains(" -net none "), "vng adds no network: " + qemu);
        assertFalse(qemu.contains("-netdev") || qemu.contains("-nic ") || qemu.contains("user,"), qemu);
        assertTrue(qemu.contains("-device virtio-9p-pci") && !qemu.contains("vhost-user-fs"), "a 9p root: " + qemu);
        assertEquals(1, qemu.split("memory-backend-memfd", -1).length - 1, "one memory backend, serve's: " + qemu);
        assertTrue(qemu.contains("-kernel " + vng.dir().toAbsolutePath() + "/root/vmlinuz"), qemu);
        assertTrue(qemu.contains("virtme_link_mods=" + vng.dir().toAbsolutePath() + "/root/lib/modules/"), qemu);
        assertTrue(qemu.contains("modprobe.blacklist=ice,irdma") && qemu.contains("-initrd "),
                "vng's initramfs loads 9p from the kit's modules: " + qemu);
    }

    /** The guest script's line for the step NAME ("vng-e810: NAME key=value ... uptime=S": each value ends in a space). */
    private static String step(Map<String, String> steps, String name) {
        String line = Optional.ofNullable(steps.get(name)).orElse("");
        assertFalse(line.isEmpty(), "the guest script reported no " + name + ": " + steps);
        return line;
    }

    private static String uptime(Map<String, String> steps, String name) {
        Matcher m = STEP.matcher(steps.getOrDefault(name, ""));
        return m.matches() ? m.group(3) : "?";
    }
}
