package dev.irdmaemu.bridge.container;

import dev.irdmaemu.bridge.boot.ScenarioOverlay;
import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.GuestLaunch;
import dev.irdmaemu.bridge.kit.GuestResult;
import dev.irdmaemu.bridge.kit.MissingGuestKitException;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link GuestTest}: checks the container engine up front ({@link ContainerEngine}: a missing setting
 * fails the test at once with what to do, never a skip or a two-minute stall), finds the guest kit and its image
 * ({@link GuestImage}, built when missing), lays this build's scenarios over the kit's initramfs (as
 * {@code irdma-emu boot} does), then boots the guest's {@link QemuGuestContainer}: through the test's
 * {@link GuestModel} when the guest has a NIC, directly otherwise; either way it returns when the guest's result
 * line is in. After the test it removes the container (and checks it is gone), closes the model and removes the
 * private folder. Test methods take {@link GuestResult}, {@link QemuGuestContainer}, the {@link GuestModel} (by
 * its class) and what the model {@linkplain GuestModel#parameter offers} as parameters.
 */
public final class GuestExtension implements BeforeEachCallback, AfterEachCallback, ParameterResolver {
    private static final Logger LOG = LoggerFactory.getLogger(GuestExtension.class);
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(GuestExtension.class);
    /** Console logs and run folders go here, named after the test. */
    public static final Path FILES = Path.of("target", "guest-container");
    /** The initramfs with the scenarios laid over it, in the private folder. */
    static final String INITRAMFS = "initrd.img";

    /** What one test started, in the order it is stopped again. */
    private static final class Guest {
        Path folder;
        GuestModel model;
        QemuGuestContainer container;
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        Method method = context.getRequiredTestMethod();
        GuestTest spec = method.getAnnotation(GuestTest.class);
        if (spec == null) {
            throw new IllegalStateException(method + ": GuestExtension runs @GuestTest methods only");
        }
        ContainerEngine.require();
        GuestKit kit;
        try {
            kit = GuestKit.locate();
        } catch (MissingGuestKitException e) {
            throw new IllegalStateException(e.getMessage() + " (provision one with ./irdma-emu kit)", e);
        }
        String image = GuestImage.of(kit);
        String tiny = System.getenv(ContainerEngine.TINY_IMAGE);
        if (!tiny.equals(image) && !GuestImage.present(tiny)) {
            // Testcontainers would try to pull it from a registry and stall
            throw new ContainerEngine.ContainerEngineException(ContainerEngine.TINY_IMAGE + "=" + tiny
                    + " is not a local image; use the guest image: " + ContainerEngine.TINY_IMAGE + "=" + image);
        }
        Guest guest = new Guest();
        context.getStore(NAMESPACE).put(Guest.class, guest);
        String name = context.getRequiredTestClass().getSimpleName() + "." + method.getName();
        // a short private folder: a UNIX socket path is at most 107 bytes, and the folder is bind-mounted
        guest.folder = Files.createTempDirectory("irdma-emu-guest");
        Path initramfs = guest.folder.resolve(INITRAMFS);
        ScenarioOverlay.write(kit.initramfs(), initramfs);
        QemuGuestContainer container = new QemuGuestContainer(image, kit)
                .withSharedFolder(guest.folder)
                .withConsoleLog(FILES.resolve(name + "-console.log"))
                .withResultTimeout(Duration.ofSeconds(spec.resultTimeoutSeconds()));
        guest.container = container;
        GuestBoot boot = new GuestBoot(name, spec, kit, container, guest.folder, FILES);
        container.withLaunch(l -> {
            l.scenario(spec.scenario()).siw(boot.siw().orElse(GuestLaunch.Siw.STOCK)).memoryMiB(spec.memoryMiB())
                    .initramfs(initramfs);
            for (String word : spec.kernelArguments()) {
                l.kernelArgument(word);
            }
        });
        long started = System.nanoTime();
        if (hasNic(spec)) {
            guest.model = spec.model().getDeclaredConstructor().newInstance();
            guest.model.boot(boot);
        } else {
            container.start();
        }
        LOG.info("{}: guest container booted in {} ms", name, Duration.ofNanos(System.nanoTime() - started).toMillis());
    }

    /** A NIC when the test asks for one, or for a model other than the plain port (which would serve none). */
    static boolean hasNic(GuestTest spec) {
        return spec.nic() || spec.model() != VhostPortModel.class;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        Guest guest = context.getStore(NAMESPACE).remove(Guest.class, Guest.class);
        if (guest == null) {
            return;
        }
        Exception failure = null;
        if (guest.container != null) {
            try {
                guest.container.stop();
                guest.container.createdIds().stream().filter(GuestImage::containerExists).findFirst().ifPresent(id -> {
                    throw new IllegalStateException("the guest container " + id + " is still there after the test");
                });
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        if (guest.model != null) {
            try {
                guest.model.close();
            } catch (Exception e) {
                failure = addTo(failure, e);
            }
        }
        if (guest.folder != null) {
            try (Stream<Path> files = Files.walk(guest.folder)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            } catch (IOException e) {
                failure = addTo(failure, e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private static Exception addTo(Exception first, Exception next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        if (type == GuestResult.class || type == QemuGuestContainer.class) {
            return true;
        }
        GuestTest spec = context.getRequiredTestMethod().getAnnotation(GuestTest.class);
        if (spec == null || !hasNic(spec)) {
            return false;
        }
        if (GuestModel.class.isAssignableFrom(type) && type.isAssignableFrom(spec.model())) {
            return true;
        }
        Guest guest = context.getStore(NAMESPACE).get(Guest.class, Guest.class);
        return guest != null && guest.model != null && guest.model.parameter(type).isPresent();
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Guest guest = context.getStore(NAMESPACE).get(Guest.class, Guest.class);
        if (guest == null || guest.container == null) {
            throw new ParameterResolutionException("no guest container for " + context.getDisplayName());
        }
        Class<?> type = parameter.getParameter().getType();
        if (type == GuestResult.class) {
            try {
                return guest.container.result();
            } catch (IllegalStateException e) {
                throw new ParameterResolutionException(context.getDisplayName() + ": " + e.getMessage()
                        + " (console: " + guest.container.consoleLog() + ")", e);
            }
        }
        if (type == QemuGuestContainer.class) {
            return guest.container;
        }
        if (type.isInstance(guest.model)) {
            return guest.model;
        }
        return guest.model.parameter(type).orElseThrow(() -> new ParameterResolutionException(
                context.getDisplayName() + ": the model offers no " + type.getSimpleName()));
    }
}
