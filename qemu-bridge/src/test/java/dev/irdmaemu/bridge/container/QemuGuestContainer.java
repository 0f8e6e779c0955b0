package dev.irdmaemu.bridge.container;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.WaitContainerResultCallback;
import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.GuestLaunch;
import dev.irdmaemu.bridge.kit.GuestResult;
import dev.irdmaemu.bridge.kit.MissingGuestKitException;
import dev.irdmaemu.bridge.kit.QemuProcess;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.output.OutputFrame;
import org.testcontainers.containers.startupcheck.StartupCheckStrategy;
import org.testcontainers.containers.wait.strategy.AbstractWaitStrategy;
import org.testcontainers.images.PullPolicy;

/**
 * A QEMU guest in a container: the {@linkplain GuestImage guest image} runs the kit's QEMU (TCG) with the command
 * line {@link GuestLaunch} builds, for a copy of the kit inside the image at {@value #KIT_IN_IMAGE}. The scenario
 * goes on the kernel command line; the serial console (the container's output) is streamed line by line to the
 * SLF4J logger {@value QemuProcess#CONSOLE_LOGGER} (DEBUG), to a console log file and to a {@linkplain
 * #withConsoleListener listener}; the container counts as started when the guest prints its {@link GuestResult}
 * line, which {@link #result()} then gives. The guest's serial input, when asked for, is a UNIX socket in a shared
 * folder ({@link #withConsoleSocket}, {@link #typeLine}).
 *
 * <p>The container has no network ({@code --network none}): the guest's only NIC, if any, is virtio-net served by
 * a vhost-user backend on the host through a UNIX socket. Host folders QEMU needs (the socket's, an initramfs with
 * the scenarios laid over it) are {@linkplain #withSharedFolder shared}: bind-mounted at the same path, so a path
 * means the same file on both sides. Nothing is pulled ({@link PullPolicy#defaultPolicy()}: the image is local).
 */
public class QemuGuestContainer extends GenericContainer<QemuGuestContainer> {
    /** Where the guest image holds the kit (build-image.sh's KIT_IN_IMAGE). */
    public static final String KIT_IN_IMAGE = "/kit";
    private static final Logger LOG = LoggerFactory.getLogger(QemuGuestContainer.class);
    private static final Logger CONSOLE = LoggerFactory.getLogger(QemuProcess.CONSOLE_LOGGER);
    private static final int TAIL_LINES = 40;

    private GuestLaunch launch;
    private final GuestKit kit;
    private final CompletableFuture<GuestResult> result = new CompletableFuture<>();
    private final ArrayDeque<String> tail = new ArrayDeque<>();
    private final Set<Path> shared = new LinkedHashSet<>();
    private final StringBuilder partial = new StringBuilder();
    private Path consoleLog;
    private BufferedWriter log;
    private Duration resultTimeout = Duration.ofSeconds(120);
    private long startedNanos;
    private Thread starter;
    private final List<String> created = new CopyOnWriteArrayList<>();
    private Consumer<String> lines;
    private ConsoleSocketClient consoleInput;

    /** A guest of {@code kit} (the host's copy: its manifest) in {@code image} (one {@link GuestImage#of} built). */
    public QemuGuestContainer(String image, GuestKit kit) {
        super(image);
        this.kit = kit;
        this.launch = kit.relocatedTo(Path.of(KIT_IN_IMAGE)).launch();
        withImagePullPolicy(PullPolicy.defaultPolicy());
        withNetworkMode("none");
        withStartupAttempts(1);
        withStartupCheckStrategy(new StartedByTheResultLine());
        withLogConsumer(new ConsoleLines());
        waitingFor(new ResultLine());
    }

    /** The launch to configure (scenario, siw build, memory, kernel arguments); its paths are the image's. */
    public GuestLaunch launch() {
        return launch;
    }

    /**
     * Switches the guest to the kit's e810 flavour (Linux 7.3, ice.ko, irdma.ko; the image holds the whole kit) and
     * answers its launch, a fresh one: what was configured on the previous launch is dropped.
     */
    public GuestLaunch launchE810() throws MissingGuestKitException {
        launch = kit.relocatedTo(Path.of(KIT_IN_IMAGE)).e810().launch();
        return launch;
    }

    /** Configures the launch in place; for chaining. */
    public QemuGuestContainer withLaunch(Consumer<GuestLaunch> settings) {
        settings.accept(launch);
        return self();
    }

