package dev.irdmaemu.bridge.cli;

import dev.irdmaemu.bridge.boot.BootOptions;
import dev.irdmaemu.bridge.boot.GuestWire;
import dev.irdmaemu.bridge.e810.E810Serve;
import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.MissingGuestKitException;
import dev.irdmaemu.bridge.kit.QemuCapabilities;
import dev.irdmaemu.bridge.overlay.VxlanCable;
import dev.irdmaemu.bridge.vfiouser.VfioUserServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code irdma-emu serve}: the emulated E810 for a QEMU, kernel and launcher of the user's own. Starts the
 * functions ({@link E810Serve}), prints the QEMU arguments that attach them, and serves until SIGINT or SIGTERM
 * (or the thread is interrupted, in tests), then tears down: clients closed, socket files removed, logs flushed.
 */
@Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Serve the emulated E810 over vfio-user to a QEMU you start yourself (your kernel, your "
                + "launcher: a plain command line, libvirt, virtme-ng): prints the QEMU arguments to add, then "
                + "serves until interrupted (Ctrl-C, SIGTERM). QEMU 10.1 or later (vfio-user-pci); tested with 11.1.3.",
            "QEMU processes may come one after another: each finds the functions at power-on. A second QEMU on a "
                + "busy socket is refused. Writes sessions.log (every connect, disconnect, reset, FLR), trace.jsonl "
                + "and qemu-args.txt to the run folder."})
final class ServeCommand extends VerboseCommand {
    @Option(names = "--functions", paramLabel = "N", defaultValue = "1",
            description = "E810 physical functions to serve (1..8, default: ${DEFAULT-VALUE}): one adapter in one PCIe "
                    + "slot (functions 0.0..0.N-1, one serial number), each function on its own socket with its own "
                    + "MAC, all on the adapter's embedded switch and one Ethernet cable; frames between them are "
                    + "switched inside the adapter (switch.pcap).")
    int functions;

    @Option(names = "--socket-dir", paramLabel = "DIR",
            description = "Where the sockets e810-<N>.sock are made (default: $XDG_RUNTIME_DIR/irdma-emu, else "
                    + "/tmp/irdma-emu-<user>).")
    Path socketDir;

    @Option(names = "--out", paramLabel = "DIR", description = "The run folder (default: target/serve/<date-time>).")
    Path out;

    @Option(names = "--memory", paramLabel = "MIB", defaultValue = "1024",
            description = "The guest RAM the printed arguments give QEMU, in MiB (default: ${DEFAULT-VALUE}).")
    int memoryMiB;

    @Option(names = "--message-timeout", paramLabel = "SECONDS", defaultValue = "20",
            description = "QEMU's x-msg-timeout in the printed arguments: how long it waits for each reply "
                    + "(default: ${DEFAULT-VALUE}).")
    long messageTimeoutSeconds;

    @Option(names = "--check-qemu", paramLabel = "QEMU",
            description = "Check first that this QEMU binary has vfio-user-pci ('kit': the guest kit's QEMU).")
    String checkQemu;

    @Option(names = "--no-node", description = "Leave PF 0's Ethernet cable unplugged: no hosted node (by default "
            + "it answers ARP, ND and ping for 192.0.2.1 and 2001:db8::1, and carries the node's iWARP peer).")
    boolean noNode;

    @Option(names = "--rping-server", description = "The hosted node runs rping's server on 192.0.2.1 port 7174 "
            + "(rping -s -V): the guest's iWARP device runs rping -c -a 192.0.2.1 -V against it, one client after "
            + "another; each result goes to sessions.log.")
    boolean rpingServer;

    @Option(names = "--vhost-user", paramLabel = "SOCKET",
            description = "Also serve a virtio-net NIC over vhost-user at SOCKET (boot's siw path), its far end a "
                    + "hosted node of its own (192.0.2.1, 2001:db8::1); its QEMU arguments are printed too.")
    Path vhostUser;

    @Option(names = "--no-trace", description = "Write no trace.jsonl (the session log still names every reset).")
    boolean noTrace;

