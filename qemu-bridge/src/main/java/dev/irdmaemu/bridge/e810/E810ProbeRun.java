package dev.irdmaemu.bridge.e810;

import dev.irdmaemu.bridge.kit.GuestBootException;
import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.GuestLaunch;
import dev.irdmaemu.bridge.kit.GuestResult;
import dev.irdmaemu.bridge.kit.QemuProcess;
import dev.irdmaemu.bridge.kit.VfioUserDevice;
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
 * One boot of the kit's e810 flavour (Linux 7.3, stock ice.ko and irdma.ko) with one emulated E810 physical function
 * attached over vfio-user, running the guest's {@code e810-probe} scenario: ice probes the function, loads the DDP
 * package and makes its netdev; with {@code rdma} "iwarp" (or "roce") devlink switches the protocol and irdma
 * probes on top. The run folder gets the guest's console ({@code console.log}) and the model's trace of every
 * register access, admin queue command, CQP op, interrupt and configuration-space write ({@code trace.jsonl}).
 */
public final class E810ProbeRun {
    /** The E810's permanent MAC in the model's NVM (a locally administered address). */
    public static final long MAC = 0x02_00_5E_10_00_01L;
    public static final String VFIO_SOCKET = "e810.sock";

    /** What the run left: the guest's result line, where its files are, and what the model still held. */
    public record Outcome(GuestResult result, Path console, Path trace, String vfioUser, int liveQps, int liveCqs) {
    }

    private E810ProbeRun() {
    }

    /**
     * Boots and waits for the guest's result (at most {@code timeout}), then for QEMU's exit; {@code progress}
     * hears each step. A guest that gives no result (QEMU would not start, ended first, or was too slow) is a
     * {@link GuestBootException} with the console's last lines. {@code kernelArguments} go to the guest's command
     * line as well (e.g. {@code irdma_emu.link=up}: the scenario sets the E810's netdev up and waits for carrier).
     */
    public static Outcome run(GuestKit e810Kit, Path runDir, String rdma, Duration timeout, Consumer<String> progress,
                              String... kernelArguments)
            throws IOException, InterruptedException, TimeoutException, GuestBootException {
        if (!rdma.equals("iwarp") && !rdma.equals("roce") && !rdma.equals("none")) {
            throw new IllegalArgumentException("rdma mode " + rdma + " (iwarp, roce or none)");
        }
        Files.createDirectories(runDir);
        Path console = runDir.resolve("console.log");
        Path tracePath = runDir.resolve("trace.jsonl");
        // a short socket path: UNIX socket paths are limited to 107 bytes
        Path sockDir = Files.createTempDirectory("irdma-emu-e810");
        Path socket = sockDir.resolve(VFIO_SOCKET);
        try (BufferedWriter traceOut = Files.newBufferedWriter(tracePath, StandardCharsets.UTF_8);
             E810Host host = E810Host.start(socket, 0, MAC, 1, new JsonLinesTraceSink(traceOut))) {
            progress.accept("E810 model serving vfio-user at " + socket);
            GuestLaunch launch = e810Kit.launch().machine(GuestLaunch.Machine.Q35).scenario("e810-probe")
                    .memoryMiB(512).kernelArgument("irdma_emu.rdma=" + rdma)
                    .vfioUser(VfioUserDevice.socket(socket).id("e810").messageTimeout(Duration.ofSeconds(20)).build());
            for (String a : kernelArguments) {
                launch = launch.kernelArgument(a);
            }
            GuestResult result;
            try (QemuProcess qemu = QemuProcess.start(launch, console)) {
                progress.accept("QEMU started (Linux " + e810Kit.kernelRelease() + ", TCG); console in " + console);
                result = qemu.awaitResult(timeout);
                qemu.awaitExit(Duration.ofSeconds(30));
            }
            int qps = host.loop().call(() -> host.pf().rdma().qps().liveCount(), Duration.ofSeconds(10));
            int cqs = host.loop().call(() -> host.pf().rdma().cqs().liveCount(), Duration.ofSeconds(10));
            return new Outcome(result, console, tracePath, host.server().counters().summary(), qps, cqs);
        } finally {
            Files.deleteIfExists(socket);
            Files.deleteIfExists(sockDir);
        }
    }
}
