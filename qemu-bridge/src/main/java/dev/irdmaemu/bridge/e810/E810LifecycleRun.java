package dev.irdmaemu.bridge.e810;

import dev.irdmaemu.bridge.boot.QemuHost;
import dev.irdmaemu.bridge.boot.TempFolders;
import dev.irdmaemu.bridge.boot.ScenarioOverlay;
import dev.irdmaemu.bridge.kit.GuestBootException;
import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.GuestLaunch;
import dev.irdmaemu.bridge.kit.GuestResult;
import dev.irdmaemu.bridge.kit.VfioUserDevice;
import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.model.E810Holdings;
import dev.irdmaemu.model.trace.JsonLinesTraceSink;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The guest's {@code e810-lifecycle} scenario on one emulated E810 (the kit's e810 flavour, one {@link E810Host}
 * for the whole run): the scenario reloads irdma and ice, toggles enable_iwarp, reloads through devlink, resets the
 * function, has irdma ask for a PF reset (the host withholds one CQP completion, irdma times out) and reboots the
 * guest once; the second boot probes both drivers again on the same model. At each of the
 * scenario's checkpoints (a console line {@value #CHECKPOINT} NAME) the guest waits for the host's answer on its
 * serial input; meanwhile the host takes {@link E810Holdings} on the model's loop, so every sample is of a quiet
 * device at a known point of the guest's run. The run folder gets the console and the model's trace as {@link
 * E810ProbeRun}'s does. QEMU runs where its {@link QemuHost} puts it: here as a child process, the answers on its
 * stdin, or in a guest container (the test's Testcontainers guest), the answers through a console socket in the
 * folder both sides share.
 */
public final class E810LifecycleRun {
    private static final Logger LOG = LoggerFactory.getLogger(E810LifecycleRun.class);
    public static final String SCENARIO = "e810-lifecycle";
    /** The guest's marker: the host looks at the model and answers {@value #ACK} NAME WORDS. */
    public static final String CHECKPOINT = "IRDMA-EMU-CHECKPOINT";
    public static final String ACK = "IRDMA-EMU-ACK";
    /** Boot 1's result words, printed before it reboots (the result line proper is boot 2's). */
    public static final String BOOT_RESULT = "IRDMA-EMU-BOOT";
    private static final Pattern CHECKPOINT_LINE = Pattern.compile(CHECKPOINT + " ([a-z0-9][a-z0-9-]{0,40})\\s*$");
    private static final Duration SAMPLE_TIMEOUT = Duration.ofSeconds(30);
    /**
     * The checkpoint at which the host arms the model's fault injection (after sampling): the CCQ completion of
     * the next Manage APBVT op is withheld ({@code E810PhysicalFunction#withholdNextCqpCompletion}); the guest
     * then starts an rping server, whose listen makes irdma add its port (hw.c irdma_add_apbvt, a waiting op).
     */
    public static final String WITHHOLD_CHECKPOINT = "cqp-withhold";
    public static final CqpOpcode WITHHELD_OP = CqpOpcode.MANAGE_APBVT;

    /** What the host saw at one checkpoint: the boot it came in (1, 2), its name and what the model held. */
    public record Checkpoint(int boot, String name, E810Holdings holdings) {
    }

    /**
     * What the run left: the guest's result (boot 2's), boot 1's result words, the checkpoints in order, where the
     * files are, and the vfio-user server's counters.
     */
    public record Outcome(GuestResult result, Optional<GuestResult> firstBoot, List<Checkpoint> checkpoints,
                          Path console, Path trace, String vfioUser) {
        /** The checkpoint {@code name} of boot {@code boot}. */
        public Optional<Checkpoint> checkpoint(int boot, String name) {
            return checkpoints.stream().filter(c -> c.boot() == boot && c.name().equals(name)).findFirst();
        }
    }

    private E810LifecycleRun() {
    }

    /**
     * Boots (the scenario's script laid over the kit's initramfs, so the kit need not hold it) and waits for the
     * result of the second boot, at most {@code timeout}; {@code progress} hears each checkpoint.
     */
    public static Outcome run(GuestKit e810Kit, Path runDir, Duration timeout, Consumer<String> progress)
            throws IOException, InterruptedException, TimeoutException, GuestBootException {
        return run(e810Kit, runDir, timeout, progress, QemuHost.LOCAL);
    }

    /**
     * As {@link #run(GuestKit, Path, Duration, Consumer)}, QEMU on {@code qemuHost} (it makes the launch: the kit as
     * that host holds it), started interactive: the host reads the checkpoints from the console and types its
     * answers on the guest's serial input. The vfio-user socket and the initramfs are in a folder both sides share.
     */
    public static Outcome run(GuestKit e810Kit, Path runDir, Duration timeout, Consumer<String> progress,
                              QemuHost qemuHost)
            throws IOException, InterruptedException, TimeoutException, GuestBootException {
        Files.createDirectories(runDir);
        Path console = runDir.resolve("console.log");
        Path tracePath = runDir.resolve("trace.jsonl");
        Path shared = Files.createTempDirectory("irdma-emu-e810");
        Path socket = shared.resolve(E810ProbeRun.VFIO_SOCKET);
        Path initrd = shared.resolve("initrd.img");
        try (BufferedWriter traceOut = Files.newBufferedWriter(tracePath, StandardCharsets.UTF_8);
             E810Host host = E810Host.start(socket, 0, E810ProbeRun.MAC, 1, new JsonLinesTraceSink(traceOut))) {
            ScenarioOverlay.write(e810Kit.initramfs(), initrd, SCENARIO);
            GuestLaunch launch = qemuHost.launch(e810Kit).machine(GuestLaunch.Machine.Q35).scenario(SCENARIO)
                    .memoryMiB(512).initramfs(initrd).allowReboot()
                    .vfioUser(VfioUserDevice.socket(socket).id("e810").messageTimeout(Duration.ofSeconds(20)).build());
            Dialogue dialogue = new Dialogue(host, progress);
            GuestResult result;
            try (QemuHost.Running qemu = qemuHost.startInteractive(launch, console, shared, dialogue::line)) {
                dialogue.qemu = qemu;
                progress.accept("QEMU started (Linux " + e810Kit.kernelRelease() + ", TCG, reboot allowed, "
                        + qemu.where() + "); console in " + console);
                result = qemu.awaitResult("the guest", timeout.toNanos(),
                        "within " + timeout.toSeconds() + " s; console in " + console);
                qemu.awaitExit(Duration.ofSeconds(30));
            }
            synchronized (dialogue) {
                return new Outcome(result, dialogue.firstBoot, List.copyOf(dialogue.checkpoints), console, tracePath,
                        host.server().counters().summary());
            }
        } finally {
            TempFolders.delete(shared);
        }
    }

    /** How long the model's holdings must stay unchanged at a checkpoint (ice's service task runs each second). */
    static final Duration SETTLED = Duration.ofMillis(2500);
    static final Duration SETTLE_STEP = Duration.ofMillis(250);
    static final Duration SETTLE_LIMIT = Duration.ofSeconds(15);

    /** The host's side of the checkpoints, on the console's reader thread. */
    private static final class Dialogue {
        private final E810Host host;
        private final Consumer<String> progress;
        private final List<Checkpoint> checkpoints = new ArrayList<>();
        private Optional<GuestResult> firstBoot = Optional.empty();
        private volatile QemuHost.Running qemu;
        private int boots;

        Dialogue(E810Host host, Consumer<String> progress) {
            this.host = host;
            this.progress = progress;
        }

        /**
         * What the model holds once it stops changing: ice syncs its MAC filters (the multicast addresses a netdev
         * joins when it comes up) from its service task, about once a second, after the guest's step has returned;
         * so the holdings are sampled every {@link #SETTLE_STEP} until they are unchanged for {@link #SETTLED}, at
         * most {@link #SETTLE_LIMIT} (the last sample then).
         */
        private E810Holdings settled() throws InterruptedException, TimeoutException {
            E810Holdings last = host.loop().call(() -> host.pf().holdings(), SAMPLE_TIMEOUT);
            long stableSince = System.nanoTime();
            long limit = stableSince + SETTLE_LIMIT.toNanos();
            while (System.nanoTime() - stableSince < SETTLED.toNanos() && System.nanoTime() < limit) {
                Thread.sleep(SETTLE_STEP.toMillis());
                E810Holdings now = host.loop().call(() -> host.pf().holdings(), SAMPLE_TIMEOUT);
                if (!now.equals(last)) {
                    last = now;
                    stableSince = System.nanoTime();
                }
            }
            return last;
        }

        synchronized void line(String line) {
            int at = line.indexOf(BOOT_RESULT + " ");
            if (at >= 0) {
                firstBoot = GuestResult.parse(GuestResult.MARKER + " " + line.substring(at + BOOT_RESULT.length() + 1),
                        Duration.ZERO);
                return;
            }
            Matcher m = CHECKPOINT_LINE.matcher(line);
            if (!m.find()) {
                return;
            }
            String name = m.group(1);
            if (name.equals("boot")) {
                boots++;
            }
            E810Holdings h;
            try {
                h = settled();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (TimeoutException e) {
                LOG.warn("checkpoint {}: the model loop did not answer in {}", name, SAMPLE_TIMEOUT);
                return;
            }
            if (name.equals(WITHHOLD_CHECKPOINT)) {
                try {
                    host.loop().call(() -> {
                        host.pf().withholdNextCqpCompletion(WITHHELD_OP);
                        return null;
                    }, SAMPLE_TIMEOUT);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (TimeoutException e) {
                    LOG.warn("checkpoint {}: the model loop did not take the fault in {}", name, SAMPLE_TIMEOUT);
                    return;
                }
                progress.accept("boot " + boots + ": the next " + WITHHELD_OP + " completion will be withheld");
            }
            checkpoints.add(new Checkpoint(boots, name, h));
            progress.accept("boot " + boots + " checkpoint " + name + ": " + h);
            String answer = name.equals("boot") ? Integer.toString(boots)
                    : "rdma=" + h.total(E810Holdings.Side.RDMA) + " lan=" + h.total(E810Holdings.Side.LAN);
            QemuHost.Running q = qemu;
            if (q == null) {
                LOG.warn("checkpoint {} before QEMU was known: no answer", name);
                return;
            }
            try {
                q.typeLine(ACK + " " + name + " " + answer);
            } catch (IOException e) {
                LOG.warn("checkpoint {}: cannot answer the guest: {}", name, e.getMessage());
            }
        }
    }
}
