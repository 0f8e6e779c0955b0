package dev.irdmaemu.bridge.container;

import dev.irdmaemu.bridge.kit.GuestLaunch;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An end-to-end test in a QEMU guest container: before the method runs, {@link GuestExtension} boots the guest
 * kit's kernel in a container of the local guest image with {@link #scenario()} on its kernel command line, against
 * the {@link #model()} when the guest has a NIC, and waits for the guest's result line. The method takes what it
 * needs as parameters: {@link dev.irdmaemu.bridge.kit.GuestResult}, {@link QemuGuestContainer}, the
 * {@link GuestModel} (by its class) and what the model offers ({@link HostedNodeModel}: the run's
 * {@link dev.irdmaemu.bridge.run.BootReport}). Tagged {@value #TAG}: {@code -DexcludedGroups=container} leaves
 * these tests out where no container engine is.
 *
 * <pre>{@code
 * @GuestTest(scenario = "smoke")
 * void siwComesUp(GuestResult result) {
 *     assertTrue(result.ok(), result::toString);
 * }
 *
 * @GuestTest(scenario = "ping", model = HostedNodeModel.class)
 * void theGuestPingsTheNode(BootReport run) throws Exception {
 *     ScenarioExpectations.ping(run);
 * }
 * }</pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Test
@Tag(GuestTest.TAG)
@ExtendWith(GuestExtension.class)
public @interface GuestTest {
    /** The JUnit tag of every guest container test. */
    String TAG = "container";

    /**
     * The scenario the guest's init runs: {@code /scenarios/NAME.sh} of the kit's initramfs with this build's
     * scenarios laid over it (as {@code irdma-emu boot} lays them). With the {@link HostedNodeModel}, one of
     * {@link dev.irdmaemu.bridge.boot.BootScenario}'s, whose services the node runs.
     */
    String scenario();

    /** A virtio-net NIC served by the {@link #model()} on a vhost-user socket; implied by a model other than the plain one. */
    boolean nic() default false;

    /**
     * The model side serving the NIC: {@link VhostPortModel} (the default: a bare port, nothing behind it) or
     * {@link HostedNodeModel} (the node {@code irdma-emu boot} runs, with the scenario's services).
     */
    Class<? extends GuestModel> model() default VhostPortModel.class;

    /** The guest's MAC for the plain port model (locally administered unicast); the hosted node sets its own. */
    String mac() default "02:00:00:00:00:01";

    /**
     * The siw build the guest loads, at most one: none given, the scenario's own (a
     * {@link dev.irdmaemu.bridge.boot.BootScenario}'s, stock for any other scenario).
     */
    GuestLaunch.Siw[] siw() default {};

    int memoryMiB() default 512;

    /**
     * With the {@link HostedNodeModel}: the guest's NIC is the emulated E810 over vfio-user (the kit's e810 flavour:
     * Linux 7.3's ice.ko and irdma.ko) instead of virtio-net over vhost-user.
     */
    boolean e810() default false;

    /** Extra kernel command line words (a scenario's parameters, e.g. "irdma_emu.peer=198.51.100.2"). */
    String[] kernelArguments() default {};

    /** A guard against a hung guest: how long the result line may take. */
    int resultTimeoutSeconds() default 120;
}
