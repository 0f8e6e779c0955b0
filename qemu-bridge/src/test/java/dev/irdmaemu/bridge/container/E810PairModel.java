package dev.irdmaemu.bridge.container;

import dev.irdmaemu.bridge.e810.E810PairRun;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The model side of the two-guest pair for a {@link GuestTest} ({@code scenario = "rping-pair"}): two emulated
 * E810s on one cable as {@link E810PairRun} serves them, the server guest's QEMU in the test's container and the
 * client guest's in a second container of the same image, which this model makes and removes (and checks is
 * gone). Offers the run's {@link E810PairRun.Outcome} as a test parameter. The pair's own settings (addresses,
 * the rping-pair scenario, memory) are {@link E810PairRun}'s; the test's scenario must name it.
 */
public class E810PairModel implements GuestModel {
    private static final Logger LOG = LoggerFactory.getLogger(E810PairModel.class);
    public static final String SCENARIO = "rping-pair";
    /** Pings each way, as E810PairBootTest. */
    public static final int PINGS = 10;
    /** Each container's own wait for its result line outlasts the pair's, so that the pair's timeout counts. */
    private static final Duration CONTAINER_WAIT_MARGIN = Duration.ofSeconds(60);

    private QemuGuestContainer client;
    private E810PairRun.Outcome outcome;

    @Override
    public void boot(GuestBoot boot) throws Exception {
        if (!SCENARIO.equals(boot.spec().scenario())) {
            throw new IllegalArgumentException(boot.test() + ": E810PairModel runs the " + SCENARIO + " scenario, not "
                    + boot.spec().scenario());
        }
        QemuGuestContainer server = boot.container();
        Duration wait = boot.resultTimeout().plus(CONTAINER_WAIT_MARGIN);
        server.withResultTimeout(wait);
        client = new QemuGuestContainer(server.getDockerImageName(), boot.kit()).withResultTimeout(wait);
        outcome = E810PairRun.run(boot.kit().e810(), boot.files().resolve(boot.test()), PINGS, boot.resultTimeout(),
                line -> LOG.info("{}: pair: {}", boot.test(), line), new ContainerQemuHost(server),
                new ContainerQemuHost(client));
        LOG.info("{}: server {}; client {}; cable {}", boot.test(), outcome.server(), outcome.client(),
                outcome.cable());
    }

    @Override
    public Optional<Object> parameter(Class<?> type) {
        return type == E810PairRun.Outcome.class && outcome != null ? Optional.of(outcome) : Optional.empty();
    }

    /** The client's container is this model's: stopped (again) and checked gone. */
    @Override
    public void close() {
        if (client == null) {
            return;
        }
        client.stop();
        client.createdIds().stream().filter(GuestImage::containerExists).findFirst().ifPresent(id -> {
            throw new IllegalStateException("the client guest container " + id + " is still there after the test");
        });
    }
}
