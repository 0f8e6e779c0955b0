package dev.irdmaemu.bridge.kit;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running QEMU: its serial console (QEMU's stdout and stderr) streamed line by line (DEBUG) to the SLF4J logger
 * {@value #CONSOLE_LOGGER} and to a log file, and watched for the guest's {@link GuestResult} line. Closing it
 * ends QEMU and anything it started (SIGTERM, then SIGKILL after a grace period).
 */
public final class QemuProcess implements AutoCloseable {
    /** The logger the guest console goes to, one DEBUG event a line. */
    public static final String CONSOLE_LOGGER = "dev.irdmaemu.bridge.kit.console";
    private static final Logger LOG = LoggerFactory.getLogger(QemuProcess.class);
    private static final Logger CONSOLE = LoggerFactory.getLogger(CONSOLE_LOGGER);
    /** Terminal control sequences SeaBIOS and the kernel write (CSI sequences, "ESC c" resets). */
    private static final Pattern TERMINAL_CONTROL = Pattern.compile("\u001B\\[[0-9;?]*[ -/]*[@-~]|\u001B[@-Z\\\\-_c]|[\r\u0000]");
    private static final int TAIL_LINES = 40;
    private static final Duration GRACE = Duration.ofSeconds(5);

    private final Process process;
    private final List<String> command;
    private final Path consoleLog;
    private final long startedNanos;
    private final Thread reader;
    private final CompletableFuture<GuestResult> result = new CompletableFuture<>();
    private final ArrayDeque<String> tail = new ArrayDeque<>();
    /** QEMU's stdin, the guest's serial input: null unless started with {@link #startInteractive}. */
    private final OutputStream input;
    private final Consumer<String> lines;

    private QemuProcess(Process process, List<String> command, Path consoleLog, BufferedWriter log, long startedNanos,
                        Consumer<String> lines) {
        this.process = process;
        this.command = command;
        this.consoleLog = consoleLog;
        this.startedNanos = startedNanos;
        this.lines = lines;
        this.input = lines == null ? null : process.getOutputStream();
        this.reader = new Thread(() -> pump(log), "qemu-console-" + process.pid());
        this.reader.setDaemon(true);
    }

    /**
     * Starts the launch's QEMU, its console going to {@code consoleLog} (replaced) and to SLF4J. Each vfio-user
     * function's server must already listen: QEMU connects while it realizes the device and exits when nobody
     * answers, so a missing socket is reported here, by name, instead of as QEMU's exit.
     */
    public static QemuProcess start(GuestLaunch launch, Path consoleLog) throws GuestBootException {
        for (VfioUserDevice d : launch.vfioUserDevices()) {
            requireListeningSocket(d);
        }
        return start(launch.command(), consoleLog);
    }

    /** S_IFMT and S_IFSOCK of stat(2)'s st_mode. */
    private static final int FILE_TYPE_MASK = 0170000;
    private static final int SOCKET_TYPE = 0140000;

    private static void requireListeningSocket(VfioUserDevice d) throws GuestBootException {
        Path socket = d.socketPath();
        int mode;
        try {
            mode = (Integer) Files.getAttribute(socket, "unix:mode");
        } catch (java.nio.file.NoSuchFileException e) {
            throw new GuestBootException("no vfio-user server socket at " + socket + " for " + d
                    + ": start the server first (QEMU connects once, when it starts)");
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            throw new GuestBootException("cannot look at the vfio-user socket " + socket + ": " + e.getMessage(), e);
        }
        if ((mode & FILE_TYPE_MASK) != SOCKET_TYPE) {
            throw new GuestBootException(socket + " is not a UNIX socket (mode " + Integer.toOctalString(mode)
                    + ") for " + d);
        }
    }

    /**
     * Starts the launch's QEMU like {@link #start(GuestLaunch, Path)}, with the guest's serial input open to the
     * caller ({@link #typeLine}) and every console line (terminal control removed) handed to {@code lines} on the
     * console's reader thread, in order, before the result line is looked for: a host and a guest scenario can
     * hold a dialogue (the guest prints a marker and reads the host's answer).
     */
    public static QemuProcess startInteractive(GuestLaunch launch, Path consoleLog, Consumer<String> lines)
            throws GuestBootException {
        Objects.requireNonNull(lines, "lines");
        for (VfioUserDevice d : launch.vfioUserDevices()) {
            requireListeningSocket(d);
        }
        return start(launch.command(), consoleLog, lines);
    }

    /** Starts {@code command} (a QEMU argument list), its console going to {@code consoleLog} and to SLF4J. */
    public static QemuProcess start(List<String> command, Path consoleLog) throws GuestBootException {
        return start(command, consoleLog, null);
    }

    /** {@link #startInteractive(GuestLaunch, Path, Consumer)} for a QEMU argument list (or a stand-in's). */
    public static QemuProcess startInteractive(List<String> command, Path consoleLog, Consumer<String> lines)
            throws GuestBootException {
        return start(command, consoleLog, Objects.requireNonNull(lines, "lines"));
    }

    private static QemuProcess start(List<String> command, Path consoleLog, Consumer<String> lines)
            throws GuestBootException {
        List<String> cmd = List.copyOf(command);
        Objects.requireNonNull(consoleLog, "consoleLog");
        BufferedWriter log;
        try {
            Path parent = consoleLog.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            log = Files.newBufferedWriter(consoleLog, StandardCharsets.UTF_8);
            log.write("# " + String.join(" ", cmd));
            log.newLine();
            log.flush();
        } catch (IOException e) {
            throw new GuestBootException("cannot write the console log " + consoleLog + ": " + e.getMessage(), e);
        }
        LOG.info("starting QEMU: {}", String.join(" ", cmd));
        Process p;
        long started = System.nanoTime();
        try {
            p = new ProcessBuilder(cmd)
                    .redirectInput(lines == null ? ProcessBuilder.Redirect.from(new File("/dev/null"))
                            : ProcessBuilder.Redirect.PIPE)
                    .redirectErrorStream(true)
                    .start();
        } catch (IOException e) {
            try {
                log.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw new GuestBootException("cannot start QEMU (" + cmd.get(0) + "): " + e.getMessage(), e);
        }
        QemuProcess q = new QemuProcess(p, cmd, consoleLog, log, started, lines);
        q.reader.start();
        return q;
    }

    private void pump(BufferedWriter log) {
        try (log; BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String raw;
            while ((raw = in.readLine()) != null) {
                String line = consoleLine(raw);
                Duration since = Duration.ofNanos(System.nanoTime() - startedNanos);
                log.write(line);
                log.newLine();
                log.flush();
                CONSOLE.debug("{}", line);
                synchronized (tail) {
                    if (tail.size() == TAIL_LINES) {
                        tail.removeFirst();
                    }
                    tail.addLast(line);
                }
                if (lines != null) {
                    try {
                        lines.accept(line);
                    } catch (RuntimeException e) {
                        LOG.warn("console line listener failed on {}: {}", line, e.toString());
                    }
                }
                if (!result.isDone()) {
                    GuestResult.parse(line, since).ifPresent(r -> {
                        LOG.info("guest result after {} ms: {}", since.toMillis(), r);
                        writeQuietly(log, "# result after " + since.toMillis() + " ms");
                        result.complete(r);
                    });
                }
            }
            String exit = process.waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS) ? "exit code " + process.exitValue() : "still running";
            writeQuietly(log, "# console closed after " + Duration.ofNanos(System.nanoTime() - startedNanos).toMillis() + " ms, " + exit);
            result.completeExceptionally(new GuestBootException("QEMU's console closed (" + exit + ") before a result line"
                    + tailText()));
        } catch (IOException e) {
            result.completeExceptionally(new GuestBootException("reading QEMU's console failed: " + e.getMessage(), e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            result.completeExceptionally(new GuestBootException("interrupted while QEMU exited", e));
        }
    }

    /** A raw console line with the terminal control sequences SeaBIOS and the kernel write removed. */
    public static String consoleLine(String raw) {
        return TERMINAL_CONTROL.matcher(raw).replaceAll("");
    }

    private static void writeQuietly(BufferedWriter log, String line) {
        try {
            log.write(line);
            log.newLine();
            log.flush();
        } catch (IOException e) {
            LOG.warn("console log: {}", e.getMessage());
        }
    }

    private String tailText() {
        List<String> t = consoleTail();
        return t.isEmpty() ? " (the console stayed empty)" : "; the console's last lines:\n  " + String.join("\n  ", t);
    }

    /**
     * Waits for the guest's result line. Fails when QEMU ends first or the line takes longer than {@code timeout};
     * the message then holds the console's last lines.
     */
    public GuestResult awaitResult(Duration timeout) throws GuestBootException, InterruptedException {
        try {
            return result.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new GuestBootException("no result line from the guest within " + timeout.toSeconds() + " s" + tailText(), e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw new GuestBootException(cause.getMessage(), cause);
        }
    }

    /**
     * The guest's result as it comes in: completes with the result line, or exceptionally with a {@link
     * GuestBootException} when QEMU's console closes first. For callers that wait in slices (progress, abort).
     */
    public java.util.concurrent.CompletionStage<GuestResult> result() {
        return result.minimalCompletionStage();
    }

    /**
     * Types {@code line} and a newline on the guest's serial input (only for a QEMU started with {@link
     * #startInteractive}). An ended QEMU is an {@link IOException}.
     */
    public void typeLine(String line) throws IOException {
        if (input == null) {
            throw new IllegalStateException("QEMU was started without console input");
        }
        synchronized (input) {
            input.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            input.flush();
        }
    }

    /** Waits for QEMU to end by itself (the guest powers off after its result line): its exit code, if it did. */
    public OptionalInt awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? OptionalInt.of(process.exitValue()) : OptionalInt.empty();
    }

    /** The console's last lines (up to 40), terminal control removed. */
    public List<String> consoleTail() {
        synchronized (tail) {
            return new ArrayList<>(tail);
        }
    }

    public Path consoleLog() {
        return consoleLog;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public List<String> command() {
        return command;
    }

    /** Ends QEMU and its descendants (SIGTERM, SIGKILL after 5 s) and waits for the console to drain. */
    @Override
    public void close() {
        // the descendants first, while they are still QEMU's: once it is gone they are nobody's
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        tree.add(process.toHandle());
        for (ProcessHandle h : tree) {
            h.destroy();
        }
        boolean interrupted = false;
        for (ProcessHandle h : tree) {
            try {
                h.onExit().get(GRACE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException | ExecutionException e) {
                LOG.warn("QEMU process {} ignored SIGTERM: killing it", h.pid());
                h.destroyForcibly();
            } catch (InterruptedException e) {
                interrupted = true;
                h.destroyForcibly();
            }
        }
        try {
            reader.join(GRACE.toMillis());
        } catch (InterruptedException e) {
            interrupted = true;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
