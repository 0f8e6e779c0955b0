package dev.irdmaemu.bridge.container;

import dev.irdmaemu.bridge.boot.QemuHost;
import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.MissingGuestKitException;
import dev.irdmaemu.bridge.kit.GuestLaunch;
import dev.irdmaemu.bridge.kit.GuestResult;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A boot's QEMU in a {@link QemuGuestContainer}: the launch is the container's (the kit at its place in the
 * image), the boot's shared folder (the vhost-user socket, the initramfs with the scenarios) is bind-mounted at
 * its own path, the console goes to the boot's console log (and, for an interactive start, the guest's serial
 * input comes through a UNIX socket in that folder). Everything else of the boot, the model side above
 * all, is the same as {@code irdma-emu boot}'s.
 */
final class ContainerQemuHost implements QemuHost {
    private static final Logger LOG = LoggerFactory.getLogger(ContainerQemuHost.class);
    /** How long a start in progress gets to return after the container was stopped, before it is stopped again. */
    private static final Duration START_RETURNS = Duration.ofSeconds(30);
    /** The guest console's socket in the boot's shared folder, for an interactive start. */
    static final String CONSOLE_SOCKET = "console.sock";

    private final QemuGuestContainer container;

    ContainerQemuHost(QemuGuestContainer container) {
        this.container = Objects.requireNonNull(container, "container");
    }

    /**
     * The container's launch: the kit inside the image ({@code kit} is the same kit, as the host holds it), in its
     * e810 flavour when {@code kit} is.
     */
    @Override
    public GuestLaunch launch(GuestKit kit) {
        if (kit.flavour() == GuestKit.Flavour.E810) {
            try {
                return container.launchE810();
            } catch (MissingGuestKitException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }
        return container.launch();
    }

    @Override
    public Running start(GuestLaunch launch, Path console, Path shared) {
        return start(launch, console, shared, false);
    }

    /**
     * The guest's serial input is a UNIX socket in {@code shared} ({@value #CONSOLE_SOCKET}; QEMU in the container
     * makes it and listens), the console lines come from the container's output as ever.
     */
    @Override
    public Running startInteractive(GuestLaunch launch, Path console, Path shared, Consumer<String> lines) {
        container.withConsoleListener(lines).withConsoleSocket(shared.resolve(CONSOLE_SOCKET));
        return start(launch, console, shared, true);
    }

    private Running start(GuestLaunch launch, Path console, Path shared, boolean interactive) {
        if (launch != container.launch()) {
            throw new IllegalArgumentException("a container boots the launch it made (launch(kit)), not another");
        }
        CompletionStage<GuestResult> result = container.withSharedFolder(shared).withConsoleLog(console).startAsync();
        return new Running() {
            @Override
            public CompletionStage<GuestResult> result() {
                return result;
            }

            @Override
            public OptionalInt awaitExit(Duration timeout) throws InterruptedException {
                if (container.getContainerId() == null) {
                    return OptionalInt.empty();
                }
                return container.awaitExit(timeout);
            }

            @Override
            public void typeLine(String line) throws IOException {
                if (!interactive) {
                    throw new IllegalStateException("the guest container was started without console input");
                }
                container.typeLine(line);
            }

            @Override
            public String where() {
                return "in a container of " + container.getDockerImageName();
            }

            @Override
            public void close() {
                container.stop();
                try {
                    if (!container.awaitStart(START_RETURNS)) {
                        LOG.warn("the guest container's start did not return within {} s", START_RETURNS.toSeconds());
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                // a start that was still creating the container when it was first stopped
                container.stop();
            }
        };
    }
}
