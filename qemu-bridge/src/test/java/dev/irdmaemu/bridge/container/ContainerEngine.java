package dev.irdmaemu.bridge.container;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The up-front check that a container engine is there for Testcontainers, set up the way this project needs it.
 * Each setting it checks, when missing, makes Testcontainers stall for two minutes (looking for an engine, for
 * Ryuk's image, for the helper image it pulls) instead of failing: this fails at once, with one message saying
 * how to get an engine or how to leave the container tests out.
 */
public final class ContainerEngine {
    /** The socket of the engine (only {@code unix://} here: a local, private dockerd). */
    public static final String DOCKER_HOST = "DOCKER_HOST";
    /** Ryuk (the reaper container) is an image to pull: off; the extension removes its containers itself. */
    public static final String RYUK_DISABLED = "TESTCONTAINERS_RYUK_DISABLED";
    /** Inside a container (a /.dockerenv) Testcontainers would look for the engine's gateway, not localhost. */
    public static final String HOST_OVERRIDE = "TESTCONTAINERS_HOST_OVERRIDE";
    /** The helper image Testcontainers runs its checks in: a local image with a default CMD (the guest image). */
    public static final String TINY_IMAGE = "TESTCONTAINERS_TINYIMAGE_CONTAINER_IMAGE";

    private ContainerEngine() {
    }

    /** The environment the container tests run with, as {@link #problem} wants it (for a message). */
    static String exports(String image) {
        return "export DOCKER_HOST=unix:///run/irdma-emu/docker.sock " + RYUK_DISABLED + "=true "
                + HOST_OVERRIDE + "=localhost " + TINY_IMAGE + "=" + (image == null || image.isBlank() ? "<the guest image>" : image);
    }

    /**
     * What is wrong with the engine environment {@code env} (a process environment), or empty when the container
     * tests can run: every setting there, and something listening on DOCKER_HOST's socket. Nothing here waits: a
     * UNIX socket connect is answered or refused at once.
     */
    public static Optional<String> problem(Map<String, String> env) {
        List<String> missing = new ArrayList<>();
        String host = env.getOrDefault(DOCKER_HOST, "");
        String socketProblem = null;
        if (host.isBlank()) {
            missing.add(DOCKER_HOST);
        } else if (!host.startsWith("unix://")) {
            socketProblem = DOCKER_HOST + "=" + host + " is not a unix:// socket";
        } else {
            socketProblem = unreachable(Path.of(host.substring("unix://".length()))).orElse(null);
        }
        if (!"true".equals(env.getOrDefault(RYUK_DISABLED, ""))) {
            missing.add(RYUK_DISABLED + "=true");
        }
        if (env.getOrDefault(HOST_OVERRIDE, "").isBlank()) {
            missing.add(HOST_OVERRIDE);
        }
        if (env.getOrDefault(TINY_IMAGE, "").isBlank()) {
            missing.add(TINY_IMAGE);
        }
        if (missing.isEmpty() && socketProblem == null) {
            return Optional.empty();
        }
        StringBuilder why = new StringBuilder("no container engine set up for the container tests (@GuestTest): ");
        if (!missing.isEmpty()) {
            why.append("missing ").append(String.join(", ", missing));
        }
        if (socketProblem != null) {
            why.append(missing.isEmpty() ? "" : "; ").append(socketProblem);
        }
        why.append(". ./irdma-emu test starts a private dockerd and sets them; by hand: start dockerd (apt-get install"
                + " docker.io; dockerd -H unix:///run/irdma-emu/docker.sock &), build the guest image"
                + " (qemu-bridge/src/main/kit/build-image.sh prints its name), then ")
                .append(exports(env.get(TINY_IMAGE)))
                .append(". Or leave the container tests out: mvn test -DexcludedGroups=")
                .append(GuestTest.TAG);
        return Optional.of(why.toString());
    }

    /** Fails with {@link #problem}'s message when the engine environment of this process is not usable. */
    public static void require() {
        problem(System.getenv()).ifPresent(p -> {
            throw new ContainerEngineException(p);
        });
    }

    private static Optional<String> unreachable(Path socket) {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(socket, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            return Optional.of("no engine socket at " + socket);
        }
        if (!a.isOther()) {
            return Optional.of(socket + " is not a socket");
        }
        try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            c.connect(UnixDomainSocketAddress.of(socket));
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of("nothing listens on " + socket + " (" + e.getMessage() + ")");
        }
    }

    /** The engine environment is missing or broken; the message says what to do. */
    public static final class ContainerEngineException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ContainerEngineException(String message) {
            super(message);
        }
    }
}
