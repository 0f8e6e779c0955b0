package dev.irdmaemu.bridge.container;

import dev.irdmaemu.bridge.kit.GuestKit;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local image a guest container runs: the guest kit on a busybox-static root file system, built by
 * {@code qemu-bridge/src/main/kit/build-image.sh} with {@code docker import} (no registry) and tagged from the
 * kit's versions, so it is rebuilt only when they change. The script decides the tag; this runs it (it only
 * checks that the image is there when it is).
 */
public final class GuestImage {
    /** The image recipe, relative to the repository root. */
    public static final Path SCRIPT = Path.of("qemu-bridge", "src", "main", "kit", "build-image.sh");
    private static final Logger LOG = LoggerFactory.getLogger(GuestImage.class);
    /** Building takes seconds (a copy and an import of about 170 MB); a guard, not an expectation. */
    private static final long TIMEOUT_SECONDS = 300;
    private static final ConcurrentHashMap<Path, String> BUILT = new ConcurrentHashMap<>();

    private GuestImage() {
    }

    /** The image holding {@code kit} (its name, repository:tag), built now when the engine lacks it. */
    public static String of(GuestKit kit) {
        return BUILT.computeIfAbsent(kit.dir(), d -> build(kit));
    }

    private static String build(GuestKit kit) {
        Path script = repositoryRoot().resolve(SCRIPT);
        List<String> out = run(List.of(script.toString(), kit.dir().toString()), "building the guest image");
        if (out.isEmpty() || out.get(out.size() - 1).isBlank()) {
            throw new IllegalStateException(script + " printed no image name");
        }
        String image = out.get(out.size() - 1).trim();
        LOG.info("guest image: {}", image);
        return image;
    }

    /** True when the engine has {@code image} locally (so Testcontainers would not try to pull it). */
    public static boolean present(String image) {
        return inspect("image", image);
    }

    /** True when the engine still has a container {@code id} (running or not). */
    public static boolean containerExists(String id) {
        return inspect("container", id);
    }

    private static boolean inspect(String kind, String name) {
        try {
            Process p = new ProcessBuilder("docker", kind, "inspect", "--format", "{{.Id}}", name)
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run the docker CLI (apt-get install docker.io): " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static List<String> run(List<String> command, String what) {
        try {
            Process p = new ProcessBuilder(command).start();
            CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> drain(p.getErrorStream()));
            String out = drain(p.getInputStream());
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(what + ": " + command.get(0) + " took over " + TIMEOUT_SECONDS + " s");
            }
            String messages = err.join().strip();
            if (!messages.isEmpty()) {
                LOG.info("{}: {}", what, messages);
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(what + " failed (" + command.get(0) + " exit " + p.exitValue() + "): " + messages);
            }
            return out.lines().toList();
        } catch (IOException e) {
            throw new IllegalStateException(what + ": cannot run " + command.get(0) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(what + ": interrupted", e);
        }
    }

    private static String drain(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    /** The nearest folder above the working directory holding the irdma-emu launcher and a pom.xml. */
    static Path repositoryRoot() {
        Path start = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        for (Path d = start; d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("irdma-emu")) && Files.isRegularFile(d.resolve("pom.xml"))) {
                return d;
            }
        }
        throw new IllegalStateException("no irdma-emu repository above " + start + " (for " + SCRIPT + ")");
    }
}