    @Option(names = "--vxlan", paramLabel = "ADDR:PORT",
            description = "Carry the adapter's Ethernet cable over a VXLAN segment (RFC 7348) instead of the hosted "
                    + "node: bind UDP ADDR:PORT (e.g. 0.0.0.0:4789) and exchange frames with the --vxlan-peer "
                    + "endpoints (another serve, or a Linux vxlan device); datagrams from anyone else, of another "
                    + "VNI or malformed are dropped and counted.")
    String vxlan;

    @Option(names = "--vxlan-peer", paramLabel = "ADDR:PORT",
            description = "A VXLAN endpoint of the segment (repeatable, 1..16; unicast frames go to the endpoint "
                    + "their MAC was learned from, the rest to all).")
    List<String> vxlanPeers = new ArrayList<>();

    @Option(names = "--vni", paramLabel = "N", defaultValue = "1",
            description = "The VXLAN segment's network identifier (0..16777215, default: ${DEFAULT-VALUE}).")
    int vni;

    @Override
    public Integer call() throws CliFailure {
        PrintWriter out = out();
        PrintWriter err = err();
        if (messageTimeoutSeconds < 1 || messageTimeoutSeconds > 600) {
            throw new CliFailure(ExitCodes.USAGE, "serve: --message-timeout is 1..600 seconds", null);
        }
        if (checkQemu != null) {
            checkQemu(checkQemu, err);
        }
        if (vxlan == null && !vxlanPeers.isEmpty()) {
            throw new CliFailure(ExitCodes.USAGE, "serve: --vxlan-peer needs --vxlan ADDR:PORT", null);
        }
        if (vxlan != null && (rpingServer || vxlanPeers.isEmpty())) {
            throw new CliFailure(ExitCodes.USAGE, "serve: --vxlan takes the cable from the hosted node (no "
                    + "--rping-server) and needs at least one --vxlan-peer", null);
        }
        boolean withNode = !noNode && vxlan == null;
        Path dir = this.out != null ? this.out : BootOptions.newRunDir(Path.of("target", "serve"));
        E810Serve.Settings settings;
        try {
            settings = new E810Serve.Settings(functions, socketDir != null ? socketDir : defaultSocketDir(), dir,
                    memoryMiB, Duration.ofSeconds(messageTimeoutSeconds), !noTrace, withNode, vhostUser, rpingServer);
        } catch (IllegalArgumentException e) {
            throw new CliFailure(ExitCodes.USAGE, "serve: " + e.getMessage(), e);
        }
        E810Serve serve;
        try {
            serve = E810Serve.start(settings, progress(err));
        } catch (VfioUserServer.SocketInUseException e) {
            throw new CliFailure(ExitCodes.FAILED, "serve: " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new CliFailure(ExitCodes.USAGE, "serve: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new CliFailure(ExitCodes.IO_ERROR, "serve: " + e.getMessage(), e);
        }
        VxlanCable overlay = vxlan == null ? null : joinVxlan(serve, err);
        Thread hook = new Thread(() -> {
            err.println("serve: stopping: closing the clients, removing the sockets");
            err.flush();
            closeOverlay(overlay, err);
            serve.close();
        }, "irdma-emu serve teardown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            printArguments(out, serve);
            err.println("serve: serving until Ctrl-C (SIGINT) or SIGTERM; sessions in " + serve.sessionsLog());
            err.flush();
            serve.awaitClosed(Duration.ofDays(365_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
                closeOverlay(overlay, err);
                serve.close();
            } catch (IllegalStateException shuttingDown) {
                // a signal: the hook is tearing down
            }
        }
        return ExitCodes.OK;
    }

    /** The adapter's cable on the VXLAN segment {@code --vxlan}/{@code --vxlan-peer}/{@code --vni} name. */
    private VxlanCable joinVxlan(E810Serve serve, PrintWriter err) throws CliFailure {
        try {
            InetSocketAddress local = socketAddress(vxlan);
            List<InetSocketAddress> peers = new ArrayList<>();
            for (String p : vxlanPeers) {
                peers.add(socketAddress(p));
            }
            GuestWire cable = serve.freeCable().orElseThrow(() -> new IllegalStateException("the cable is taken"));
            VxlanCable c = VxlanCable.open(cable, local, peers, vni);
            err.println("serve: the adapter's cable is on VXLAN segment " + vni + " at " + c.localAddress()
                    + ", peers " + peers);
            err.flush();
            return c;
        } catch (IllegalArgumentException | IllegalStateException e) {
            serve.close();
            throw new CliFailure(ExitCodes.USAGE, "serve: --vxlan: " + e.getMessage(), e);
        } catch (IOException e) {
            serve.close();
            throw new CliFailure(ExitCodes.IO_ERROR, "serve: --vxlan " + vxlan + ": " + e.getMessage(), e);
        }
    }

    private static void closeOverlay(VxlanCable overlay, PrintWriter err) {
        if (overlay != null) {
            overlay.close();
            err.println("serve: VXLAN segment " + overlay.vni() + ": " + overlay.counters());
            err.flush();
        }
    }

    /** {@code HOST:PORT} or {@code [IPv6]:PORT}, resolved; a usage error otherwise. */
    static InetSocketAddress socketAddress(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("'" + text + "' is not ADDR:PORT");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "': the port is not a number");
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("'" + text + "': port " + port + " is not 0..65535");
        }
        InetSocketAddress a = new InetSocketAddress(host, port);
        if (a.isUnresolved()) {
            throw new IllegalArgumentException("'" + text + "': " + host + " does not resolve");
        }
        return a;
    }

    private static void printArguments(PrintWriter out, E810Serve serve) {
        List<String> args = serve.qemuArguments();
        out.println("# add to your QEMU command line (QEMU 10.1 or later; its -m and any -machine replaced by these):");
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            boolean option = a.startsWith("-");
            if (option && line.length() > 0) {
                out.println("  " + line + " \\");
                line.setLength(0);
            }
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(E810Serve.shellLine(List.of(a)));
        }
        out.println("  " + line);
        out.println("# the same, one argument per line: " + serve.settings().runDir().resolve(E810Serve.QEMU_ARGUMENTS));
        out.flush();
    }

