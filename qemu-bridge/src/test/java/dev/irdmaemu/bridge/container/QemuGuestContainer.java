package dev.irdmaemu.bridge.container;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.WaitContainerResultCallback;
import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.GuestLaunch;
import dev.irdmaemu.bridge.kit.GuestResult;
import dev.irdmaemu.bridge.kit.QemuProcess;
import java.io.BufferedWriter;
import java.io.IOException;
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
 * SLF4J logger {@value QemuProcess#CONSOLE_LOGGER} (DEBUG) and to a console log file; the container counts as
 * started when the guest prints its {@link GuestResult} line, which {@link #result()} then gives.
 *
 * <p>The container has no network ({@code --network none}): the guest's only NIC, if any, is virtio-net served by
 * a vhost-user backend on the host through a UNIX socket, whose folder is bind-mounted at {@value #VHOST_DIR}.
 * Nothing is pulled ({@link PullPolicy#defaultPolicy()}: the image is local).
 */
public class QemuGuestContainer extends GenericContainer<QemuGuestContainer> {
    /** Where the guest image holds the kit (build-image.sh's KIT_IN_IMAGE). */
    public static final String KIT_IN_IMAGE = "/kit";
    /** Where the folder of the host's vhost-user socket appears in the container. */
    public static final String VHOST_DIR = "/vhost";
    private static final Logger LOG = LoggerFactory.getLogger(QemuGuestContainer.class);
    private static final Logger CONSOLE = LoggerFactory.getLogger(QemuProcess.CONSOLE_LOGGER);
    private static final int TAIL_LINES = 40;

    private final GuestLaunch launch;
    private final CompletableFuture<GuestResult> result = new CompletableFuture<>();
    private final ArrayDeque<String> tail = new ArrayDeque<>();
    private final StringBuilder partial = new StringBuilder();
    private Path consoleLog;
    private BufferedWriter log;
    private Duration resultTimeout = Duration.ofSeconds(120);
    private long startedNanos;

    /** A guest of {@code kit} (the host's copy: its manifest) in {@code image} (one {@link GuestImage#of} built). */
    public QemuGuestContainer(String image, GuestKit kit) {
        super(image);
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

    /** Configures the launch in place; for chaining. */
    public QemuGuestContainer withLaunch(Consumer<GuestLaunch> settings) {
        settings.accept(launch);
        return self();
    }

    /**
     * A virtio-net NIC served by the vhost-user backend listening on the host's {@code socket}: its folder is
     * bind-mounted at {@value #VHOST_DIR} and QEMU connects to the socket there.
     */
    public QemuGuestContainer withVhostUserNic(Path socket, String mac) {
        Path s = socket.toAbsolutePath();
        Path dir = Objects.requireNonNull(s.getParent(), "the socket's folder");
        withFileSystemBind(dir.toString(), VHOST_DIR, BindMode.READ_WRITE);
        launch.vhostUserNic(Path.of(VHOST_DIR).resolve(s.getFileName().toString()), mac);
        return self();
    }

    /** Where the console goes as a file too (replaced); none unless told. */
    public QemuGuestContainer withConsoleLog(Path file) {
        this.consoleLog = file;
        return self();
    }

    /** How long the guest has to print its result line (default 120 s: a guard against a hung guest). */
    public QemuGuestContainer withResultTimeout(Duration timeout) {
        this.resultTimeout = Objects.requireNonNull(timeout, "timeout");
        return self();
    }

    @Override
    protected void configure() {
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
