package dev.irdmaemu.bridge.fleet;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The fake docker CLI of the fleet tests ({@code fake-docker.sh}, which says what each scenario's container does),
 * copied into a test folder and made executable; its state beside it.
 */
final class FakeEngine {
    static final String URL = "tcp://127.0.0.1:1";

    final Path cli;
    final Path state;

    FakeEngine(Path dir) throws IOException {
        cli = dir.resolve("fake-docker.sh");
        state = dir.resolve("state");
        try (InputStream in = FakeEngine.class.getResourceAsStream("fake-docker.sh")) {
            Files.copy(in, cli, StandardCopyOption.REPLACE_EXISTING);
        }
        if (!cli.toFile().setExecutable(true)) {
            throw new IOException("cannot make " + cli + " executable");
        }
        Files.createDirectories(state);
    }

    DockerCli docker() {
        return new DockerCli(cli, URL);
    }

    List<String> removed() throws IOException {
        Path f = state.resolve("removed");
        return Files.exists(f) ? Files.readAllLines(f) : List.of();
    }

    /** The most containers running at once, from the fake's start and end lines. */
    int mostAtOnce() throws IOException {
        List<long[]> events = new ArrayList<>();
        for (String l : Files.readAllLines(state.resolve("events"))) {
            String[] w = l.split(" ");
            events.add(new long[] {Long.parseLong(w[1]), w[0].equals("start") ? 1 : -1});
        }
        events.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        int now = 0;
        int most = 0;
        for (long[] e : events) {
            now += (int) e[1];
            most = Math.max(most, now);
        }
        return most;
    }
}
