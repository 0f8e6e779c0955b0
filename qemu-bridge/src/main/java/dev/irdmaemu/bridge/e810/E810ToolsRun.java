package dev.irdmaemu.bridge.e810;

import dev.irdmaemu.bridge.boot.HostedNode;
import dev.irdmaemu.bridge.boot.ScenarioOverlay;
import dev.irdmaemu.bridge.kit.GuestBootException;
import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.GuestLaunch;
import dev.irdmaemu.bridge.kit.GuestResult;
import dev.irdmaemu.bridge.kit.QemuProcess;
import dev.irdmaemu.bridge.kit.VfioUserDevice;
import dev.irdmaemu.fw.pcap.PcapWriter;
import dev.irdmaemu.fw.pcap.TimestampResolution;
import dev.irdmaemu.model.lan.LanCounters;
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
 * One boot of the kit's e810 flavour running the guest's {@code e810-tools} scenario: the everyday tools a developer
 * points at an E810 ({@code ethtool -i}, {@code -p}, {@code -m}, {@code -t} online and offline) through the stock
 * ice.ko of Linux 7.3 on one emulated E810, with the hosted node (ARP and echo for 192.0.2.1) at the far end of its
 * cable so the scenario can show the LAN path still works after each tool. The run folder gets the guest's console
 * ({@code console.log}), the model's trace ({@code trace.jsonl}: the admin queue commands each tool sent, with their
 * retvals) and the cable's capture ({@code wire.pcap}); the outcome adds the LAN counters the model kept.
 */
public final class E810ToolsRun {
    public static final String SCENARIO = "e810-tools";
    public static final long MAC = E810ProbeRun.MAC;

    /** The guest's result line, the run's files, and the model's LAN counters after the guest powered off. */
    public record Outcome(GuestResult result, Path console, Path trace, Path pcap, long txLoopedBack,
                          long rxFrames, long txFrames) {
    }

    private E810ToolsRun() {
    }

    /** Boots and waits (at most {@code timeout}) for the guest's result and QEMU's exit. */
    public static Outcome run(GuestKit e810Kit, Path runDir, Duration timeout, Consumer<String> progress)
            throws IOException, InterruptedException, TimeoutException, GuestBootException {
        Files.createDirectories(runDir);
        Path console = runDir.resolve("console.log");
        Path tracePath = runDir.resolve("trace.jsonl");
        Path pcapPath = runDir.resolve("wire.pcap");
        Path sockDir = Files.createTempDirectory("irdma-emu-tools");
        Path socket = sockDir.resolve(E810ProbeRun.VFIO_SOCKET);
        Path initrd = sockDir.resolve("initrd.img");
        try (BufferedWriter traceOut = Files.newBufferedWriter(tracePath, StandardCharsets.UTF_8);
             PcapWriter pcap = PcapWriter.open(pcapPath, TimestampResolution.NANOSECONDS);
             E810Host host = E810Host.start(socket, 0, MAC, 1, new JsonLinesTraceSink(traceOut));
             HostedNode node = new HostedNode(host.wire(), pcap, null, System::nanoTime).start()) {
            progress.accept("E810 model serving vfio-user at " + socket + "; hosted node " + HostedNode.V4
                    + " on its cable");
            ScenarioOverlay.write(e810Kit.initramfs(), initrd, SCENARIO);
            GuestLaunch launch = e810Kit.launch().machine(GuestLaunch.Machine.Q35).scenario(SCENARIO).memoryMiB(512)
                    .initramfs(initrd).vfioUser(VfioUserDevice.socket(socket).id("e810")
                            .messageTimeout(Duration.ofSeconds(20)).build());
            GuestResult result;
            try (QemuProcess qemu = QemuProcess.start(launch, console)) {
                progress.accept("QEMU started (Linux " + e810Kit.kernelRelease() + ", TCG); console in " + console);
                result = qemu.awaitResult(timeout);
                qemu.awaitExit(Duration.ofSeconds(30));
            }
            long[] c = host.loop().call(() -> {
                LanCounters lan = host.pf().lan().counters();
                return new long[] {lan.txLoopedBack(), lan.rxFrames(), lan.txFrames()};
            }, Duration.ofSeconds(10));
            return new Outcome(result, console, tracePath, pcapPath, c[0], c[1], c[2]);
        } finally {
            Files.deleteIfExists(socket);
            Files.deleteIfExists(initrd);
            Files.deleteIfExists(sockDir);
        }
    }
}
