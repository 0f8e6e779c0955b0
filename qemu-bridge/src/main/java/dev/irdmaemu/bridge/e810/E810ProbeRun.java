package dev.irdmaemu.bridge.e810;

import dev.irdmaemu.bridge.boot.ScenarioOverlay;
import dev.irdmaemu.bridge.kit.GuestBootException;
import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.GuestLaunch;
import dev.irdmaemu.bridge.kit.GuestResult;
import dev.irdmaemu.bridge.kit.QemuProcess;
import dev.irdmaemu.bridge.kit.VfioUserDevice;
import dev.irdmaemu.bridge.vfiouser.VfioUserSessionListener;
import dev.irdmaemu.model.sw.AdapterSwitch;
import dev.irdmaemu.model.trace.JsonLinesTraceSink;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * One boot of the kit's e810 flavour (Linux 7.3, stock ice.ko and irdma.ko) with one emulated E810 attached over
 * vfio-user, running the guest's {@code e810-probe} scenario: ice probes each of its physical functions, loads the
 * DDP package and makes their netdevs; with {@code rdma} "iwarp" (or "roce") devlink switches the protocol and irdma
 * probes on top. An adapter of several functions sits in one PCIe slot (functions 0.0, 0.1, ...), one embedded switch
 * and one cable, as a multi-port card does ({@link E810Host#startAdapter}). The run folder gets the guest's console
 * ({@code console.log}) and the model's trace of every register access, admin queue command, CQP op, interrupt and
 * configuration-space write ({@code trace.jsonl}; with several functions each line names its {@code "pf"}).
 */
public final class E810ProbeRun {
    /** The E810's permanent MAC in the model's NVM (a locally administered address). */
    public static final long MAC = 0x02_00_5E_10_00_01L;
    public static final String VFIO_SOCKET = "e810.sock";
    /** The guest scenario of {@link #run(GuestKit, Path, String, Duration, Consumer, String...)}. */
    public static final String PROBE_SCENARIO = "e810-probe";

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
        return run(e810Kit, runDir, rdma, 1, timeout, progress, kernelArguments);
    }

    /** As above, the adapter with {@code functions} physical functions (1..8). */
    public static Outcome run(GuestKit e810Kit, Path runDir, String rdma, int functions, Duration timeout,
                              Consumer<String> progress, String... kernelArguments)
            throws IOException, InterruptedException, TimeoutException, GuestBootException {
        return run(e810Kit, runDir, PROBE_SCENARIO, rdma, functions, timeout, progress, kernelArguments);
    }

    /**
     * As above, the guest running {@code scenario} (a script of the kit's guest/scenarios, laid over the kit's
     * initramfs from this build), e.g. {@code e810-roce}: irdma in RoCEv2 on two functions.
     */
    public static Outcome run(GuestKit e810Kit, Path runDir, String scenario, String rdma, int functions,
                              Duration timeout, Consumer<String> progress, String... kernelArguments)
            throws IOException, InterruptedException, TimeoutException, GuestBootException {
        if (!rdma.equals("iwarp") && !rdma.equals("roce") && !rdma.equals("none")) {
            throw new IllegalArgumentException("rdma mode " + rdma + " (iwarp, roce or none)");
        }
        if (functions < 1 || functions > AdapterSwitch.MAX_FUNCTIONS) {
            throw new IllegalArgumentException("an E810 has 1.." + AdapterSwitch.MAX_FUNCTIONS + " functions: "
                    + functions);
        }
        Files.createDirectories(runDir);
        Path console = runDir.resolve("console.log");
        Path tracePath = runDir.resolve("trace.jsonl");
        // a short socket path: UNIX socket paths are limited to 107 bytes
        Path sockDir = Files.createTempDirectory("irdma-emu-e810");
        Path initrd = sockDir.resolve("initrd.img");
        List<Path> sockets = new ArrayList<>();
        for (int i = 0; i < functions; i++) {
            sockets.add(sockDir.resolve(functions == 1 ? VFIO_SOCKET : "e810-" + i + ".sock"));
        }
        try (BufferedWriter traceOut = Files.newBufferedWriter(tracePath, StandardCharsets.UTF_8);
             E810Host host = E810Host.startAdapter(sockets, MAC, 1,
                     i -> functions == 1 ? new JsonLinesTraceSink(traceOut)
                             : new JsonLinesTraceSink(traceOut, "\"pf\":" + i), i -> VfioUserSessionListener.NONE)) {
            progress.accept("E810 model serving vfio-user at " + String.join(", ",
                    sockets.stream().map(Path::toString).toList()));
            List<VfioUserDevice> devices = new ArrayList<>();
            for (int i = 0; i < functions; i++) {
                devices.add(VfioUserDevice.socket(sockets.get(i)).id(functions == 1 ? "e810" : "e810-" + i)
                        .messageTimeout(Duration.ofSeconds(20)).build());
            }
            // the e810-probe script of this build over the kit's (a changed scenario needs no new kit)
            ScenarioOverlay.write(e810Kit.initramfs(), initrd, scenario);
            GuestLaunch launch = e810Kit.launch().machine(GuestLaunch.Machine.Q35).scenario(scenario)
                    .memoryMiB(512).initramfs(initrd).kernelArgument("irdma_emu.rdma=" + rdma).vfioUserFunctions(devices);
            for (String a : kernelArguments) {
                launch = launch.kernelArgument(a);
            }
            GuestResult result;
            try (QemuProcess qemu = QemuProcess.start(launch, console)) {
                progress.accept("QEMU started (Linux " + e810Kit.kernelRelease() + ", TCG); console in " + console);
                result = qemu.awaitResult(timeout);
                qemu.awaitExit(Duration.ofSeconds(30));
            }
            int qps = 0;
            int cqs = 0;
            for (int i = 0; i < functions; i++) {
                int fn = i;
                qps += host.loop().call(() -> host.pf(fn).rdma().qps().liveCount(), Duration.ofSeconds(10));
                cqs += host.loop().call(() -> host.pf(fn).rdma().cqs().liveCount(), Duration.ofSeconds(10));
            }
            return new Outcome(result, console, tracePath, host.server().counters().summary(), qps, cqs);
        } finally {
            for (Path socket : sockets) {
                Files.deleteIfExists(socket);
            }
            Files.deleteIfExists(initrd);
            Files.deleteIfExists(sockDir);
        }
    }
}
