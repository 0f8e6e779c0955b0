package dev.irdmaemu.bridge.e810;

import dev.irdmaemu.bridge.boot.ScenarioOverlay;
import dev.irdmaemu.bridge.kit.GuestBootException;
import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.GuestLaunch;
import dev.irdmaemu.bridge.kit.GuestResult;
import dev.irdmaemu.bridge.kit.QemuProcess;
import dev.irdmaemu.bridge.kit.VfioUserDevice;
import dev.irdmaemu.fw.pcap.PcapWriter;
import dev.irdmaemu.fw.pcap.TimestampResolution;
import dev.irdmaemu.model.trace.JsonLinesTraceSink;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Two guests, each with its own emulated E810 over vfio-user, the two E810s' Ethernet ports on one cable and no
 * hosted node: the {@code rping-pair} guest scenario has one guest's stock irdma.ko serve {@code rping -s} and the
 * other's connect with {@code rping -c}, both verifying. The run folder gets each guest's console
 * ({@code server.log}, {@code client.log}), each E810's trace ({@code server-trace.jsonl}, {@code
 * client-trace.jsonl}) and the cable's capture ({@code wire.pcap}, each frame stamped with its sender's simulated
 * time).
 */
public final class E810PairRun {
    public static final long SERVER_MAC = 0x02_00_5E_10_00_01L;
    public static final long CLIENT_MAC = 0x02_00_5E_10_00_02L;
    public static final String SERVER_ADDRESS = "192.0.2.10";
    public static final String CLIENT_ADDRESS = "192.0.2.20";

    /** Both guests' results, the run's files, and what each E810 held after its guest powered off. */
    public record Outcome(GuestResult server, GuestResult client, Path runDir, Path pcap, int serverQpsLeft,
                          int clientQpsLeft, String cable) {
        public boolean ok() {
            return server.ok() && client.ok() && serverQpsLeft == 0 && clientQpsLeft == 0;
        }
    }

    private E810PairRun() {
    }

    /** Boots both guests at once and waits (at most {@code timeout}) for both results and both QEMUs' exits. */
    public static Outcome run(GuestKit e810Kit, Path runDir, int count, Duration timeout, Consumer<String> progress)
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
            try (QemuProcess s = QemuProcess.start(launch(e810Kit, initrd, server, "server", SERVER_ADDRESS,
                    CLIENT_ADDRESS, count), runDir.resolve("server.log"));
                 QemuProcess c = QemuProcess.start(launch(e810Kit, initrd, client, "client", CLIENT_ADDRESS,
                         SERVER_ADDRESS, count), runDir.resolve("client.log"))) {
                progress.accept("both guests booting (Linux " + e810Kit.kernelRelease() + ", TCG)");
                serverResult = s.awaitResult(timeout);
                clientResult = c.awaitResult(timeout);
                s.awaitExit(Duration.ofSeconds(30));
                c.awaitExit(Duration.ofSeconds(30));
            }
            int serverQps = server.loop().call(() -> server.pf().rdma().qps().liveCount(), Duration.ofSeconds(10));
            int clientQps = client.loop().call(() -> client.pf().rdma().qps().liveCount(), Duration.ofSeconds(10));
            return new Outcome(serverResult, clientResult, runDir, pcapFile, serverQps, clientQps,
                    server.cableSummary());
        } finally {
            try (Stream<Path> files = Files.walk(temp)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    private static GuestLaunch launch(GuestKit kit, Path initrd, E810Host host, String part, String address,
                                      String peer, int count) {
        return kit.launch().machine(GuestLaunch.Machine.Q35).scenario("rping-pair").memoryMiB(512)
                .initramfs(initrd).kernelArgument("irdma_emu.nic=e810").kernelArgument("irdma_emu.pair=" + part)
                .kernelArgument("irdma_emu.addr=" + address + "/24").kernelArgument("irdma_emu.peer=" + peer)
                .kernelArgument("irdma_emu.count=" + count)
                .vfioUser(VfioUserDevice.socket(host.server().socketPath()).id("e810")
                        .messageTimeout(Duration.ofSeconds(20)).build());
    }
}
