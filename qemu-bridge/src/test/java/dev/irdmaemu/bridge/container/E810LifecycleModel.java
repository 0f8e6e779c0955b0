package dev.irdmaemu.bridge.container;

import dev.irdmaemu.bridge.e810.E810LifecycleRun;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The model side of the E810 lifecycle for a {@link GuestTest} ({@code scenario = "e810-lifecycle"}): one emulated
 * E810 as {@link E810LifecycleRun} serves it, the guest's QEMU in the test's container, started interactive
 * ({@link ContainerQemuHost#startInteractive}): the checkpoints come from the container's output, the host's
 * answers go to the guest's serial input through the console socket in the shared folder. Offers the run's
 * {@link E810LifecycleRun.Outcome} as a test parameter. The run's own settings (the scenario, q35, memory, reboot
 * allowed) are {@link E810LifecycleRun}'s; the test's scenario must name it.
 */
public class E810LifecycleModel implements GuestModel {
    private static final Logger LOG = LoggerFactory.getLogger(E810LifecycleModel.class);
    /** The container's own wait for the result line outlasts the run's, so that the run's timeout counts. */
    private static final Duration CONTAINER_WAIT_MARGIN = Duration.ofSeconds(60);

    private E810LifecycleRun.Outcome outcome;

    @Override
    public void boot(GuestBoot boot) throws Exception {
        if (!E810LifecycleRun.SCENARIO.equals(boot.spec().scenario())) {
            throw new IllegalArgumentException(boot.test() + ": E810LifecycleModel runs the "
                    + E810LifecycleRun.SCENARIO + " scenario, not " + boot.spec().scenario());
        }
        QemuGuestContainer container = boot.container().withResultTimeout(boot.resultTimeout()
                .plus(CONTAINER_WAIT_MARGIN));
        outcome = E810LifecycleRun.run(boot.kit().e810(), boot.files().resolve(boot.test()), boot.resultTimeout(),
                line -> LOG.info("{}: lifecycle: {}", boot.test(), line), new ContainerQemuHost(container));
        LOG.info("{}: {}; boot 1: {}; {} checkpoints", boot.test(), outcome.result(),
                outcome.firstBoot().map(Object::toString).orElse("none"), outcome.checkpoints().size());
    }

    @Override
    public Optional<Object> parameter(Class<?> type) {
        return type == E810LifecycleRun.Outcome.class && outcome != null ? Optional.of(outcome) : Optional.empty();
    }

    /** Nothing of its own: the E810 went with the run, the container is the extension's. */
    @Override
    public void close() {
    }
}
