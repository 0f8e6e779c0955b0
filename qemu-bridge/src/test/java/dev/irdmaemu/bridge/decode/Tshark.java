package dev.irdmaemu.bridge.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs Wireshark's tshark on a capture (as firmware-iface's PcapTsharkTest does). Without tshark on PATH the
 * calling test fails with the command that installs it; it never skips.
 */
public final class Tshark {
    private Tshark() {
    }

    /** tshark's stdout, one line per element, for {@code tshark -n -r file ARGS}; fails on a non-zero exit. */
    public static List<String> run(Path dir, Path file, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(findOnPath("tshark"), "-n", "-r", file.toString()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "tshark", ".out");
        Path err = Files.createTempFile(dir, "tshark", ".err");
        Process p = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        // a guard against a hung child, not a timing assertion
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            fail("tshark did not finish: " + command);
        }
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), () -> "tshark failed: " + command + "\n" + stderr);
        return Files.readAllLines(out, StandardCharsets.UTF_8);
    }

    private static String findOnPath(String program) {
        String path = System.getenv("PATH");
        if (path != null) {
            for (String d : path.split(File.pathSeparator)) {
                File f = new File(d.isEmpty() ? "." : d, program);
                if (f.isFile() && f.canExecute()) {
                    return f.getPath();
                }
            }
        }
        return fail(program + " is not on PATH (" + path + "): this test needs it. `./irdma-emu test` installs it "
                + "(as root: apt-get install -y --no-install-recommends tshark)");
    }
}
