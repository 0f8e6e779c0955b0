package dev.irdmaemu.bridge.boot;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The temporary folders a run shares with its QEMU (sockets, initramfs overlays), removed when the run ends. */
public final class TempFolders {
    private static final Logger LOG = LoggerFactory.getLogger(TempFolders.class);

    private TempFolders() {
    }

    /**
     * Removes {@code dir} and everything under it. Meant for a {@code finally} block: a failure is logged, not
     * thrown, so that it cannot hide the run's own outcome or exception.
     */
    public static void delete(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            LOG.warn("cannot remove {}: {}", dir, e.toString());
        }
    }
}