    /** {@code $XDG_RUNTIME_DIR/irdma-emu}, else {@code /tmp/irdma-emu-<user>}: short, so the socket paths fit. */
    static Path defaultSocketDir() {
        String runtime = System.getenv("XDG_RUNTIME_DIR");
        if (runtime != null && !runtime.isEmpty() && Files.isDirectory(Path.of(runtime))) {
            return Path.of(runtime, "irdma-emu");
        }
        return Path.of(System.getProperty("java.io.tmpdir"), "irdma-emu-" + System.getProperty("user.name"));
    }

    private static void checkQemu(String qemu, PrintWriter err) throws CliFailure {
        List<String> command;
        if (qemu.equals("kit")) {
            try {
                command = GuestKit.locate().qemuCommand();
            } catch (MissingGuestKitException e) {
                throw new CliFailure(ExitCodes.NO_INPUT, "serve: --check-qemu kit: " + e.getMessage(), e);
            }
        } else {
            Path p = Path.of(qemu);
            if (!Files.isRegularFile(p)) {
                throw new CliFailure(ExitCodes.NO_INPUT, "serve: --check-qemu " + qemu + ": no such file", null);
            }
            command = List.of(p.toString());
        }
        QemuCapabilities caps;
        try {
            caps = QemuCapabilities.probe(command, Duration.ofSeconds(30));
        } catch (IOException e) {
            throw new CliFailure(ExitCodes.FAILED, "serve: --check-qemu: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            throw CliFailure.interrupted("serve", e);
        }
        if (!caps.vfioUserPci()) {
            throw new CliFailure(ExitCodes.FAILED, "serve: QEMU " + caps.version() + " (" + qemu + ") has no "
                    + "vfio-user-pci device ('-device help' does not list it): vfio-user-pci arrived in QEMU 10.1 "
                    + "(use 10.1.1 or later; the guest kit's 11.1.3 has it)", null);
        }
        err.println("serve: QEMU " + caps.version() + " (" + qemu + ") has vfio-user-pci");
        err.flush();
    }
}
