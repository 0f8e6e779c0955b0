package dev.irdmaemu.bridge.e810;

import dev.irdmaemu.bridge.boot.BootScenario;
import dev.irdmaemu.bridge.boot.GuestWire;
import dev.irdmaemu.bridge.boot.HostedNode;
import dev.irdmaemu.bridge.boot.RpingServerService;
import dev.irdmaemu.bridge.kit.GuestLaunch;
import dev.irdmaemu.bridge.kit.VfioUserDevice;
import dev.irdmaemu.bridge.vfiouser.VfioUserServer;
import dev.irdmaemu.bridge.vfiouser.VfioUserSessionListener;
import dev.irdmaemu.bridge.vhost.VhostNetPort;
import dev.irdmaemu.bridge.vhost.VhostUserBackend;
import dev.irdmaemu.cm.rping.RpingOptions;
import dev.irdmaemu.fw.pcap.PcapWriter;
import dev.irdmaemu.fw.pcap.TimestampResolution;
import dev.irdmaemu.model.E810PhysicalFunction;
import dev.irdmaemu.model.trace.JsonLinesTraceSink;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import dev.irdmaemu.model.trace.TraceSink;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The emulated E810 for a QEMU the user starts: one adapter ({@link E810Host}) of {@code N} physical functions (PF
 * numbers 0..N-1, MACs 02:00:5e:10:00:01 on, one Device Serial Number) on one model loop, one embedded switch and
 * one Ethernet cable, each function on its own vfio-user socket, up until {@link #close()}. {@link #qemuArguments()}
 * are what to add to QEMU's command line: the guest RAM as a shared memfd (the device does DMA into it), q35, and one
 * pcie-root-port holding the functions as 0.0 .. 0.N-1 ({@code vfio-user-pci} devices in the JSON form QEMU 11.1
 * requires, the first with multifunction on), as a multi-port card sits in one slot.
 *
 * <p>Any number of QEMU processes may come one after another: each function serves one client at a time (a second
 * one is refused and logged, the first unharmed), and when a client that got past VERSION leaves, the function is
 * reset to power-on before the next one can connect, so a new QEMU finds the card as a freshly started machine
 * does, with nothing left on the model (QPs, CQs, VSIs, Tx queues). A guest reboot needs nothing of ours: QEMU
 * sends DEVICE_RESET, ice may FLR the function, the windows are unmapped and mapped again.
 *
 * <p>The run folder gets {@value #SESSIONS_LOG} (one line per client connect, refusal, disconnect, device reset,
 * FLR and power-on reset, with the time and the counters), {@value #TRACE} (the model's trace of every function, a
 * {@code "pf"} field telling them apart) and {@value #QEMU_ARGUMENTS} (the arguments, one per line).
 */
public final class E810Serve implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(E810Serve.class);
    public static final String SESSIONS_LOG = "sessions.log";
    public static final String TRACE = "trace.jsonl";
    public static final String QEMU_ARGUMENTS = "qemu-args.txt";
    /** The hosted node's wire: every frame between function 0's port and the node. */
    public static final String PCAP = "wire.pcap";
    /** Frames the adapter's switch turned around between (or back into) its functions: they never reach the cable. */
    public static final String SWITCH_PCAP = "switch.pcap";
    /** With {@code vhostUser}: the virtio-net NIC's wire, to its own hosted node. */
    public static final String VHOST_PCAP = "vhost-wire.pcap";
    /** The hosted node's own trace (its RDMA function, CM). */
    public static final String NODE_TRACE = "node-trace.jsonl";
    /** Function {@code i}'s permanent MAC is this plus {@code i} (02:00:5e:10:00:01, ...: locally administered). */
    public static final long FIRST_MAC = E810ProbeRun.MAC;
    /** The hosted node's addresses and the guest's ({@link HostedNode}'s documentation-range constants). */
    static final String NODE_V4 = "192.0.2.1";
    static final String NODE_V6 = "2001:db8::1";
    static final String GUEST_V4 = "192.0.2.2";
    static final String GUEST_V6 = "2001:db8::2";
    /** PFs of one E810 (ice's PF numbers 0..7). */
    public static final int MAX_FUNCTIONS = 8;
    private static final Duration MODEL_TIMEOUT = Duration.ofSeconds(10);
    private static final long TRACE_FLUSH_MILLIS = 1000;

    /**
     * What to serve: {@code functions} PFs, their sockets {@code e810-<i>.sock} in {@code socketDir}, the run
     * folder {@code runDir}, the guest RAM size the printed arguments give QEMU, QEMU's {@code x-msg-timeout},
     * whether to write the model's trace, whether the hosted node sits on function 0's Ethernet cable, and where
     * to serve a virtio-net NIC over vhost-user with a hosted node of its own (the guest's siw path; null: none),
     * and whether the node on function 0's cable runs rping's server ({@code rping -s -a 192.0.2.1 -p 7174 -V}),
     * listening again after each client.
     */
    public record Settings(int functions, Path socketDir, Path runDir, int memoryMiB, Duration messageTimeout,
                           boolean trace, boolean node, Path vhostUser, boolean rpingServer) {
        public Settings {
            if (functions < 1 || functions > MAX_FUNCTIONS) {
                throw new IllegalArgumentException("an E810 has 1.." + MAX_FUNCTIONS + " functions: " + functions);
            }
            Objects.requireNonNull(socketDir, "socketDir");
            Objects.requireNonNull(runDir, "runDir");
            Objects.requireNonNull(messageTimeout, "messageTimeout");
            if (rpingServer && !node) {
                throw new IllegalArgumentException("the rping server runs on the hosted node: not without it");
            }
            GuestLaunch.sharedMemoryArguments(memoryMiB, GuestLaunch.Machine.Q35); // checks the size
        }
    }

    /** What the model holds at one moment (on its loop thread). */
    public record ModelCounts(int qps, int cqs, int vsis, int txQueues, long flrs, long deviceResets) {
        static ModelCounts of(E810PhysicalFunction pf) {
            return new ModelCounts(pf.rdma().qps().liveCount(), pf.rdma().cqs().liveCount(),
                    pf.switchAndScheduler().vsis().allocated(), pf.switchAndScheduler().txQueues().queueCount(),
                    pf.pci().flrs(), pf.pci().deviceResets());
        }

        /** Nothing a driver created is left. */
        public boolean empty() {
            return qps == 0 && cqs == 0 && vsis == 0 && txQueues == 0;
        }

        @Override
        public String toString() {
            return "qps=" + qps + " cqs=" + cqs + " vsis=" + vsis + " tx_queues=" + txQueues + " flrs=" + flrs
                    + " device_resets=" + deviceResets;
        }
    }

    private final Settings settings;
    private E810Host adapter;
    private PcapWriter switchPcap;
    private final List<VfioUserDevice> devices = new ArrayList<>();
    private final List<String> qemuArguments;
    private final BufferedWriter traceOut;
    private final Writer sessions;
    private final Thread flusher;
    private PcapWriter pcap;
    private BufferedWriter nodeTraceOut;
    private HostedNode node;
    private RpingServers rping;
    private PcapWriter vhostPcap;
    private HostedNode vhostNode;
    private VhostUserBackend vhostBackend;
    private final CountDownLatch closed = new CountDownLatch(1);
    private final long startNanos = System.nanoTime();

    private E810Serve(Settings s, Consumer<String> progress) throws IOException {
        this.settings = s;
        Files.createDirectories(s.runDir());
        createPrivateDirectory(s.socketDir());
        this.sessions = Files.newBufferedWriter(s.runDir().resolve(SESSIONS_LOG), StandardCharsets.UTF_8);
        this.traceOut = s.trace() ? Files.newBufferedWriter(s.runDir().resolve(TRACE), StandardCharsets.UTF_8)
                : new BufferedWriter(Writer.nullWriter());
        try {
            startFunctions(progress);
        } catch (IOException | RuntimeException e) {
            closeHosts();
            closeQuietly(traceOut);
            closeQuietly(sessions);
            throw e;
        } catch (InterruptedException | TimeoutException e) {
            closeHosts();
            closeQuietly(traceOut);
            closeQuietly(sessions);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IOException("the model loop did not answer: " + e, e);
        }
        if (s.node() || s.vhostUser() != null) {
            try {
                if (s.node()) {
                    startNode(progress);
                }
                if (s.vhostUser() != null) {
                    startVhostUser(progress);
                }
            } catch (IOException | RuntimeException e) {
                closeNode();
                closeHosts();
                closeQuietly(traceOut);
                closeQuietly(sessions);
                throw e;
            }
        }
        this.qemuArguments = qemuArgumentsFor(s);
        Files.write(s.runDir().resolve(QEMU_ARGUMENTS), qemuArguments, StandardCharsets.UTF_8);
        this.flusher = new Thread(this::flushPeriodically, "e810-serve trace flush");
        flusher.setDaemon(true);
        flusher.start();
    }

    /**
     * The adapter: each function's vfio-user device and socket, the model loop with every function on it (its
     * trace, or only its resets for the session log), and with more than one function the switch's tap.
     */
    private void startFunctions(Consumer<String> progress) throws IOException, InterruptedException,
            TimeoutException {
        Settings s = settings;
        List<Path> sockets = new ArrayList<>();
        List<FunctionSessions> listeners = new ArrayList<>();
        for (int i = 0; i < s.functions(); i++) {
            Path socket = s.socketDir().toAbsolutePath().resolve("e810-" + i + ".sock");
            devices.add(VfioUserDevice.socket(socket).id("e810-" + i).messageTimeout(s.messageTimeout())
                    .build()); // checks the path's length
            sockets.add(socket);
            listeners.add(new FunctionSessions(i));
        }
        adapter = E810Host.startAdapter(sockets, FIRST_MAC, 1,
                i -> s.trace() ? new FunctionTrace(i, listeners.get(i)) : null, listeners::get);
        for (int i = 0; i < s.functions(); i++) {
            serving(i, listeners.get(i), sockets.get(i), progress);
        }
        if (s.functions() > 1) {
            tapSwitch(progress);
        }
    }

    /** Function {@code i} is up on the adapter: its session listener bound, its resets watched, its start logged. */
    private void serving(int i, FunctionSessions listener, Path socket, Consumer<String> progress)
            throws InterruptedException, TimeoutException {
        listener.host = adapter;
        if (!settings.trace()) {
            // no trace file: only the resets are traced, for the session log's FLR lines
            ResetWatch watch = new ResetWatch(listener);
            adapter.loop().call(() -> adapter.trace(i).enable(watch, TraceKind.FUNCTION_RESET), MODEL_TIMEOUT);
        }
        long mac = FIRST_MAC + i;
        log("pf" + i, "serving", "mac=" + macText(mac) + " socket=" + socket);
        progress.accept(String.format("E810 PF %d (MAC %s, DSN %016x) serving vfio-user at %s", i,
                macText(mac), adapter.pf(i).pci().serialNumber(), socket));
    }

    /** The switch's tap: frames it turns around between the functions, in {@value #SWITCH_PCAP}. */
    private void tapSwitch(Consumer<String> progress) throws IOException, InterruptedException, TimeoutException {
        switchPcap = PcapWriter.open(settings.runDir().resolve(SWITCH_PCAP), TimestampResolution.NANOSECONDS);
        PcapWriter tap = switchPcap;
        adapter.loop().call(() -> {
            adapter.adapterSwitch().switchedTap(tap);
            return null;
        }, MODEL_TIMEOUT);
        progress.accept(String.format("the %d functions share one switch and one cable; frames between"
                + " them in %s", settings.functions(), settings.runDir().resolve(SWITCH_PCAP)));
    }

    /** What to add to QEMU's command line: shared guest RAM on q35, the functions, and the virtio-net NIC if any. */
    private List<String> qemuArgumentsFor(Settings s) {
        List<String> args = new ArrayList<>(GuestLaunch.sharedMemoryArguments(s.memoryMiB(), GuestLaunch.Machine.Q35));
        args.addAll(GuestLaunch.vfioUserArguments(List.of(devices)));
        if (s.vhostUser() != null) {
            args.addAll(GuestLaunch.vhostUserNicArguments(vhostBackend.socketPath(), HostedNode.GUEST_MAC_TEXT));
        }
        return List.copyOf(args);
    }

    /**
     * The hosted node (the Java iWARP/LAN peer: an E810 RDMA function brought up by the driver layer, the CM, the
     * LAN responder answering ARP, ND and echo for 192.0.2.1 and 2001:db8::1) at the far end of function 0's
     * Ethernet cable, every frame in {@value #PCAP}.
     */
    private void startNode(Consumer<String> progress) throws IOException {
        pcap = PcapWriter.open(settings.runDir().resolve(PCAP), TimestampResolution.NANOSECONDS);
        nodeTraceOut = new BufferedWriter(Files.newBufferedWriter(settings.runDir().resolve(NODE_TRACE),
                StandardCharsets.UTF_8), 1 << 16);
        TraceSink sink = settings.trace() ? new JsonLinesTraceSink(nodeTraceOut) : null;
        node = new HostedNode(adapter.wire(), pcap, sink, System::nanoTime).start();
        if (settings.rpingServer()) {
            rping = new RpingServers(node);
            try {
                node.loop().call(() -> {
                    rping.start();
                    return null;
                }, MODEL_TIMEOUT);
            } catch (InterruptedException | TimeoutException e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                throw new IOException("the hosted node did not start its rping server: " + e, e);
            }
            progress.accept("hosted node runs rping's server: rping -c -a " + NODE_V4 + " (port "
                    + BootScenario.RPING_PORT + ", -V), one client after another");
        }
        log("node", "up", "on pf0's cable: mac=" + HostedNode.MAC_TEXT + " " + NODE_V4 + "/24 "
                + NODE_V6 + "/64");
        progress.accept(String.format("hosted node on PF 0's cable: MAC %s, %s/24, %s/64 (answers ARP, ND, ping);"
                        + " give the guest's E810 netdev %s/24 and %s/64; frames in %s", HostedNode.MAC_TEXT,
                NODE_V4, NODE_V6, GUEST_V4,
                GUEST_V6, settings.runDir().resolve(PCAP)));
    }

    /**
     * {@code boot}'s path: a virtio-net NIC served over vhost-user at {@code vhostUser}, its far end a hosted node
     * of its own (same addresses, its own wire), for a guest whose siw talks iWARP to the model's RDMA function.
     * One QEMU at a time, one after another (VhostUserBackend).
     */
    private void startVhostUser(Consumer<String> progress) throws IOException {
        Path path = settings.vhostUser().toAbsolutePath();
        VfioUserServer.requireNobodyListening(path);
        VhostNetPort port = new VhostNetPort("eth0");
        vhostPcap = PcapWriter.open(settings.runDir().resolve(VHOST_PCAP), TimestampResolution.NANOSECONDS);
        vhostNode = new HostedNode(GuestWire.of(port), vhostPcap, null, System::nanoTime).start();
        vhostBackend = VhostUserBackend.start(path, port);
        log("vhost", "serving", "virtio-net (guest mac " + HostedNode.GUEST_MAC_TEXT + ") at " + path
                + ", its hosted node " + HostedNode.MAC_TEXT + " " + NODE_V4 + "/24 " + NODE_V6 + "/64");
        progress.accept(String.format("virtio-net NIC served over vhost-user at %s; its hosted node: MAC %s, %s/24,"
                + " %s/64 (give the guest's eth0 %s/24; siw on it reaches the node's iWARP); frames in %s", path,
                HostedNode.MAC_TEXT, NODE_V4, NODE_V6, GUEST_V4, settings.runDir().resolve(VHOST_PCAP)));
    }

    /**
     * rping's server on the node, for one client at a time as rping without {@code -P} serves: when a client's
     * connection ends (its result goes to the session log), the server is stopped and a new one listens. Loop
     * thread only.
     */
    private final class RpingServers {
        private final HostedNode on;
        private RpingServerService current;
        private int clients;
        private boolean stopped;

        RpingServers(HostedNode on) {
            this.on = on;
        }

        void start() {
            RpingServerService s = new RpingServerService("rping-server",
                    HostedNode.V4.withPort(BootScenario.RPING_PORT), RpingOptions.DEFAULT_SIZE);
            current = s;
            s.start(on);
            s.outcome().thenAccept(o -> {
                if (!stopped && current == s) {
                    clients++;
                    log("node", "rping", "client " + clients + ": " + o);
                    on.loop().execute(this::again);
                }
            });
        }

        private void again() {
            if (!stopped) {
                current.stop(on);
                start();
            }
        }

        void stop() {
            stopped = true;
            if (current != null) {
                current.stop(on);
            }
        }
    }

    /**
     * The far end of the adapter's Ethernet cable when no hosted node holds it (settings without the node), for
     * another carrier such as a VXLAN segment; empty when the node has it. Close whatever takes it before this.
     */
    public java.util.Optional<GuestWire> freeCable() {
        return node == null ? java.util.Optional.of(adapter.wire()) : java.util.Optional.empty();
    }

    /** The hosted node, or null when not asked for. Touch it on its loop only. */
    public HostedNode node() {
        return node;
    }

    private void closeNode() {
        if (vhostBackend != null) {
            vhostBackend.close();
        }
        if (vhostNode != null) {
            closeHosted(vhostNode, "the vhost-user NIC's node");
        }
        if (vhostPcap != null) {
            closeQuietly(vhostPcap);
        }
        if (node != null) {
            closeHosted(node, "the hosted node");
        }
        if (pcap != null) {
            closeQuietly(pcap);
        }
        if (nodeTraceOut != null) {
            closeQuietly(nodeTraceOut);
        }
    }

    /** Starts every function; {@code progress} hears one line for each. Fails whole (nothing left) or not at all. */
    public static E810Serve start(Settings settings, Consumer<String> progress) throws IOException {
        return new E810Serve(settings, progress);
    }

    /** The socket directory is made for this user only: another user's QEMU has no business on our sockets. */
    private static void createPrivateDirectory(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir);
            try {
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            } catch (UnsupportedOperationException e) {
                LOG.debug("{}: no POSIX permissions", dir);
            }
        }
    }

    static String macText(long mac) {
        StringBuilder b = new StringBuilder(17);
        for (int i = 5; i >= 0; i--) {
            b.append(String.format("%02x", mac >>> (8 * i) & 0xff));
            if (i > 0) {
                b.append(':');
            }
        }
        return b.toString();
    }

    public Settings settings() {
        return settings;
    }

    /** The arguments to add to QEMU's command line, in order (the JSON -device values unquoted). */
    public List<String> qemuArguments() {
        return qemuArguments;
    }

    /** The functions' devices as QEMU attaches them (socket, id, timeout). */
    public List<VfioUserDevice> devices() {
        return List.copyOf(devices);
    }

    /** The adapter: its functions' models, its loop, its switch and its vfio-user servers. */
    public E810Host adapter() {
        return adapter;
    }

    public int functions() {
        return adapter.functions();
    }

    public Path sessionsLog() {
        return settings.runDir().resolve(SESSIONS_LOG);
    }

    public Path traceFile() {
        return settings.runDir().resolve(TRACE);
    }

    /** What function {@code i}'s model holds now. */
    public ModelCounts counts(int i) throws InterruptedException, TimeoutException {
        return adapter.loop().call(() -> ModelCounts.of(adapter.pf(i)), MODEL_TIMEOUT);
    }

    /** Waits until {@link #close()} ran (from a signal's shutdown hook, say); false on timeout. */
    public boolean awaitClosed(Duration timeout) throws InterruptedException {
        return closed.await(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /** The arguments as one shell line: each quoted when it must be (the JSON values in single quotes). */
    public static String shellLine(List<String> arguments) {
        StringBuilder b = new StringBuilder();
        for (String a : arguments) {
            if (b.length() > 0) {
                b.append(' ');
            }
            b.append(shellQuoted(a));
        }
        return b.toString();
    }

    static String shellQuoted(String a) {
        if (!a.isEmpty() && a.chars().allMatch(c -> Character.isLetterOrDigit(c) || "-_=,.:/+@%".indexOf(c) >= 0)) {
            return a;
        }
        return "'" + a.replace("'", "'\\''") + "'";
    }

    // ---- the session log

    private void log(String who, String event, String details) {
        double since = (System.nanoTime() - startNanos) / 1e9;
        String line = String.format("%s +%.3fs %s %s %s%n", Instant.now(), since, who, event, details);
        synchronized (sessions) {
            try {
                sessions.write(line);
                sessions.flush();
            } catch (IOException e) {
                LOG.warn("{}: {}", SESSIONS_LOG, e.toString());
            }
        }
        LOG.info("{} {} {}", who, event, details);
        flushTrace();
    }

    /** One function's clients as the session log tells them, and its power-on reset between two of them. */
    private final class FunctionSessions implements VfioUserSessionListener {
        private final int pf;
        private final String who;
        volatile E810Host host;

        FunctionSessions(int pf) {
            this.pf = pf;
            this.who = "pf" + pf;
        }

        private String counters() {
            E810Host h = host;
            if (h == null) {
                return "";
            }
            String model;
            try {
                model = h.loop().call(() -> ModelCounts.of(h.pf(pf)), MODEL_TIMEOUT).toString();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                model = "model=interrupted";
            } catch (TimeoutException | RuntimeException e) {
                model = "model=unanswered(" + e + ")";
            }
            return model + " | " + h.server(pf).counters().summary();
        }

        @Override
        public void clientConnected(int client) {
            log(who, "connect", "client=" + client + " " + counters());
        }

        @Override
        public void clientRefused(String reason) {
            log(who, "refused", reason);
        }

        @Override
        public void memoryNotShared(int client, String reason) {
            log(who, "not_shared", "client=" + client + " " + reason);
        }

        @Override
        public void deviceReset(int client) {
            log(who, "device_reset", "client=" + client + " (DEVICE_RESET: QEMU's machine reset) " + counters());
        }

        @Override
        public void clientLeft(int client, String reason, boolean negotiated) {
            log(who, "disconnect", "client=" + client + (reason == null ? " (hung up)" : " closed: " + reason) + " "
                    + counters());
            E810Host h = host;
            if (!negotiated || h == null) {
                return; // a probe that never spoke changed nothing
            }
            try {
                ModelCounts after = h.loop().call(() -> {
                    h.pf(pf).pci().reset();
                    return ModelCounts.of(h.pf(pf));
                }, MODEL_TIMEOUT);
                log(who, "power_on", "the function is reset for the next client: " + after);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                log(who, "power_on", "FAILED: interrupted");
            } catch (TimeoutException | RuntimeException e) {
                log(who, "power_on", "FAILED: " + e);
            }
        }

        /** On the loop thread: the model traced a function reset. */
        void traced(TraceEvent e) {
            if (e.kind() != TraceKind.FUNCTION_RESET) {
                return;
            }
            for (int i = 0; i < e.fieldCount(); i++) {
                if ("cause".equals(e.name(i)) && "flr".equals(e.textAt(i))) {
                    E810Host h = host;
                    log(who, "flr", "(the guest's driver reset the function) "
                            + (h == null ? "" : ModelCounts.of(h.pf(pf)).toString()));
                }
            }
        }
    }

    /** Without a trace file: only the resets, for the session log. */
    private static final class ResetWatch implements TraceSink {
        private final FunctionSessions sessions;

        ResetWatch(FunctionSessions sessions) {
            this.sessions = sessions;
        }

        @Override
        public void accept(TraceEvent event) {
            sessions.traced(event);
        }
    }

    /** Function {@code pf}'s trace: JSON lines with a "pf" field, into the one trace file, whole lines at a time. */
    private final class FunctionTrace implements TraceSink {
        private final FunctionSessions sessions;
        private final JsonLinesTraceSink json;

        FunctionTrace(int pf, FunctionSessions sessions) {
            this.sessions = sessions;
            // one write(char[]) a line: atomic under the BufferedWriter's own lock, against the other functions'
            // lines and flushPeriodically
            this.json = new JsonLinesTraceSink(traceOut, "\"pf\":" + pf);
        }

        @Override
        public void accept(TraceEvent event) {
            try {
                json.accept(event);
            } catch (UncheckedIOException e) {
                LOG.debug("{}: {}", TRACE, e.toString());
            }
            sessions.traced(event);
        }
    }

    private void flushTrace() {
        synchronized (traceOut) {
            try {
                traceOut.flush();
            } catch (IOException e) {
                LOG.debug("{}: {}", TRACE, e.toString());
            }
        }
    }

    private void flushPeriodically() {
        try {
            while (!closed.await(TRACE_FLUSH_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                flushTrace();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- teardown

    /**
     * Stops serving: each function's client is closed (QEMU's device then fails every access), its socket file
     * removed, its loop stopped; the logs are flushed and closed. Idempotent; any thread (a shutdown hook).
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed.getCount() == 0) {
                return;
            }
            if (rping != null) {
                try {
                    node.loop().call(() -> {
                        rping.stop();
                        return null;
                    }, MODEL_TIMEOUT);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (TimeoutException | RuntimeException e) {
                    LOG.warn("stopping the node's rping server: {}", e.toString());
                }
            }
            if (node != null) {
                String counters;
                try {
                    counters = node.loop().call(() -> node.counters().toString(), MODEL_TIMEOUT);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    counters = "interrupted";
                } catch (TimeoutException | RuntimeException e) {
                    counters = e.toString();
                }
                log("node", "stopped", counters);
            }
            closeNode(); // the far end first: its loop may still be sending on the cable
            closeHosts();
            log("serve", "stopped", "sockets removed");
            closed.countDown();
        }
        try {
            flusher.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (traceOut) {
            closeQuietly(traceOut);
        }
        synchronized (sessions) {
            closeQuietly(sessions);
        }
    }

    private void closeHosts() {
        if (adapter != null) {
            try {
                adapter.close();
            } catch (RuntimeException e) {
                LOG.warn("closing the adapter ({}): {}", adapter.server(0).socketPath(), e.toString());
            }
        }
        if (switchPcap != null) {
            closeQuietly(switchPcap);
        }
    }

    /** Closes a hosted node; a failure is logged, and the rest of the teardown goes on. */
    private static void closeHosted(HostedNode n, String which) {
        try {
            n.close();
        } catch (RuntimeException e) {
            LOG.warn("closing {}: {}", which, e.toString());
        }
    }

    private static void closeQuietly(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException e) {
            LOG.debug("close: {}", e.toString());
        }
    }
}
