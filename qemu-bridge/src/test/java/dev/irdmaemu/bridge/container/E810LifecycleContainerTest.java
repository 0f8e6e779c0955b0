package dev.irdmaemu.bridge.container;

import dev.irdmaemu.bridge.e810.E810LifecycleExpectations;
import dev.irdmaemu.bridge.e810.E810LifecycleRun;

/**
 * The E810 lifecycle through a guest container ({@link E810LifecycleModel}): the stock ice.ko and irdma.ko of
 * Linux 7.3 reloaded, reset and rebooted in one QEMU run in the container, the host answering the guest's
 * checkpoints on its serial input through the console socket, checked with the same
 * {@link E810LifecycleExpectations} as the direct boot of {@code E810LifecycleBootTest}.
 */
class E810LifecycleContainerTest {
    /** Two boots and a dozen driver loads under TCG on a busy machine, as E810LifecycleBootTest. */
    @GuestTest(scenario = E810LifecycleRun.SCENARIO, model = E810LifecycleModel.class, e810 = true,
            resultTimeoutSeconds = 900)
    void driversComeBackInAGuestContainerWithNothingLeftOnTheModel(E810LifecycleRun.Outcome o) throws Exception {
        E810LifecycleExpectations.driversComeBackWithNothingLeft(o);
    }
}
