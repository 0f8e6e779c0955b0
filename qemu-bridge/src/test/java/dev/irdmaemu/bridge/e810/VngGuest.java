package dev.irdmaemu.bridge.e810;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.MissingGuestKitException;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * docs/e810.md's virtme-ng example as the tests run it: Debian's virtme-ng (unpacked by {@code provision-vng.sh})
 * booting the kit's Debian Linux 7.3 with its own modules on the kit's QEMU, {@code serve}'s printed arguments
 * passed through {@code --qemu-opts}, a guest script as {@code --exec} on the host's userspace. {@link #run} runs
 * its bash block from the repository's root, its placeholders filled in, and keeps every line the guest
 * printed (each with the host's time since the start).
 */
final class VngGuest {
    private static final Logger LOG = LoggerFactory.getLogger(VngGuest.class);
    /** The guest script of docs/e810.md's block. */
    static final String DOCUMENTED_SCRIPT = "qemu-bridge/src/main/kit/guest/vng-e810.sh";

    /** One line vng printed, and when (milliseconds since vng started, the host's clock). */
    record Line(long millis, String text) {
    }

    /** What vng printed, in order, and how it ended (its exit status once it ended). */
    record Output(List<Line> printed, boolean ended, int exitCode, Path console, Duration took) {
        List<String> lines() {
            return printed.stream().map(Line::text).toList();
        }

        /** The last {@code n} lines, for a failure message. */
        String tail(int n) {
            List<String> all = lines();
            return String.join("\n", all.subList(Math.max(0, all.size() - n), all.size()));
        }
    }

    private final Path vng;

    private VngGuest(Path vng) {
        this.vng = vng;
    }

    /** The kit's virtme-ng, or a test failure saying how to provision it. */
    static VngGuest locate() throws IOException {
        GuestKit kit = null;
        try {
            kit = GuestKit.locate().e810();
        } catch (MissingGuestKitException e) {
            fail(e.getMessage());
        }
        Path vng = kit.dir().getParent().resolve("vng").resolve("current");
        Path manifest = vng.resolve("vng.properties");
        assertTrue(Files.isRegularFile(manifest) && Files.readAllLines(manifest).contains("complete=true"),
                "no virtme-ng in " + vng + ": run ./irdma-emu kit (provision-vng.sh)");
        return new VngGuest(vng);
    }

    Path dir() {
        return vng;
    }

    Properties versions() throws IOException {
        Properties versions = new Properties();
        try (InputStream in = Files.newInputStream(vng.resolve("vng.properties"))) {
            versions.load(in);
        }
        return versions;
    }

    static Path repository() {
        return Path.of("..").toAbsolutePath().normalize();
    }

    /**
     * docs/e810.md's virtme-ng block (the one after "**virtme-ng**:"), with this run's arguments file, the vng folder
     * found, and {@code script} as the guest script in place of the documented one.
     */
    String readmeExample(Path arguments, String script) throws IOException {
        String readme = Files.readString(repository().resolve("docs").resolve("e810.md"), StandardCharsets.UTF_8);
        int at = readme.indexOf("**virtme-ng**:");
        assertTrue(at > 0, "docs/e810.md has the virtme-ng example");
        int open = readme.indexOf("```\n", at) + 4;
        String block = readme.substring(open, readme.indexOf("```", open));
        assertTrue(block.contains("V=$PWD/.cache/kit/vng/current")
                && block.contains("target/serve/<date-time>/qemu-args.txt") && block.contains("vng ")
                && block.contains(DOCUMENTED_SCRIPT), block);
        return "set -e\n" + block.replace("V=$PWD/.cache/kit/vng/current", "V=" + vng.toAbsolutePath())
                .replace("target/serve/<date-time>/qemu-args.txt", arguments.toString())
                .replace(DOCUMENTED_SCRIPT, script);
    }

    /** Runs {@code bashScript} from the repository's root, at most {@code timeout}; vng's output goes to {@code console}. */
    Output run(String bashScript, Path console, Duration timeout) throws IOException, InterruptedException {
        List<Line> lines = new CopyOnWriteArrayList<>();
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", bashScript).directory(repository().toFile())
                .redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        long started = System.nanoTime();
        Process p = pb.start();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                 PrintWriter out = new PrintWriter(Files.newBufferedWriter(console, StandardCharsets.UTF_8), true)) {
                String line;
                while ((line = in.readLine()) != null) {
                    long ms = (System.nanoTime() - started) / 1_000_000;
                    out.printf("%8.3f %s%n", ms / 1000.0, line);
                    lines.add(new Line(ms, line));
                }
            } catch (IOException e) {
                LOG.warn("reading vng's output: {}", e.toString());
            }
        }, "vng-output");
        reader.start();
        boolean ended = p.waitFor(timeout.toSeconds(), TimeUnit.SECONDS);
        if (!ended) {
            p.descendants().forEach(ProcessHandle::destroy); // QEMU, virtme-run, vng
            p.destroy();
            p.waitFor(20, TimeUnit.SECONDS);
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        reader.join(10_000);
        return new Output(List.copyOf(lines), ended, ended ? p.exitValue() : -1, console,
                Duration.ofNanos(System.nanoTime() - started));
    }
}
