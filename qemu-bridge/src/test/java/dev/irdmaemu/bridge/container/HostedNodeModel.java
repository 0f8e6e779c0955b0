package dev.irdmaemu.bridge.container;

import dev.irdmaemu.bridge.boot.BootOptions;
import dev.irdmaemu.bridge.run.BootReport;
import dev.irdmaemu.bridge.run.BootRun;
import dev.irdmaemu.bridge.boot.BootScenario;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The model side {@code irdma-emu boot} runs, for a guest in a container: the hosted node (the E810 RDMA model
 * brought up by the irdma driver layer, the Java CM, the LAN responder, the scenario's
 * {@linkplain BootScenario#services() services}) on its wall-clock-paced model thread, its port served over
 * vhost-user, with the pcap, the trace and the console in a run folder under the test's files. It is a
 * {@link BootRun} whose QEMU runs in the test's container ({@link ContainerQemuHost}): the same node, the same
 * scenario scripts laid over the kit's initramfs, the same teardown and the same {@link BootReport} as a direct
 * boot, which a test takes as a parameter and checks as it would check a direct one.
 *
 * <p>The test's scenario must be one of {@link BootScenario}'s; its siw build is the scenario's unless the test
 * names one, and the guest's MAC is the node's guest address ({@code 02:00:00:00:00:02}).
 */
public class HostedNodeModel implements GuestModel {
    private static final Logger LOG = LoggerFactory.getLogger(HostedNodeModel.class);
    /**
     * The container's own wait for the result line outlasts the boot's, so that the boot's timeout is the one that
     * counts (status TIMEOUT, the teardown as a direct boot's).
     */
    private static final Duration CONTAINER_WAIT_MARGIN = Duration.ofSeconds(60);

    private BootReport report;

    @Override
    public void boot(GuestBoot boot) throws Exception {
        BootScenario scenario = BootScenario.named(boot.spec().scenario());
        BootOptions options = new BootOptions(scenario, boot.siw().orElse(null), null, null,
                BootOptions.newRunDir(boot.files().resolve(boot.test())), boot.resultTimeout(), boot.spec().memoryMiB(),
                boot.spec().e810() ? BootOptions.Nic.E810 : BootOptions.Nic.VIRTIO);
        boot.container().withResultTimeout(options.timeout().plus(CONTAINER_WAIT_MARGIN));
        BootRun run = new BootRun(boot.kit(), options, line -> LOG.info("{}: boot: {}", boot.test(), line),
                new ContainerQemuHost(boot.container()));
        report = run.run();
        report.summary().forEach(l -> LOG.info("{}: {}", boot.test(), l));
        // as a direct boot's test checks: the run left nothing behind (the container: GuestExtension checks)
        if (run.temporaryFolder() != null && Files.exists(run.temporaryFolder())) {
            throw new IllegalStateException(boot.test() + ": the boot left its socket and initramfs folder "
                    + run.temporaryFolder());
        }
        // and the guest did run in the container: its console log starts with the container's image
        if (Files.exists(report.console())) {
            try (Stream<String> lines = Files.lines(report.console(), StandardCharsets.UTF_8)) {
                String first = lines.findFirst().orElse("");
                if (!first.startsWith("# " + boot.container().getDockerImageName() + ": ")) {
                    throw new IllegalStateException(boot.test() + ": the console log is not the container's: " + first);
                }
            }
        }
    }

    /** The run's report: the guest's result, the node's counters, the services, the run folder's files. */
    public BootReport report() {
        if (report == null) {
            throw new IllegalStateException("the hosted node has not booted a guest");
        }
        return report;
    }

    @Override
    public Optional<Object> parameter(Class<?> type) {
        return type == BootReport.class && report != null ? Optional.of(report) : Optional.empty();
    }

    /** Nothing to do: the boot tore the node down when it ended, as {@code irdma-emu boot} does. */
    @Override
    public void close() {
    }
}
