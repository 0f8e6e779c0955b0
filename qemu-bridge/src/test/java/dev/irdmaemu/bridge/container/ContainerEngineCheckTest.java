package dev.irdmaemu.bridge.container;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fail-fast check that runs before any guest container: what a missing engine setting is told as. */
class ContainerEngineCheckTest {
    @TempDir
    Path dir;

    private Map<String, String> complete(Path socket) {
        Map<String, String> env = new HashMap<>();
        env.put(ContainerEngine.DOCKER_HOST, "unix://" + socket);
        env.put(ContainerEngine.RYUK_DISABLED, "true");
        env.put(ContainerEngine.HOST_OVERRIDE, "localhost");
        env.put(ContainerEngine.TINY_IMAGE, "irdma-emu-guest:r0");
        return env;
    }

    @Test
    void noEngineSettingsAtAllNamesEveryOneAndBothWaysOut() {
        String why = ContainerEngine.problem(Map.of()).orElseThrow();
        assertTrue(why.startsWith("no container engine set up for the container tests (@GuestTest): missing DOCKER_HOST, "
                + "TESTCONTAINERS_RYUK_DISABLED=true, TESTCONTAINERS_HOST_OVERRIDE, TESTCONTAINERS_TINYIMAGE_CONTAINER_IMAGE."), why);
        assertTrue(why.contains("./irdma-emu test starts a private dockerd"), why);
        assertTrue(why.contains("dockerd -H unix://"), "how to start an engine: " + why);
        assertTrue(why.endsWith("Or leave the container tests out: mvn test -DexcludedGroups=container"), why);
        assertEquals(1, why.lines().count(), "one line");
    }

    @Test
    void aSocketNobodyListensOnIsNamed() throws IOException {
        Path socket = dir.resolve("docker.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
        }
        // closed: the socket file stays, nothing answers
        String why = ContainerEngine.problem(complete(socket)).orElseThrow();
        assertTrue(why.contains("nothing listens on " + socket), why);
    }

    @Test
    void aMissingSocketOrAFileInItsPlaceIsNamed() throws IOException {
        Path socket = dir.resolve("absent.sock");
        assertTrue(ContainerEngine.problem(complete(socket)).orElseThrow().contains("no engine socket at " + socket));
        Path file = Files.writeString(dir.resolve("plain"), "not a socket");
        assertTrue(ContainerEngine.problem(complete(file)).orElseThrow().contains(file + " is not a socket"));
        Map<String, String> tcp = complete(socket);
        tcp.put(ContainerEngine.DOCKER_HOST, "tcp://192.0.2.1:2375");
        assertTrue(ContainerEngine.problem(tcp).orElseThrow().contains("DOCKER_HOST=tcp://192.0.2.1:2375 is not a unix:// socket"));
    }

    @Test
    void ryukMustBeOffAndEachMissingSettingIsNamedAlone() throws IOException {
        Path socket = dir.resolve("e.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            Map<String, String> env = complete(socket);
            env.put(ContainerEngine.RYUK_DISABLED, "false");
            String why = ContainerEngine.problem(env).orElseThrow();
            assertTrue(why.contains("missing TESTCONTAINERS_RYUK_DISABLED=true."), why);
            env = complete(socket);
            env.remove(ContainerEngine.TINY_IMAGE);
            why = ContainerEngine.problem(env).orElseThrow();
            assertTrue(why.contains("missing TESTCONTAINERS_TINYIMAGE_CONTAINER_IMAGE."), why);
        }
    }

    @Test
    void aListeningSocketAndEverySettingPass() throws IOException {
        Path socket = dir.resolve("ok.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            assertEquals(Optional.empty(), ContainerEngine.problem(complete(socket)));
        }
    }

    @Test
    void requireThrowsTheSameMessageWhenThisProcessLacksAnEngine() {
        Optional<String> here = ContainerEngine.problem(System.getenv());
        if (here.isPresent()) {
            ContainerEngine.ContainerEngineException e = assertThrows(ContainerEngine.ContainerEngineException.class,
                    ContainerEngine::require);
            assertEquals(here.get(), e.getMessage());
        } else {
            ContainerEngine.require();
        }
    }
}