    /**
     * A virtio-net NIC served by the vhost-user backend listening on the host's {@code socket}: its folder is
     * {@linkplain #withSharedFolder shared} and QEMU connects to the socket there.
     */
    public QemuGuestContainer withVhostUserNic(Path socket, String mac) {
        Path s = socket.toAbsolutePath();
        withSharedFolder(Objects.requireNonNull(s.getParent(), "the socket's folder"));
        launch.vhostUserNic(s, mac);
        return self();
    }

    /**
     * Bind-mounts the host's folder {@code dir} (read-write) at the same path in the container, so the launch can
     * name files and sockets in it by their host paths. Sharing a folder twice mounts it once.
     */
    public QemuGuestContainer withSharedFolder(Path dir) {
        shared.add(dir.toAbsolutePath().normalize());
        return self();
    }

    /** The host folders {@linkplain #withSharedFolder shared} with the container. */
    public Set<Path> sharedFolders() {
        return Set.copyOf(shared);
    }

    /** Where the console goes as a file too (replaced); none unless told. */
    public QemuGuestContainer withConsoleLog(Path file) {
        this.consoleLog = file;
        return self();
    }

    /**
     * Hands every console line (terminal control removed) to {@code lines}, in order, before the result line is
     * looked for, on the thread that reads the container's output; as {@code QemuProcess.startInteractive} does
     * for a local QEMU.
     */
    public QemuGuestContainer withConsoleListener(Consumer<String> lines) {
        this.lines = Objects.requireNonNull(lines, "lines");
        return self();
    }

    /**
     * Opens the guest's serial input to {@link #typeLine}: the launch gets its console on the UNIX socket {@code
     * socket} as well ({@link GuestLaunch#consoleSocket}), in a folder that is {@linkplain #withSharedFolder shared};
     * the console's output still comes from the container's output. The container's own stdin stays closed.
     */
    public QemuGuestContainer withConsoleSocket(Path socket) {
        Path s = socket.toAbsolutePath();
        withSharedFolder(Objects.requireNonNull(s.getParent(), "the socket's folder"));
        this.consoleInput = new ConsoleSocketClient(s);
        return self();
    }

    /**
     * Types {@code line} and a newline on the guest's serial input, through the console socket ({@link
     * #withConsoleSocket}; an {@link IllegalStateException} without one). The first line connects, waiting up to
     * 30 s for QEMU to have made the socket; a QEMU that is gone is an {@link IOException}.
     */
    public void typeLine(String line) throws IOException {
        ConsoleSocketClient in = consoleInput;
        if (in == null) {
            throw new IllegalStateException("the guest container was configured without console input");
        }
        in.typeLine(line);
    }

    /** How long the guest has to print its result line (default 120 s: a guard against a hung guest). */
    public QemuGuestContainer withResultTimeout(Duration timeout) {
        this.resultTimeout = Objects.requireNonNull(timeout, "timeout");
        return self();
    }

    @Override
    protected void configure() {
        for (Path dir : shared) {
            withFileSystemBind(dir.toString(), dir.toString(), BindMode.READ_WRITE);
        }
        if (consoleInput != null) {
            launch.consoleSocket(consoleInput.socket());
        }
        withCommand(launch.command().toArray(String[]::new));
        if (consoleLog != null) {
            try {
                Path parent = consoleLog.toAbsolutePath().getParent();
                if (parent != null) {
                    Files.createDirectories(parent);
                }
                log = Files.newBufferedWriter(consoleLog, StandardCharsets.UTF_8);
                log.write("# " + getDockerImageName() + ": " + String.join(" ", launch.command()));
                log.newLine();
                log.flush();
            } catch (IOException e) {
                throw new IllegalStateException("cannot write the console log " + consoleLog + ": " + e.getMessage(), e);
            }
        }
        LOG.info("starting a guest container ({}): {}", getDockerImageName(), String.join(" ", launch.command()));
        startedNanos = System.nanoTime();
    }

