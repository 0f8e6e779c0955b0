package dev.irdmaemu.bridge.e810;

import dev.irdmaemu.bridge.boot.QemuHost;
import dev.irdmaemu.bridge.boot.TempFolders;
import dev.irdmaemu.bridge.boot.ScenarioOverlay;
import dev.irdmaemu.bridge.kit.GuestBootException;
import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.GuestLaunch;
import dev.irdmaemu.bridge.kit.GuestResult;
import dev.irdmaemu.bridge.kit.VfioUserDevice;
import dev.irdmaemu.fw.pcap.PcapWriter;
import dev.irdmaemu.fw.pcap.TimestampResolution;
import dev.irdmaemu.model.E810Holdings;
import dev.irdmaemu.model.trace.JsonLinesTraceSink;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Two guests, each with its own emulated E810 over vfio-user, the two E810s' Ethernet ports on one cable and no
 * hosted node: the {@code rping-pair} guest scenario has one guest's stock irdma.ko serve {@code rping -s} and the
 * other's connect with {@code rping -c}, both verifying. The run folder gets each guest's console
 * ({@code server.log}, {@code client.log}), each E810's trace ({@code server-trace.jsonl}, {@code
 * client-trace.jsonl}) and the cable's capture ({@code wire.pcap}, each frame stamped with its sender's simulated
 * time). Each guest's QEMU runs where its {@link QemuHost} puts it: here as a child process, or in a guest
 * container (the test's Testcontainers guest), the sockets and the initramfs in a folder both sides share.
 */
public final class E810PairRun {
    public static final long SERVER_MAC = 0x02_00_5E_10_00_01L;
    public static final long CLIENT_MAC = 0x02_00_5E_10_00_02L;
    public static final String SERVER_ADDRESS = "192.0.2.10";
    public static final String CLIENT_ADDRESS = "192.0.2.20";
    /**
     * The kernel argument every E810 guest (Q35 under TCG) boots with: on a loaded machine TCG's first timer ticks
     * come late and Linux 7.3's IO-APIC timer check panics ("IO-APIC + timer doesn't work!", seen with two guests
     * at once on two busy cores); a KVM guest skips that check the same way.
     */
    public static final String NO_TIMER_CHECK = "no_timer_check";

    /**
     * Both guests' results, the run's files, and what each E810 held after its guest powered off (its QPs, and all
     * of it as {@link E810Holdings}).
     */
    public record Outcome(GuestResult server, GuestResult client, Path runDir, Path pcap, int serverQpsLeft,
                          int clientQpsLeft, String cable, E810Holdings serverHeld, E810Holdings clientHeld) {
        public boolean ok() {
            return server.ok() && client.ok() && serverQpsLeft == 0 && clientQpsLeft == 0;
        }
    }

    private E810PairRun() {
    }

    /** Boots both guests at once and waits (at most {@code timeout}) for both results and both QEMUs' exits. */
    public static Outcome run(GuestKit e810Kit, Path runDir, int count, Duration timeout, Consumer<String> progress)
            throws IOException, InterruptedException, TimeoutException, GuestBootException {
        return run(e810Kit, runDir, count, timeout, progress, QemuHost.LOCAL, QemuHost.LOCAL);
    }

    /**
     * As {@link #run(GuestKit, Path, int, Duration, Consumer)}, the server's QEMU on {@code serverHost} and the
     * client's on {@code clientHost} (each makes its guest's launch: the kit as that host holds it).
     */
    public static Outcome run(GuestKit e810Kit, Path runDir, int count, Duration timeout, Consumer<String> progress,
                              QemuHost serverHost, QemuHost clientHost)
            throws IOException, InterruptedException, TimeoutException, GuestBootException {
        Files.createDirectories(runDir);
        Path temp = Files.createTempDirectory("irdma-emu-pair");
        Path pcapFile = runDir.resolve("wire.pcap");
        try (BufferedWriter serverTrace = Files.newBufferedWriter(runDir.resolve("server-trace.jsonl"),
                StandardCharsets.UTF_8);
             BufferedWriter clientTrace = Files.newBufferedWriter(runDir.resolve("client-trace.jsonl"),
                     StandardCharsets.UTF_8);
             PcapWriter pcap = PcapWriter.open(pcapFile, TimestampResolution.NANOSECONDS);
             E810Host server = E810Host.start(temp.resolve("server.sock"), 0, SERVER_MAC, 1,
                     new JsonLinesTraceSink(serverTrace));
             E810Host client = E810Host.start(temp.resolve("client.sock"), 0, CLIENT_MAC, 2,
                     new JsonLinesTraceSink(clientTrace))) {
            E810Host.cable(server, client, pcap);
            Path initrd = temp.resolve("initrd.img");
            ScenarioOverlay.write(e810Kit.initramfs(), initrd);
            progress.accept("two emulated E810s on one cable, serving vfio-user in " + temp);
            GuestResult serverResult;
            GuestResult clientResult;
            try (QemuHost.Running s = serverHost.start(launch(serverHost.launch(e810Kit), initrd, server, "server",
                    SERVER_ADDRESS, CLIENT_ADDRESS, count), runDir.resolve("server.log"), temp);
                 QemuHost.Running c = clientHost.start(launch(clientHost.launch(e810Kit), initrd, client, "client",
                         CLIENT_ADDRESS, SERVER_ADDRESS, count), runDir.resolve("client.log"), temp)) {
                progress.accept("both guests booting (Linux " + e810Kit.kernelRelease() + ", TCG): server "
                        + s.where() + ", client " + c.where());
                long deadline = System.nanoTime() + timeout.toNanos();
                serverResult = s.awaitResult("the server guest", Math.max(1, deadline - System.nanoTime()), "in time");
                clientResult = c.awaitResult("the client guest", Math.max(1, deadline - System.nanoTime()), "in time");
                s.awaitExit(Duration.ofSeconds(30));
                c.awaitExit(Duration.ofSeconds(30));
            }
            int serverQps = server.loop().call(() -> server.pf().rdma().qps().liveCount(), Duration.ofSeconds(10));
            int clientQps = client.loop().call(() -> client.pf().rdma().qps().liveCount(), Duration.ofSeconds(10));
            E810Holdings serverHeld = server.loop().call(() -> server.pf().holdings(), Duration.ofSeconds(10));
            E810Holdings clientHeld = client.loop().call(() -> client.pf().holdings(), Duration.ofSeconds(10));
            return new Outcome(serverResult, clientResult, runDir, pcapFile, serverQps, clientQps,
                    server.cableSummary(), serverHeld, clientHeld);
        } finally {
            TempFolders.delete(temp);
        }
    }

    /**
     * The launch of one guest of the pair: {@code base} (the kit as its host holds it) with the rping-pair scenario
     * as {@code part} ("server" or "client") at {@code address}, its peer at {@code peer}, and {@code host}'s E810
     * over vfio-user. Also for a pair whose two E810s are in two processes ({@code overlay.VxlanPairSide}).
     */
    public static GuestLaunch launch(GuestLaunch base, Path initrd, E810Host host, String part, String address,
                                     String peer, int count) {
        return base.machine(GuestLaunch.Machine.Q35).scenario("rping-pair").memoryMiB(512)
                .initramfs(initrd).kernelArgument("irdma_emu.nic=e810").kernelArgument("irdma_emu.pair=" + part)
                .kernelArgument("irdma_emu.addr=" + address + "/24").kernelArgument("irdma_emu.peer=" + peer)
                .kernelArgument("irdma_emu.count=" + count).kernelArgument(NO_TIMER_CHECK)
                .vfioUser(VfioUserDevice.socket(host.server().socketPath()).id("e810")
                        .messageTimeout(Duration.ofSeconds(20)).build());
    }
}
