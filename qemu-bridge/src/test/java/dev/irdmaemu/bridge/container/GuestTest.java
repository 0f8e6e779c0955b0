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
 * An end-to-end test in a QEMU guest container: before the method runs, {@link GuestExtension} starts the model
 * side (when {@link #nic()}), boots the guest kit's kernel in a container of the local guest image with
 * {@link #scenario()} on its kernel command line, and waits for the guest's result line. The method takes what it
 * needs as parameters: {@link dev.irdmaemu.bridge.kit.GuestResult}, {@link QemuGuestContainer}, the
 * {@link GuestModel}. Tagged {@value #TAG}: {@code -DexcludedGroups=container} leaves these tests out where no
 * container engine is.
 *
 * <pre>{@code
 * @GuestTest(scenario = "smoke")
 * void siwComesUp(GuestResult result) {
 *     assertTrue(result.ok(), result::toString);
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

    /** The scenario the guest's init runs (/scenarios/NAME.sh in the initramfs). */
    String scenario();

    /** A virtio-net NIC served by the {@link #model()} on a vhost-user socket; none when false. */
    boolean nic() default false;

    /** The model side serving the NIC (only with {@link #nic()}). */
    Class<? extends GuestModel> model() default VhostPortModel.class;

    /** The guest's MAC: locally administered unicast. */
    String mac() default "02:00:00:00:00:01";

    /** The siw build the guest loads. */
    GuestLaunch.Siw siw() default GuestLaunch.Siw.STOCK;

    int memoryMiB() default 512;

    /** Extra kernel command line words (a scenario's parameters, e.g. "irdma_emu.peer=198.51.100.2"). */
    String[] kernelArguments() default {};

    /** A guard against a hung guest: how long the result line may take. */
    int resultTimeoutSeconds() default 120;
}