    /**
     * Starts the container on a thread of its own and answers at once: the guest's result line as it comes in,
     * completed exceptionally when the container fails to start or its console closes first. For callers that
     * wait in slices themselves (a {@link dev.irdmaemu.bridge.run.BootRun}); {@link #start()} waits for the line.
     */
    public CompletionStage<GuestResult> startAsync() {
        Thread starter = new Thread(() -> {
            try {
                start();
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        }, "guest container start");
        starter.setDaemon(true);
        synchronized (this) {
            if (this.starter != null) {
                throw new IllegalStateException("the guest container was started already");
            }
            this.starter = starter;
        }
        starter.start();
        return result.minimalCompletionStage();
    }

    /**
     * Waits up to {@code timeout} for a {@link #startAsync()} start to return (with the result line or a failure);
     * true when it did, or when there was none.
     */
    public boolean awaitStart(Duration timeout) throws InterruptedException {
        Thread t;
        synchronized (this) {
            t = starter;
        }
        if (t == null) {
            return true;
        }
        t.join(Math.max(1, timeout.toMillis()));
        return !t.isAlive();
    }

    @Override
    protected void containerIsCreated(String containerId) {
        created.add(containerId);
        super.containerIsCreated(containerId);
    }

    /** The ids of the containers this made (one per start), kept after {@link #stop()} forgets them. */
    public List<String> createdIds() {
        return List.copyOf(created);
    }

    /** The guest's result line; only once {@link #start()} returned (it waits for the line). */
    public GuestResult result() {
        if (!result.isDone() || result.isCompletedExceptionally()) {
            throw new IllegalStateException("the guest has not printed its result line");
        }
        return result.join();
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

    /**
     * Waits for the container to end by itself (the guest powers off after its result line and QEMU exits): its
     * exit code (QEMU's), if it did within {@code timeout}.
     */
    public OptionalInt awaitExit(Duration timeout) throws InterruptedException {
        DockerClient client = getDockerClient();
        try (WaitContainerResultCallback wait = client.waitContainerCmd(getContainerId()).exec(new WaitContainerResultCallback())) {
            return OptionalInt.of(wait.awaitStatusCode(timeout.toMillis(), TimeUnit.MILLISECONDS));
        } catch (com.github.dockerjava.api.exception.DockerClientException e) {
            // awaitStatusCode's way of saying "not within the timeout"
            return OptionalInt.empty();
        } catch (IOException e) {
            throw new IllegalStateException("waiting for the container: " + e.getMessage(), e);
        }
    }

    @Override
    public void stop() {
        try {
            super.stop();
        } finally {
            if (consoleInput != null) {
                consoleInput.close();
            }
            closeLog();
        }
    }

    private synchronized void closeLog() {
        if (log != null) {
            try {
                log.close();
            } catch (IOException e) {
                LOG.warn("console log {}: {}", consoleLog, e.getMessage());
            }
            log = null;
        }
    }

    private String tailText() {
        List<String> t = consoleTail();
        return t.isEmpty() ? " (the console stayed empty)" : "; the console's last lines:\n  " + String.join("\n  ", t);
    }

    private synchronized void line(String raw) {
        String line = QemuProcess.consoleLine(raw);
        Duration since = Duration.ofNanos(System.nanoTime() - startedNanos);
        CONSOLE.debug("{}", line);
        writeLog(line);
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
                writeLog("# result after " + since.toMillis() + " ms");
                result.complete(r);
            });
        }
    }

    private void writeLog(String line) {
        if (log == null) {
            return;
        }
        try {
            log.write(line);
            log.newLine();
            log.flush();
        } catch (IOException e) {
            LOG.warn("console log {}: {}", consoleLog, e.getMessage());
        }
    }

    /** Docker hands the output over in frames that need not end at a line end: this puts the lines back together. */
    private final class ConsoleLines implements Consumer<OutputFrame> {
        @Override
        public void accept(OutputFrame frame) {
            synchronized (QemuGuestContainer.this) {
                if (frame == OutputFrame.END || frame.getType() == OutputFrame.OutputType.END) {
                    if (partial.length() > 0) {
                        line(partial.toString());
                        partial.setLength(0);
                    }
                    writeLog("# console closed after " + Duration.ofNanos(System.nanoTime() - startedNanos).toMillis() + " ms");
                    result.completeExceptionally(new IllegalStateException("the guest container's console closed before a result line"
                            + tailText()));
                    return;
                }
                String text = frame.getUtf8String();
                int from = 0;
                for (int nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', from)) {
                    partial.append(text, from, nl);
                    line(partial.toString());
                    partial.setLength(0);
                    from = nl + 1;
                }
                partial.append(text, from, text.length());
            }
        }
    }

    /** The container counts as started once the guest printed its result line (or fails with the console's tail). */
    private final class ResultLine extends AbstractWaitStrategy {
        @Override
        protected void waitUntilReady() {
            try {
                result.get(resultTimeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                throw new IllegalStateException("no result line from the guest within " + resultTimeout.toSeconds() + " s"
                        + tailText(), e);
            } catch (ExecutionException e) {
                throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the guest's result line", e);
            }
        }
    }

    /**
     * The guest may power off (and the container end) right after its result line, before Testcontainers looks:
     * "is it running" is the wrong check; {@link ResultLine} is the one that counts.
     */
    private static final class StartedByTheResultLine extends StartupCheckStrategy {
        @Override
        public StartupStatus checkStartupState(DockerClient client, String containerId) {
            return StartupStatus.SUCCESSFUL;
        }
    }
}
