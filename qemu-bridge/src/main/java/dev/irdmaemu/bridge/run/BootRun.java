package dev.irdmaemu.bridge.run;

import dev.irdmaemu.bridge.boot.BootOptions;
import dev.irdmaemu.bridge.boot.BootScenario;
import dev.irdmaemu.bridge.boot.GuestModules;
import dev.irdmaemu.bridge.boot.GuestWire;
import dev.irdmaemu.bridge.boot.HostedNode;
import dev.irdmaemu.bridge.boot.HostedService;
import dev.irdmaemu.bridge.boot.NodeCounters;
import dev.irdmaemu.bridge.boot.PassiveRefusalTrace;
import dev.irdmaemu.bridge.boot.QemuHost;
import dev.irdmaemu.bridge.boot.ScenarioOverlay;
import dev.irdmaemu.bridge.boot.ServiceOutcome;
import dev.irdmaemu.bridge.boot.SiwCrcModule;
import dev.irdmaemu.bridge.boot.TempFolders;
import dev.irdmaemu.bridge.run.BootReport.Status;
import dev.irdmaemu.bridge.kit.GuestBootException;
import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.GuestLaunch;
import dev.irdmaemu.bridge.kit.GuestResult;
import dev.irdmaemu.bridge.vhost.VhostNetPort;
import dev.irdmaemu.bridge.e810.E810Host;
import dev.irdmaemu.bridge.e810.E810PairRun;
import dev.irdmaemu.bridge.e810.E810ProbeRun;
import dev.irdmaemu.bridge.kit.MissingGuestKitException;
import dev.irdmaemu.model.E810Holdings;
import dev.irdmaemu.bridge.kit.VfioUserDevice;
import dev.irdmaemu.bridge.vhost.VhostUserBackend;
import dev.irdmaemu.fw.pcap.PcapWriter;
import dev.irdmaemu.fw.pcap.TimestampResolution;
import dev.irdmaemu.model.trace.JsonLinesTraceSink;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code irdma-emu boot}: the hosted node with the scenario's services, its port served over vhost-user, QEMU
 * booting the guest kit against it, the console streamed to a log, the wire to a pcap and the model's trace to
 * JSON lines, all in the run folder; then the guest's result, the node's counters, and a teardown that leaves
 * nothing behind on every path: QEMU killed, the socket and the temporary initramfs removed, the model thread
 * stopped. The command line and the end-to-end tests both boot through here.
 *
 * <p>{@link #run()} runs it on the calling thread; {@link #abort()} (Ctrl-C's shutdown hook, or a test) ends it
 * from another thread, and {@link #close()} waits for the teardown.
 *
 * <p>The run folder holds {@code console.log} (QEMU's serial console), {@code wire.pcap} (every frame between the
 * guest and the node, nanosecond timestamps in simulated time: the model's clock, paced to the wall clock since
 * the node came up) and {@code trace.jsonl} (the model's trace and the CM's refusals, same clock). The vhost-user
 * socket and the initramfs with the scenarios laid over it live in a private temporary folder (a socket path must
 * stay under 108 bytes), removed at the end.
 */
public final class BootRun implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BootRun.class);
    /** How long clients among the services get, after the guest's result, to report. */
    static final Duration SERVICE_GRACE = Duration.ofSeconds(5);
    /** The guest powers off after its result line: QEMU's own exit is waited for this long before a kill. */
    static final Duration POWER_OFF = Duration.ofSeconds(10);
    private static final Duration MODEL_CALL = Duration.ofSeconds(10);
    /** After the services stop: how long the node gets to finish its closes (TIME_WAIT, QP close timers). */
    static final Duration SETTLE = Duration.ofSeconds(5);
    private static final long SLICE_MILLIS = 250;

    public static final String CONSOLE = "console.log";
    public static final String PCAP = "wire.pcap";
    public static final String TRACE = "trace.jsonl";
    /** The vhost port's hand-off stamps, written only when asked for ({@code HandOffTrace.PROPERTY}). */
    public static final String HAND_OFFS = "handoffs.tsv";
    /** With the E810 NIC: the emulated E810's own trace (every register access, AQ command, CQP op of ice/irdma). */
    public static final String E810_TRACE = "e810-trace.jsonl";

    private final GuestKit kit;
    private final BootOptions options;
    private final Consumer<String> progress;
    private final Path console;
    private final Path pcapFile;
    private final Path traceFile;
    private final List<HostedService> services;
    private volatile boolean aborted;
    private final QemuHost host;
    private volatile QemuHost.Running qemu;
    private boolean tornDown;
    private Path temp;
    private PcapWriter pcap;
    private Writer trace;
    private HostedNode node;
    private VhostUserBackend backend;
    private VhostNetPort port;
    private E810Host e810;
    private Writer e810Trace;
    private BootReport.E810Left e810Left;
    private boolean servicesStopped;
    private Duration nodeUp;
    private long runStart;
    private final List<ServiceOutcome> outcomes = new ArrayList<>();

    public BootRun(GuestKit kit, BootOptions options, Consumer<String> progress) {
        this(kit, options, progress, QemuHost.LOCAL);
    }

    /** A boot whose QEMU runs on {@code host} (e.g. in a container) instead of as a child process here. */
    public BootRun(GuestKit kit, BootOptions options, Consumer<String> progress, QemuHost host) {
        this.host = Objects.requireNonNull(host, "host");
        this.kit = kit;
        this.options = options;
        this.progress = progress == null ? s -> { } : progress;
        this.console = options.runDir().resolve(CONSOLE);
        this.pcapFile = options.runDir().resolve(PCAP);
        this.traceFile = options.runDir().resolve(TRACE);
        this.services = options.scenario().services();
    }

    /** Boots, waits for the guest's result, tears down; never throws for what the guest or QEMU did. */
    public BootReport run() throws InterruptedException {
        long start = System.nanoTime();
        runStart = start;
        Status status;
        String failure = "";
        GuestResult guest = null;
        NodeCounters counters = null;
        NodeCounters end = null;
        long qemuStarted = 0;
        Duration bootToResult = null;
        try {
            setUp();
            qemuStarted = startGuest();
            guest = awaitGuest();
            bootToResult = Duration.ofNanos(qemuStarted - start).plus(guest.afterStart());
            progress.accept(String.format("guest result after %.1f s: %s", bootToResult.toMillis() / 1000.0,
                    guest.ok() ? "ok" : "FAILED at step " + guest.field("step")));
            awaitServices();
            counters = countersNow();
            stopServices();
            end = settled();
            List<String> problems = new ArrayList<>();
            if (e810 != null) {
                e810Left = e810AfterPowerOff();
                if (e810Left == null) {
                    problems.add("QEMU did not power off within " + POWER_OFF.toSeconds() + " s");
                } else if (!e810Left.empty()) {
                    problems.add("the E810 model holds objects of the guest's drivers after its poweroff: "
                            + e810Left.holdings());
                }
            }
            if (!guest.ok()) {
                problems.add("the guest failed at step " + guest.field("step")
                        + (guest.field("reason").isEmpty() ? "" : ": " + guest.field("reason")));
            }
            for (ServiceOutcome o : outcomes) {
                if (!o.ok()) {
                    problems.add("the node's " + o.service() + " failed");
                }
            }
            if (node.loop().failure() != null) {
                problems.add("the model failed: " + node.loop().failure());
            }
            status = problems.isEmpty() ? Status.OK : Status.FAILED;
            failure = String.join("; ", problems);
        } catch (TimeoutException e) {
            status = Status.TIMEOUT;
            failure = "no result line from the guest within " + options.timeout().toSeconds() + " s (console: "
                    + console + ")";
        } catch (GuestBootException | BootFailure | IOException | RuntimeException e) {
            status = aborted ? Status.ABORTED : Status.ERROR;
            failure = aborted ? "interrupted" : String.valueOf(e.getMessage()); // with the console's last lines
            if (!aborted) {
                LOG.debug("boot failed", e);
            }
        } catch (InterruptedException e) {
            status = Status.ABORTED;
            failure = "interrupted";
            Thread.currentThread().interrupt();
        }
        if (aborted && status != Status.OK) {
            status = Status.ABORTED;
            failure = "interrupted (Ctrl-C)";
        }
        if (counters == null && node != null) {
            counters = quietly(this::countersNow);
        }
        close();
        return new BootReport(options.scenario(),
                options.nic() == BootOptions.Nic.E810 ? null : options.effectiveSiw(), status, guest, failure, counters, end,
                nodeUp, outcomes, options.runDir(), console, pcapFile, traceFile, bootToResult,
                guest == null ? null : guest.afterStart(), Duration.ofNanos(System.nanoTime() - start), e810Left);
    }

    private void setUp() throws IOException, InterruptedException, TimeoutException {
        Files.createDirectories(options.runDir());
        progress.accept("run folder " + options.runDir());
        temp = Files.createTempDirectory("irdma-emu-boot-");
        pcap = PcapWriter.open(pcapFile, TimestampResolution.NANOSECONDS);
        trace = new BufferedWriter(Files.newBufferedWriter(traceFile, StandardCharsets.UTF_8), 1 << 16);
        GuestWire wire;
        if (options.nic() == BootOptions.Nic.E810) {
            e810Trace = new BufferedWriter(Files.newBufferedWriter(options.runDir().resolve(E810_TRACE),
                    StandardCharsets.UTF_8), 1 << 16);
            e810 = E810Host.start(temp.resolve(E810ProbeRun.VFIO_SOCKET), 0, E810ProbeRun.MAC, 1,
                    new JsonLinesTraceSink(e810Trace));
            progress.accept(String.format("emulated E810 (8086:1592, MAC %012x) serving vfio-user; its trace in %s",
                    E810ProbeRun.MAC, options.runDir().resolve(E810_TRACE)));
            wire = e810.wire();
        } else {
            port = new VhostNetPort("eth0");
            wire = GuestWire.of(port);
        }
        long t = System.nanoTime();
        node = new HostedNode(wire, pcap, new JsonLinesTraceSink(trace), System::nanoTime,
                options.scenario().nodeLink());
        node.cm.onPassiveRefusal(new PassiveRefusalTrace(trace, node.scheduler::now));
        node.start();
        nodeUp = Duration.ofNanos(System.nanoTime() - runStart);
        progress.accept(String.format("model node up in %d ms: E810 RDMA function, irdma driver layer, CM; %s, "
                + "192.0.2.1/24, 2001:db8::1/64", (System.nanoTime() - t) / 1_000_000, HostedNode.MAC_TEXT));
        node.loop().call(() -> {
            for (HostedService s : services) {
                s.start(node);
            }
            return null;
        }, MODEL_CALL);
        for (HostedService s : services) {
            progress.accept("node runs " + s.name());
        }
        if (port != null) {
            backend = VhostUserBackend.start(temp.resolve("vhost.sock"), port);
        }
    }

    /**
     * The peer-to-peer siw with MPA CRCs asked for ({@link SiwCrcModule}), for rping-throughput's like-for-like
     * figure; none (logged) when the kit's module cannot be patched.
     */
    private static Map<String, byte[]> siwCrcOverlay(GuestKit kit) {
        try {
            byte[] module = Files.readAllBytes(kit.siwPeerToPeerModule());
            return Map.of(SiwCrcModule.OVERLAY_PATH, SiwCrcModule.withCrcRequired(module));
        } catch (IOException e) {
            LOG.warn("no siw with MPA CRCs for the guest: {}", e.getMessage());
            return Map.of();
        }
    }

    /** Starts QEMU; answers System.nanoTime() at its start. */
    private long startGuest() throws IOException, GuestBootException, BootFailure {
        Path initrd = temp.resolve("initrd.img");
        GuestKit guestKit = kit;
        if (options.nic() == BootOptions.Nic.E810) {
            try {
                guestKit = kit.e810();
            } catch (MissingGuestKitException e) {
                throw new BootFailure(e.getMessage());
            }
        }
        Path base = options.initrd() != null ? options.initrd() : guestKit.initramfs();
        if (options.modules() != null) {
            // the user's kernel: its own ice.ko, irdma.ko and RDMA modules in place of the kit's
            ScenarioOverlay.write(base, initrd, GuestModules.overlay(options.modules(), guestKit.recipe()));
        } else if (options.nic() == BootOptions.Nic.VIRTIO && options.initrd() == null) {
            ScenarioOverlay.write(base, initrd, siwCrcOverlay(guestKit));
        } else {
            ScenarioOverlay.write(base, initrd);
        }
        GuestLaunch launch = host.launch(guestKit).scenario(options.scenario().word())
                .memoryMiB(options.memoryMiB()).initramfs(initrd);
        if (e810 != null) {
            launch.machine(GuestLaunch.Machine.Q35).kernelArgument("irdma_emu.nic=e810")
                    .kernelArgument(E810PairRun.NO_TIMER_CHECK)
                    .vfioUser(VfioUserDevice.socket(e810.server().socketPath()).id("e810")
                            .messageTimeout(Duration.ofSeconds(20)).build());
        } else {
            launch.siw(options.effectiveSiw()).vhostUserNic(backend.socketPath(), HostedNode.GUEST_MAC_TEXT);
            if (options.scenario() == BootScenario.PING) {
                // the round trip through a device of QEMU's own, measured beside the model's (ping.sh)
                launch.userNetBaseline();
            }
        }
        if (options.kernel() != null) {
            launch.kernel(options.kernel());
        }
        long t = System.nanoTime();
        synchronized (this) {
            if (aborted) {
                throw new BootFailure("interrupted");
            }
            qemu = host.start(launch, console, temp);
        }
        progress.accept(String.format("QEMU %s started (%s, TCG): %s, scenario %s, %s; console in %s",
                kit.property("qemu.reported").replaceAll("^QEMU emulator version ", ""), qemu.where(),
                options.kernel() != null ? options.kernel().toString() : "linux " + guestKit.kernelRelease(),
                options.scenario().word(), e810 != null ? "NIC e810 (ice, irdma)"
                        : "NIC virtio, siw " + options.effectiveSiw().word(), console));
        return t;
    }

    private GuestResult awaitGuest() throws InterruptedException, TimeoutException, GuestBootException, BootFailure {
        CompletableFuture<GuestResult> result = qemu.result().toCompletableFuture();
        long deadline = System.nanoTime() + options.timeout().toNanos();
        boolean linkSeen = false;
        while (true) {
            try {
                return result.get(SLICE_MILLIS, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof GuestBootException g) {
                    throw g;
                }
                throw new BootFailure("QEMU's console failed: " + e.getCause());
            } catch (TimeoutException e) {
                if (!linkSeen && port != null && port.linkUp()) {
                    linkSeen = true;
                    progress.accept("guest NIC up: QEMU connected over vhost-user and the guest started its rings");
                }
                if (!node.loop().isRunning()) {
                    throw new BootFailure("the model stopped: " + node.loop().failure());
                }
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
    }

    /**
     * With the E810: waits for QEMU to end (the guest powers off after its result line, and the kernel's shutdown
     * runs ice's and irdma's teardown on the way), then asks the model what it still holds; null when QEMU did not
     * end in time.
     */
    private BootReport.E810Left e810AfterPowerOff() throws InterruptedException, TimeoutException {
        if (qemu.awaitExit(POWER_OFF).isEmpty()) {
            return null;
        }
        E810Holdings held = e810.loop().call(() -> E810Holdings.of(e810.pf()), MODEL_CALL);
        return new BootReport.E810Left(held.count(E810Holdings.Kind.QPS), held.count(E810Holdings.Kind.CQS),
                held.total(E810Holdings.Side.RDMA), held.total(E810Holdings.Side.LAN), held.toString(), e810.server().counters().summary(),
                e810.cableSummary());
    }

    private void awaitServices() throws InterruptedException {
        long deadline = System.nanoTime() + SERVICE_GRACE.toNanos();
        for (HostedService s : services) {
            if (!s.reportsBeforeStop()) {
                continue; // a server reports when stopped
            }
            try {
                s.outcome().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException | TimeoutException e) {
                LOG.debug("{} has no outcome yet", s.name());
            }
        }
    }

    /** The node's counters once it has nothing left to give back, or after {@link #SETTLE}. */
    private NodeCounters settled() throws InterruptedException, TimeoutException {
        return node.loop().await(node::counters, c -> c.leaks().isEmpty(), SETTLE);
    }

    private NodeCounters countersNow() throws InterruptedException, TimeoutException {
        return node.loop().call(node::counters, MODEL_CALL);
    }

    private void stopServices() throws InterruptedException, TimeoutException {
        if (servicesStopped || node == null) {
            return;
        }
        servicesStopped = true;
        node.loop().call(() -> {
            for (HostedService s : services) {
                try {
                    s.stop(node);
                } catch (RuntimeException e) {
                    LOG.error("{} failed to stop: {}", s.name(), e.toString(), e);
                }
            }
            return null;
        }, MODEL_CALL);
        for (HostedService s : services) {
            ServiceOutcome o = s.outcome().getNow(null);
            outcomes.add(o != null ? o : new ServiceOutcome(s.name(), false, java.util.Map.of("outcome", "none")));
        }
    }

    /** Ends the run from another thread (Ctrl-C): QEMU is killed, {@link #run()} tears down and returns. */
    public void abort() {
        QemuHost.Running q;
        synchronized (this) {
            aborted = true;
            q = qemu;
        }
        if (q != null) {
            q.close();
        }
    }

    public boolean aborted() {
        return aborted;
    }

    /** The run folder's files and the temporary folder, for tests that check the teardown. */
    public Path temporaryFolder() {
        return temp;
    }

    /** Tears everything down (once; a second call waits for the first): QEMU, socket, node, files. */
    @Override
    public synchronized void close() {
        if (tornDown) {
            return;
        }
        tornDown = true;
        QemuHost.Running q = qemu;
        if (q != null) {
            try {
                if (!aborted && q.awaitExit(POWER_OFF).isEmpty()) {
                    LOG.debug("QEMU did not power off by itself: killing it");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            q.close();
        }
        if (backend != null) {
            backend.close();
        }
        writeHandOffs();
        if (node != null) {
            quietly(() -> {
                stopServices();
                return null;
            });
            node.close();
        }
        if (e810 != null) {
            e810.close();
        }
        closeQuietly(e810Trace);
        closeQuietly(pcap);
        closeQuietly(trace);
        TempFolders.delete(temp);
        progress.accept("torn down: QEMU ended, socket and temporary files removed, model stopped");
    }

    /** The port's hand-off stamps into the run folder, when they were asked for ({@code -Dirdmaemu.vhost.handoffs=N}). */
    private void writeHandOffs() {
        if (port == null || !port.handOffs().enabled()) {
            return;
        }
        Path file = options.runDir().resolve(HAND_OFFS);
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            port.handOffs().writeTo(w);
            progress.accept("vhost hand-off stamps (" + port.handOffs().recorded() + " recorded) in " + file);
        } catch (IOException e) {
            LOG.warn("cannot write {}: {}", file, e.toString());
        }
    }

    private interface ModelCall<T> {
        T call() throws InterruptedException, TimeoutException;
    }

    private <T> T quietly(ModelCall<T> c) {
        try {
            return c.call();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (TimeoutException | RuntimeException e) {
            LOG.warn("the model did not answer during the teardown: {}", e.toString());
        }
        return null;
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            LOG.warn("closing {}: {}", c, e.toString());
        }
    }
}
