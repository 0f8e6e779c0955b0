package dev.irdmaemu.bridge.container;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The self-contained image (issue 28): built from what the kit and the build already hold
 * ({@code build-app-image.sh}, as {@code ./irdma-emu image} runs it), then the main job run in it with nothing
 * bind-mounted and no socket shared: the model, QEMU and the guest all inside the container, the run folder copied
 * out afterwards and its capture read by tshark. Runs after {@code package} (Failsafe), on the engine the test
 * command set up ({@code DOCKER_HOST}).
 */
class AppImageIT {
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    private record Result(int code, String out) {
    }

    /** Runs {@code command}; its standard output (and error, except for tshark's root warning) in {@code log}. */
    private static Result run(Path log, long timeoutSeconds, String... command) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(log.toFile());
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

    @Test
    void theMainJobRunsInTheImageWithNothingMounted() throws Exception {
        assertTrue(System.getenv().getOrDefault(ContainerEngine.DOCKER_HOST, "").startsWith("unix://"),
                "no container engine: run through ./irdma-emu test, which starts one (DOCKER_HOST)");
        Path dir = Files.createDirectories(ROOT.resolve("qemu-bridge/target/app-image-it"));
        Result build = run(dir.resolve("build.log"), 900,
                ROOT.resolve("qemu-bridge/src/main/kit/build-app-image.sh").toString());
        assertEquals(0, build.code(), build.out());
        List<String> lines = build.out().lines().toList();
        String image = lines.get(lines.size() - 1).strip();
        assertTrue(image.startsWith("irdma-emu:") && image.contains("_r"), "the tag names version and recipe: " + image);

        Result version = run(dir.resolve("version.log"), 120, "docker", "run", "--rm", image, "--version");
        assertEquals(0, version.code(), version.out());
        assertTrue(version.out().contains("irdma-emu " + System.getProperty("irdmaemu.expected.version",
                "0.1.0-SNAPSHOT")) && version.out().contains("Java 17"), version.out());

        String name = "irdma-emu-app-image-it-" + ProcessHandle.current().pid();
        try {
            Result boot = run(dir.resolve("boot.log"), 900, "docker", "run", "--name", name, image, "boot");
            assertEquals(0, boot.code(), boot.out());
            assertTrue(boot.out().contains("status    ok"), boot.out());
            assertTrue(boot.out().contains("left      nothing"), boot.out());
            Path copied = dir.resolve("run");
            deleteTree(copied);
            Result cp = run(dir.resolve("cp.log"), 120, "docker", "cp", name + ":/work/target/boot", copied.toString());
            assertEquals(0, cp.code(), cp.out());
            Path runDir;
            try (Stream<Path> s = Files.list(copied)) {
                runDir = s.filter(Files::isDirectory).findFirst().orElseThrow();
            }
            for (String f : new String[] {"console.log", "wire.pcap", "trace.jsonl", "e810-trace.jsonl"}) {
                assertTrue(Files.size(runDir.resolve(f)) > 0, f + " copied out of the container");
            }
            Result tshark = run(dir.resolve("tshark.log"), 120, "tshark", "-r", runDir.resolve("wire.pcap").toString(),
                    "--disable-protocol", "rpcordma", "-Y", "_ws.malformed");
            assertEquals(0, tshark.code(), tshark.out());
            assertEquals("", tshark.out().strip(), "tshark finds no malformed frame in the image's capture");
        } finally {
            run(dir.resolve("rm.log"), 120, "docker", "rm", "-f", name);
        }
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
