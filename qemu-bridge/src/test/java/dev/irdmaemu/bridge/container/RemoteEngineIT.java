package dev.irdmaemu.bridge.container;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.cli.Main;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Issue 28 against a remote engine: the second private dockerd the test command starts on a loopback TCP port
 * ({@code IRDMAEMU_REMOTE_ENGINE}, its own data root; {@code remote-engine.sh}), where nothing of this machine's
 * is bind-mounted and no socket is shared. The self-contained image is built there ({@code build-app-image.sh}
 * with DOCKER_HOST pointing at it); then
 * <ul>
 * <li>a fleet ({@code irdma-emu fleet --parallel 2}) runs four E810 scenarios, the default one (rping-server)
 * among them, each in its own container with the model inside: the JUnit XML parses with four passing test cases,
 * each run folder is copied out with its report, console, traces and capture, and tshark finds no malformed frame
 * in any capture. This replaces the image test of the last stop ({@code AppImageIT}, the main job on the first
 * engine) and four local-engine container tests of {@code E810ContainerTest} (the same scenarios with the model on
 * the host);</li>
 * <li>the two-guest pair across two containers over VXLAN: each container of the image runs one guest of the
 * rping-pair scenario with its own E810 ({@code e810 --pair-side}), the two E810s' cable a VXLAN segment over an
 * IPv6 network of the remote engine; both guests pass, both captures decode clean, no datagram was dropped. This
 * replaces {@code E810PairContainerTest} (the pair's two QEMUs in containers, both E810s on the host).</li>
 * </ul>
 * The network is IPv6: the remote engine makes no iptables rules, but the first engine's FORWARD policy (DROP), which
 * br_netfilter applies to bridged IPv4, would drop IPv4 between two containers on a bridge; ip6tables is untouched.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RemoteEngineIT {
    /** The variable the test command sets to the second private engine's address. */
    static final String REMOTE_ENGINE = "IRDMAEMU_REMOTE_ENGINE";
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Path DIR = ROOT.resolve("qemu-bridge/target/remote-engine-it");
    /** boot's default (rping-server) and three more, E810ContainerTest's scenarios. */
    private static final List<String> SCENARIOS = List.of("rping-server", "rping-client", "ucmatose-client",
            "ucmatose-server");
    private static final int PINGS = 10;

    private static String engine;
    private static String image;

    private record Result(int code, String out) {
    }

    /** Runs {@code command} with DOCKER_HOST set to the remote engine; its output (and error, but tshark's) in {@code log}. */
    private static Result run(Path log, long timeoutSeconds, String... command) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(log.toFile());
        pb.environment().put("DOCKER_HOST", engine);
        if (command[0].equals("tshark")) {
            pb.redirectError(log.resolveSibling(log.getFileName() + ".stderr").toFile());
        } else {
            pb.redirectErrorStream(true);
        }
        Process p = pb.start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError(String.join(" ", command) + " took more than " + timeoutSeconds + " s; "
                    + Files.readString(log, StandardCharsets.UTF_8));
        }
        return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    }

    @BeforeAll
    static void buildTheImageOnTheRemoteEngine() throws Exception {
        engine = System.getenv().getOrDefault(REMOTE_ENGINE, "");
        assertTrue(engine.startsWith("tcp://127.0.0.1:"), REMOTE_ENGINE + " is not set to the second private engine ("
                + engine + "): run through ./irdma-emu test, which starts it (qemu-bridge/src/main/kit/remote-engine.sh "
                + "start prints its address)");
        Files.createDirectories(DIR);
        Result build = run(DIR.resolve("build.log"), 900,
                ROOT.resolve("qemu-bridge/src/main/kit/build-app-image.sh").toString());
        assertEquals(0, build.code(), build.out());
        List<String> lines = build.out().lines().toList();
        image = lines.get(lines.size() - 1).strip();
        assertTrue(image.startsWith("irdma-emu:") && image.contains("_r"), "the tag names version and recipe: " + image);
        Result version = run(DIR.resolve("version.log"), 120, "docker", "run", "--rm", "--network", "none", image,
                "--version");
        assertEquals(0, version.code(), version.out());
        assertTrue(version.out().contains("irdma-emu " + System.getProperty("irdmaemu.expected.version",
                "0.1.0-SNAPSHOT")) && version.out().contains("Java 17"), version.out());
    }

    @Test
    @Order(1)
    void aFleetOfFourScenariosTwoAtATimePassesAndWritesJUnitXml() throws Exception {
        Path out = DIR.resolve("fleet");
        deleteTree(out);
        StringWriter so = new StringWriter();
        StringWriter se = new StringWriter();
        int code = Main.commandLine().setOut(new PrintWriter(so)).setErr(new PrintWriter(se)).execute("fleet",
                "--engine", engine, "--image", image, "--parallel", "2", "--scenarios", String.join(",", SCENARIOS),
                "--out", out.toString(), "--timeout", "300");
        Files.writeString(DIR.resolve("fleet.log"), so + "\n" + se);
        assertEquals(0, code, () -> so + "\n" + se);
        assertTrue(so.toString().contains("result    4 of 4 passed; wall"), so::toString);

        Document xml = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(out.resolve("junit.xml").toFile());
        Element suite = xml.getDocumentElement();
        assertEquals("4", suite.getAttribute("tests"));
        assertEquals("0", suite.getAttribute("failures"));
        assertEquals("0", suite.getAttribute("errors"));
        NodeList cases = suite.getElementsByTagName("testcase");
        List<String> names = new ArrayList<>();
        for (int i = 0; i < cases.getLength(); i++) {
            Element c = (Element) cases.item(i);
            names.add(c.getAttribute("name"));
            assertEquals(0, c.getElementsByTagName("failure").getLength() + c.getElementsByTagName("error").getLength());
            assertTrue(Double.parseDouble(c.getAttribute("time")) > 5, "a guest boot takes seconds: " + c.getAttribute("time"));
        }
        assertEquals(SCENARIOS, names);

        for (String s : SCENARIOS) {
            Path folder = out.resolve(s);
            String report = Files.readString(folder.resolve("report.txt"));
            assertTrue(report.contains("status    ok") && report.contains("(E810: ice.ko, irdma.ko)"), report);
            assertTrue(report.contains("E810      after the guest's poweroff: nothing of irdma's or ice's left"), report);
            assertTrue(report.contains("left      nothing"), report);
            Path run = folder.resolve("run");
            for (String f : new String[] {"console.log", "wire.pcap", "trace.jsonl", "e810-trace.jsonl"}) {
                assertTrue(Files.size(run.resolve(f)) > 0, s + ": " + f + " copied out of its container");
            }
            assertTrue(Files.readString(run.resolve("console.log")).contains("irdma"), s + ": irdma in the console");
            decodesClean(run.resolve("wire.pcap"), s);
        }
    }

    @Test
    @Order(2)
    void thePairRunsAcrossTwoContainersOverVxlan() throws Exception {
        String tag = Long.toString(ProcessHandle.current().pid());
        String net = "irdma-emu-vxlan-" + tag;
        String prefix = String.format("fd00:2130:%x::", ProcessHandle.current().pid() & 0xffff);
        Map<String, String> address = Map.of("server", prefix + "10", "client", prefix + "20");
        Path out = DIR.resolve("pair");
        deleteTree(out);
        Files.createDirectories(out);
        List<String> containers = new ArrayList<>();
        try {
            Result made = run(out.resolve("network.log"), 120, "docker", "network", "create", "--ipv6", "--subnet",
                    prefix + "/64", net);
            assertEquals(0, made.code(), made.out());
            for (String part : List.of("server", "client")) {
                String other = part.equals("server") ? "client" : "server";
                String name = "irdma-emu-pair-" + part + "-" + tag;
                Result c = run(out.resolve(part + "-create.log"), 120, "docker", "create", "--name", name,
                        "--network", net, "--ip6", address.get(part), image, "e810", "--pair", Integer.toString(PINGS),
                        "--pair-side", part, "--vxlan", "[" + address.get(part) + "]:4789", "--vxlan-peer",
                        "[" + address.get(other) + "]:4789", "--vni", "4242", "--out", "/work/run", "--timeout", "300");
                assertEquals(0, c.code(), c.out());
                containers.add(name);
            }
            List<CompletableFuture<Result>> runs = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                String name = containers.get(i);
                Path log = out.resolve(i == 0 ? "server.out" : "client.out");
                runs.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return run(log, 600, "docker", "start", "--attach", name);
                    } catch (IOException | InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }));
            }
            Result server = runs.get(0).get();
            Result client = runs.get(1).get();
            assertEquals(0, server.code(), server.out());
            assertEquals(0, client.code(), client.out());
            assertTrue(server.out().contains("server: ok") && server.out().contains(PINGS + " verified"), server.out());
            assertTrue(client.out().contains("client: ok") && client.out().contains(PINGS + " pings"), client.out());
            for (Result r : List.of(server, client)) {
                assertTrue(r.out().contains("E810 afterwards: 0 QPs"), r.out());
                assertTrue(r.out().contains("dropped: spoofed 0, truncated 0, no I flag 0, wrong VNI 0, oversized 0, "
                        + "adapter full 0"), "nothing dropped on the segment: " + r.out());
            }
            for (int i = 0; i < 2; i++) {
                String part = i == 0 ? "server" : "client";
                Path copied = out.resolve(part);
                Result cp = run(out.resolve(part + "-cp.log"), 120, "docker", "cp", containers.get(i) + ":/work/run",
                        copied.toString());
                assertEquals(0, cp.code(), cp.out());
                assertTrue(Files.size(copied.resolve(part + ".log")) > 0 && Files.size(copied.resolve(part
                        + "-trace.jsonl")) > 0, part + ": console and trace copied out");
                Path pcap = copied.resolve(part + "-wire.pcap");
                decodesClean(pcap, part);
                Result mpa = run(out.resolve(part + "-mpa.log"), 120, "tshark", "-r", pcap.toString(), "-Y", "iwarp_mpa");
                assertTrue(mpa.out().lines().count() > 2 * PINGS, part + ": the iWARP exchange crossed the segment: "
                        + mpa.out());
            }
        } finally {
            for (String c : containers) {
                run(out.resolve("rm.log"), 120, "docker", "rm", "--force", c);
            }
            run(out.resolve("network-rm.log"), 120, "docker", "network", "rm", net);
        }
    }

    private static void decodesClean(Path pcap, String what) throws IOException, InterruptedException {
        Path log = pcap.resolveSibling(pcap.getFileName() + ".malformed.txt");
        Result tshark = run(log, 120, "tshark", "-r", pcap.toString(), "--disable-protocol", "rpcordma", "-Y",
                "_ws.malformed");
        assertEquals(0, tshark.code(), tshark.out());
        assertEquals("", tshark.out().strip(), what + ": tshark finds no malformed frame in " + pcap);
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        List<Path> all = new ArrayList<>();
        try (Stream<Path> s = Files.walk(p)) {
            s.forEach(all::add);
        }
        for (int i = all.size() - 1; i >= 0; i--) {
            Files.delete(all.get(i));
        }
    }
}
