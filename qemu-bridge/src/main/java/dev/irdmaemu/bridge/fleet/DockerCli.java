package dev.irdmaemu.bridge.fleet;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * One container engine as the {@code docker} command line reaches it ({@code docker -H URL ...}), local or remote:
 * the engine API's own client, so that the fleet needs no library of its own and speaks to whatever engine the
 * user's CLI can (a TCP port, a UNIX socket, {@code ssh://}). Each call is a child process with a deadline; its
 * output goes to files, never to memory without bound.
 */
public final class DockerCli {
    /** The engine addresses the docker CLI takes with {@code -H}. */
    private static final Pattern ENGINE = Pattern.compile("(tcp://[A-Za-z0-9.\\-\\[\\]:]+|unix:///\\S+|ssh://\\S+)");
    /** How much of a call's standard error a failure message carries. */
    private static final int ERROR_TAIL = 400;

    private final Path executable;
    private final String engine;

    /** How a call ended: its exit code, or the deadline passed (the process was killed). */
    public enum Ending { EXITED, TIMED_OUT }

    /** A call's ending and, when it {@linkplain Ending#EXITED exited}, its exit code (0 for a timed-out call). */
    public record Exit(Ending ending, int code) {
        public boolean ok() {
            return ending == Ending.EXITED && code == 0;
        }
    }

    /**
     * The engine at {@code engine} ({@code tcp://HOST:PORT}, {@code unix:///PATH} or {@code ssh://...}) through the
     * docker CLI at {@code executable}; an {@link IllegalArgumentException} for any other address.
     */
    public DockerCli(Path executable, String engine) {
        if (engine == null || !ENGINE.matcher(engine).matches()) {
            throw new IllegalArgumentException("the engine is tcp://HOST:PORT, unix:///PATH or ssh://..., not '"
                    + engine + "'");
        }
        this.executable = executable;
        this.engine = engine;
    }

    public String engine() {
        return engine;
    }

    /** Runs {@code docker -H ENGINE ARGS}, its standard output added to {@code out} and error to {@code err}. */
    public Exit call(Duration timeout, Path out, Path err, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(args.length + 3);
        command.add(executable.toString());
        command.add("-H");
        command.add(engine);
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile())).redirectError(ProcessBuilder.Redirect.appendTo(err.toFile())).start();
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                return new Exit(Ending.TIMED_OUT, 0);
            }
            return new Exit(Ending.EXITED, p.exitValue());
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
        }
    }

    /** The first line a call printed (a container's id, an image's name), or "" when it printed nothing. */
    static String firstLine(Path file) throws IOException {
        try (var lines = Files.lines(file, StandardCharsets.UTF_8)) {
            return lines.map(String::strip).filter(l -> !l.isEmpty()).findFirst().orElse("");
        }
    }

    /** The end of what a call wrote to its error file, on one line (for a failure message). */
    static String tail(Path file) {
        try {
            String s = Files.readString(file, StandardCharsets.UTF_8).strip().replaceAll("\\s+", " ");
            return s.length() <= ERROR_TAIL ? s : "..." + s.substring(s.length() - ERROR_TAIL);
        } catch (IOException | java.io.UncheckedIOException e) {
            return "(" + file + " unreadable: " + e.getMessage() + ")";
        }
    }
}
