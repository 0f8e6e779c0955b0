package dev.irdmaemu.bridge.container;

import dev.irdmaemu.bridge.kit.GuestKit;
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
 * ({@link GuestImage}, built when missing), starts the model side when the guest has a NIC, then the guest's
 * {@link QemuGuestContainer}, and waits for its result line. After the test it removes the container and stops
 * the model. Test methods take {@link GuestResult}, {@link QemuGuestContainer} or the {@link GuestModel} (by its
 * class) as parameters.
 */
public final class GuestExtension implements BeforeEachCallback, AfterEachCallback, ParameterResolver {
    private static final Logger LOG = LoggerFactory.getLogger(GuestExtension.class);
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(GuestExtension.class);
    /** Console logs go here, one per test, named after it. */
    public static final Path CONSOLE_LOGS = Path.of("target", "guest-container");

    /** What one test started, in the order it is stopped again. */
    private static final class Guest {
        Path socketDir;
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
        QemuGuestContainer container = new QemuGuestContainer(image, kit)
                .withLaunch(l -> {
                    l.scenario(spec.scenario()).siw(spec.siw()).memoryMiB(spec.memoryMiB());
                    for (String word : spec.kernelArguments()) {
                        l.kernelArgument(word);
                    }
                })
                .withConsoleLog(CONSOLE_LOGS.resolve(name + "-console.log"))
                .withResultTimeout(Duration.ofSeconds(spec.resultTimeoutSeconds()));
        if (spec.nic()) {
            // a short private folder: a UNIX socket path is at most 107 bytes, and the folder is bind-mounted
            guest.socketDir = Files.createTempDirectory("irdma-emu-vhost");
            Path socket = guest.socketDir.resolve("net0.sock");
            guest.model = spec.model().getDeclaredConstructor().newInstance();
            guest.model.start(socket);
            container.withVhostUserNic(socket, spec.mac());
        }
        guest.container = container;
        long started = System.nanoTime();
        container.start();
        LOG.info("{}: guest container started, result after {} ms: {}", name,
                Duration.ofNanos(System.nanoTime() - started).toMillis(), container.result());
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
        if (guest.socketDir != null) {
            try (Stream<Path> files = Files.walk(guest.socketDir)) {
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
        GuestTest spec = context.getRequiredTestMethod().getAnnotation(GuestTest.class);
        return type == GuestResult.class || type == QemuGuestContainer.class
                || (spec != null && spec.nic() && GuestModel.class.isAssignableFrom(type) && type.isAssignableFrom(spec.model()));
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Guest guest = context.getStore(NAMESPACE).get(Guest.class, Guest.class);
        if (guest == null || guest.container == null) {
            throw new ParameterResolutionException("no guest container for " + context.getDisplayName());
        }
        Class<?> type = parameter.getParameter().getType();
        if (type == GuestResult.class) {
            return guest.container.result();
        }
        if (type == QemuGuestContainer.class) {
            return guest.container;
        }
        return guest.model;
    }
}
