package dev.irdmaemu.bridge.vfiouser;

import java.io.FileDescriptor;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.newsclub.net.unix.FileDescriptorCast;

/** Descriptor accounting through /proc/self/fd, for the leak checks. */
final class Fds {
    private Fds() {
    }

    /** Open descriptors of this process now. */
    static int open() throws IOException {
        int n = 0;
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path ignored : fds) {
                n++;
            }
        }
        return n - 1; // the directory stream's own
    }

    /** What each open descriptor refers to now (for a failing leak check's message). */
    static java.util.SortedMap<Integer, String> list() throws IOException {
        java.util.SortedMap<Integer, String> m = new java.util.TreeMap<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path p : fds) {
                try {
                    m.put(Integer.parseInt(p.getFileName().toString()), Files.readSymbolicLink(p).toString());
                } catch (IOException vanished) {
                    // the directory stream's own
                }
            }
        }
        return m;
    }

    /**
     * Descriptors open now that were not open (with the same target) in {@code before}: what a piece of code left
     * behind. Immune to other descriptors closing meanwhile (garbage of earlier tests); the directory listing's own
     * descriptor is left out.
     */
    static java.util.SortedMap<Integer, String> added(java.util.SortedMap<Integer, String> before) throws IOException {
        java.util.SortedMap<Integer, String> now = list();
        now.entrySet().removeIf(e -> e.getValue().equals(before.get(e.getKey())) || e.getValue().startsWith("/proc/"));
        return now;
    }

    static int number(FileDescriptor fd) throws IOException {
        return FileDescriptorCast.using(fd).as(Integer.class);
    }

    /** How many descriptors of this process refer to the same open file (pipe, socket, file) as {@code fd}. */
    static int sharing(FileDescriptor fd) throws IOException {
        Path target = Files.readSymbolicLink(Path.of("/proc/self/fd/" + number(fd)));
        int n = 0;
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path p : fds) {
                try {
                    if (Files.readSymbolicLink(p).equals(target)) {
                        n++;
                    }
                } catch (IOException vanished) {
                    // the directory stream's own descriptor, or one closed meanwhile
                }
            }
        }
        return n;
    }

    /** Mappings of {@code file} in this process (/proc/self/maps). */
    static long mappingsOf(Path file) throws IOException {
        String name = file.toAbsolutePath().toString();
        return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.contains(name)).count();
    }

    /** Polls {@code check} for up to {@code millis}; true once it holds. */
    static boolean eventually(long millis, IoCheck check) throws Exception {
        long deadline = System.currentTimeMillis() + millis;
        while (true) {
            if (check.holds()) {
                return true;
            }
            if (System.currentTimeMillis() > deadline) {
                return false;
            }
            Thread.sleep(10);
        }
    }

    interface IoCheck {
        boolean holds() throws Exception;
    }
}
