package dev.irdmaemu.bridge.e810;

import static org.junit.jupiter.api.Assertions.fail;

import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.MissingGuestKitException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stock ice.ko and irdma.ko of Linux 7.3 through their lifecycle on one emulated E810, in one QEMU run that
 * boots twice (scenario {@code e810-lifecycle}): an RDMA CM listener that comes and goes, rmmod/modprobe irdma, enable_iwarp off and on, rmmod/modprobe ice,
 * devlink reload, a function reset through sysfs, a PF reset irdma asks for after the host withheld one CQP completion,
 * a MAC change there and back (manage_mac_write), a guest reboot. At each checkpoint the host counts what the model
 * holds: a driver that is gone has left nothing behind, and a driver that is back holds exactly what the first
 * probe held ({@link E810LifecycleExpectations}, which {@code E810LifecycleContainerTest} checks through a guest
 * container alike).
 */
class E810LifecycleBootTest {
    private static final Logger LOG = LoggerFactory.getLogger(E810LifecycleBootTest.class);
    /** Two boots and a dozen driver loads under TCG on a busy machine. */
    private static final Duration RESULT_TIMEOUT = Duration.ofSeconds(900);

    @Test
    void driversComeBackAfterEveryReloadResetAndRebootWithNothingLeftOnTheModel() throws Exception {
        GuestKit kit;
        try {
            kit = GuestKit.locate().e810();
        } catch (MissingGuestKitException e) {
            fail(e.getMessage());
            return;
        }
        E810LifecycleRun.Outcome o = E810LifecycleRun.run(kit, Path.of("target", "guest-boot", "e810-lifecycle"),
                RESULT_TIMEOUT, s -> LOG.info("lifecycle: {}", s));
        E810LifecycleExpectations.driversComeBackWithNothingLeft(o);
    }
}
