package dev.irdmaemu.bridge.cli;

import dev.irdmaemu.bridge.boot.BootOptions;
import dev.irdmaemu.bridge.e810.E810PairRun;
import dev.irdmaemu.bridge.e810.E810ProbeRun;
import dev.irdmaemu.bridge.kit.GuestBootException;
import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.GuestResult;
import dev.irdmaemu.bridge.kit.MissingGuestKitException;
import dev.irdmaemu.bridge.overlay.VxlanPairSide;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code irdma-emu e810}: boots Linux 7.3 (the kit's e810 flavour) with the emulated E810 as a PCI function over
 * vfio-user and shows how far the stock drivers get: ice's probe (DDP package, netdev, devlink) and, with
 * {@code --rdma iwarp}, irdma's (an iWARP device registered). Prints the guest's verdict and where the console and
 * the model's trace are.
 */
@Command(name = "e810", mixinStandardHelpOptions = true,
        description = {"Boots Linux 7.3 with the emulated E810 attached over vfio-user: the stock ice.ko probes it "
                + "(DDP package, netdev, devlink) and, with --rdma iwarp, the stock irdma.ko registers an iWARP device "
                + "on it (on each function, with --functions N). With --pair: two guests, each with its own E810, the "
                + "two on one cable, rping between them; with --pair-side, one of the two, its E810's cable a VXLAN "
                + "segment to the other's.",
            "Writes the guest's console and the model's trace (every register access, admin queue command, CQP "
                + "op and interrupt, as JSON lines) to the run folder."})
final class E810Command extends VerboseCommand {
    @Option(names = "--rdma", paramLabel = "MODE", defaultValue = "iwarp",
            description = "iwarp (devlink enable_iwarp, then irdma), roce, or none (ice only) (default: ${DEFAULT-VALUE}).")
    String rdma;

    @Option(names = "--functions", paramLabel = "N", defaultValue = "1",
            description = "Physical functions of the emulated E810 (1..8, default: ${DEFAULT-VALUE}): one adapter in "
                    + "one PCIe slot (functions 0.0..0.N-1, one serial number), on one embedded switch and one cable; "
                    + "ice and irdma probe each.")
    int functions;

    @Option(names = "--link-up", description = "Set the E810's netdev up (ice opens its LAN rings) and wait for carrier.")
    boolean linkUp;

    @Option(names = "--pair", paramLabel = "PINGS", description = "Instead: boot two guests, each with its own "
            + "emulated E810, the two E810s on one cable; one guest's irdma serves rping -s, the other's runs rping -c "
            + "with PINGS verified pings against it.")
    Integer pairPings;

    @Option(names = "--pair-side", paramLabel = "PART",
            description = "With --pair: boot only one guest of the pair, server or client, with its own E810 whose "
                    + "cable is the VXLAN segment --vxlan names; the other guest runs the other part in another "
                    + "process, container or host (two containers of the image stand for two hosts).")
    String pairSide;

    @Option(names = "--vxlan", paramLabel = "ADDR:PORT",
            description = "With --pair-side: bind UDP ADDR:PORT (e.g. [::]:4789) for the segment (RFC 7348).")
    String vxlan;

    @Option(names = "--vxlan-peer", paramLabel = "ADDR:PORT",
            description = "With --pair-side: the other side's endpoint (repeatable, 1..16); datagrams from anyone "
                    + "else, of another VNI or malformed are dropped and counted.")
    List<String> vxlanPeers = new ArrayList<>();

    @Option(names = "--vni", paramLabel = "N", defaultValue = "1",
            description = "With --pair-side: the segment's network identifier (0..16777215, default: ${DEFAULT-VALUE}).")
    int vni;

    @Option(names = "--out", paramLabel = "DIR", description = "The run folder (default: target/e810/<date-time>).")
    Path out;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "300",
            description = "How long to wait for the guest's result (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    @Override
    public Integer call() throws CliFailure {
        if (!rdma.equals("iwarp") && !rdma.equals("roce") && !rdma.equals("none")) {
            throw new CliFailure(ExitCodes.USAGE, "e810: --rdma takes iwarp, roce or none, not " + rdma, null);
        }
        if (functions < 1 || functions > 8) {
            throw new CliFailure(ExitCodes.USAGE, "e810: --functions takes 1..8, not " + functions, null);
        }
        if (pairPings != null && functions != 1) {
            throw new CliFailure(ExitCodes.USAGE, "e810: --pair boots one function per guest: no --functions", null);
        }
        if ((pairSide != null) != (vxlan != null) || (vxlan == null && !vxlanPeers.isEmpty())
                || (pairSide != null && (pairPings == null || vxlanPeers.isEmpty()))) {
            throw new CliFailure(ExitCodes.USAGE, "e810: --pair-side PART goes with --pair PINGS, --vxlan ADDR:PORT "
                    + "and at least one --vxlan-peer", null);
        }
        if (timeoutSeconds < 10) {
            throw new CliFailure(ExitCodes.USAGE, "e810: --timeout is at least 10 seconds", null);
        }
        PrintWriter pw = out();
        GuestKit kit;
        try {
            kit = GuestKit.locate().e810();
        } catch (MissingGuestKitException e) {
            throw new CliFailure(ExitCodes.NO_INPUT, "e810: " + e.getMessage(), e);
        }
        Path dir = out != null ? out : BootOptions.newRunDir(Path.of("target", "e810"));
        if (pairSide != null) {
            return pairSide(kit, dir, pw);
        }
        if (pairPings != null) {
            return pair(kit, dir, pw);
        }
        E810ProbeRun.Outcome o;
        try {
            o = E810ProbeRun.run(kit, dir, rdma, functions, Duration.ofSeconds(timeoutSeconds), progress(pw),
                    linkUp ? new String[] {"irdma_emu.link=up"} : new String[0]);
        } catch (IOException e) {
            throw new CliFailure(ExitCodes.IO_ERROR, "e810: " + e.getMessage(), e);
        } catch (TimeoutException e) {
            throw new CliFailure(ExitCodes.FAILED, "e810: the model did not answer: " + e.getMessage(), e);
        } catch (GuestBootException e) {
            throw new CliFailure(ExitCodes.FAILED, "e810: " + e.getMessage() + "; console in "
                    + dir.resolve("console.log"), e);
        } catch (InterruptedException e) {
            throw CliFailure.interrupted("e810", e);
        }
        GuestResult r = o.result();
        pw.printf("guest: %s after %.1f s (Linux %s)%n", r.ok() ? "ok" : "FAILED at step " + r.field("step")
                + " (" + r.field("reason") + ")", r.afterStart().toMillis() / 1000.0, r.field("kernel"));
        pw.printf("  ice: %s, E810 function%s %s, DDP package %s%s%n", r.field("ice"), functions > 1 ? "s" : "",
                r.field("e810"),
                r.field("ddp_target"), linkUp ? ", link " + r.field("link") : "");
        if (!rdma.equals("none")) {
            pw.printf("  irdma: %s, mode %s, rdma links %s, transport %s%n", r.field("irdma"), r.field("rdma_mode"),
                    r.field("rdma_links"), r.field("transport"));
        }
        pw.printf("model: %s; afterwards %d QPs and %d CQs held%n", o.vfioUser(), o.liveQps(), o.liveCqs());
        pw.printf("console: %s%ntrace:   %s%n", o.console(), o.trace());
        pw.flush();
        return r.ok() ? ExitCodes.OK : ExitCodes.FAILED;
    }

    /** One guest of the pair, its E810's cable the VXLAN segment ({@link VxlanPairSide}). */
    private int pairSide(GuestKit kit, Path dir, PrintWriter pw) throws CliFailure {
        VxlanPairSide.Segment segment;
        VxlanPairSide.Part part;
        try {
            part = VxlanPairSide.Part.named(pairSide);
            List<InetSocketAddress> peers = new ArrayList<>();
            for (String p : vxlanPeers) {
                peers.add(ServeCommand.socketAddress(p));
            }
            segment = new VxlanPairSide.Segment(ServeCommand.socketAddress(vxlan), peers, vni);
        } catch (IllegalArgumentException e) {
            throw new CliFailure(ExitCodes.USAGE, "e810: " + e.getMessage(), e);
        }
        if (pairPings < 1 || pairPings > 100_000) {
            throw new CliFailure(ExitCodes.USAGE, "e810: --pair takes 1..100000 pings", null);
        }
        VxlanPairSide.Outcome o;
        try {
            o = VxlanPairSide.run(kit, part, segment, dir, pairPings, Duration.ofSeconds(timeoutSeconds), progress(pw));
        } catch (IllegalArgumentException e) {
            throw new CliFailure(ExitCodes.USAGE, "e810: --vxlan: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new CliFailure(ExitCodes.IO_ERROR, "e810: " + e.getMessage(), e);
        } catch (TimeoutException | GuestBootException e) {
            throw new CliFailure(ExitCodes.FAILED, "e810: " + e.getMessage() + "; console in " + dir, e);
        } catch (InterruptedException e) {
            throw CliFailure.interrupted("e810", e);
        }
        GuestResult r = o.result();
        pw.printf("%s: %s after %.1f s; rping exit %s, %s%n", part.word(), r.ok() ? "ok"
                : "FAILED at step " + r.field("step") + " (" + r.field("reason") + ")",
                r.afterStart().toMillis() / 1000.0, r.field("rping_exit"), part == VxlanPairSide.Part.SERVER
                        ? r.field("rping_verified") + " verified" : r.field("rping_pings") + " pings");
        pw.printf("E810 afterwards: %d QPs; %s%n", o.qpsLeft(), o.held());
        pw.printf("VXLAN segment %d: %s%n", vni, o.overlay());
        pw.printf("run folder: %s (%s.log, %s-trace.jsonl, %s)%n", o.runDir(), part.word(), part.word(),
                o.pcap().getFileName());
        pw.flush();
        return o.ok() ? ExitCodes.OK : ExitCodes.FAILED;
    }

    private int pair(GuestKit kit, Path dir, PrintWriter pw) throws CliFailure {
        if (pairPings < 1 || pairPings > 100_000) {
            throw new CliFailure(ExitCodes.USAGE, "e810: --pair takes 1..100000 pings", null);
        }
        E810PairRun.Outcome o;
        try {
            o = E810PairRun.run(kit, dir, pairPings, Duration.ofSeconds(timeoutSeconds), progress(pw));
        } catch (IOException e) {
            throw new CliFailure(ExitCodes.IO_ERROR, "e810: " + e.getMessage(), e);
        } catch (TimeoutException e) {
            // a guest's result line late, or the model's loop not answering
            throw new CliFailure(ExitCodes.FAILED, "e810: timed out: " + e.getMessage() + "; consoles in " + dir, e);
        } catch (GuestBootException e) {
            throw new CliFailure(ExitCodes.FAILED, "e810: " + e.getMessage() + "; consoles in " + dir, e);
        } catch (InterruptedException e) {
            throw CliFailure.interrupted("e810", e);
        }
        for (GuestResult r : new GuestResult[] {o.server(), o.client()}) {
            pw.printf("%s: %s after %.1f s; rping exit %s, %s%n", r.field("pair"), r.ok() ? "ok"
                    : "FAILED at step " + r.field("step") + " (" + r.field("reason") + ")",
                    r.afterStart().toMillis() / 1000.0, r.field("rping_exit"), r.field("pair").equals("server")
                            ? r.field("rping_verified") + " verified" : r.field("rping_pings") + " pings");
        }
        pw.printf("E810s afterwards: server %d QPs, client %d QPs; cable: %s%n", o.serverQpsLeft(),
                o.clientQpsLeft(), o.cable());
        pw.printf("run folder: %s (server.log, client.log, *-trace.jsonl, wire.pcap)%n", o.runDir());
        pw.flush();
        return o.ok() ? ExitCodes.OK : ExitCodes.FAILED;
    }
}
