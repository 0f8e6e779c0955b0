package dev.irdmaemu.bridge.boot;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPOutputStream;

/**
 * The guest's scenarios laid over an initramfs: the kit's initramfs followed by a second, gzip-compressed newc
 * archive holding {@code scenarios/NAME.sh} for every {@link BootScenario}, from this jar. The kernel unpacks the
 * archives of an initramfs one after the other, a later file replacing an earlier one of the same name
 * (Documentation/driver-api/early-userspace/buffer-format.rst: "initramfs := (cpio_archive | compressed
 * cpio_archive)*"), so the guest runs the scenarios this build was made with, whichever recipe made the kit:
 * a new scenario needs no new kit.
 *
 * <p>The archive is written in the "new ASCII" format (cpio(5), magic 070701): a 110-byte header of 13 eight-digit
 * hex fields, the NUL-terminated name padded to a multiple of four, the data padded the same way, and the
 * {@code TRAILER!!!} entry last.
 */
public final class ScenarioOverlay {
    static final String MAGIC = "070701";
    static final int HEADER_LENGTH = 110;
    static final String TRAILER = "TRAILER!!!";
    /** Inode numbers of the overlay's entries: apart from the kit's (busybox cpio numbers those from 1). */
    private static final int FIRST_INODE = 0x1e_0000;
    private static final int DIRECTORY = 0040755;
    private static final int REGULAR = 0100644;

    private ScenarioOverlay() {
    }

    /** Scripts beyond the boot scenarios: the NIC and iWARP set-up they source, and the two-guest rping pair. */
    static final List<String> FRAGMENTS = List.of("nic", "rping-pair");

    /** The scenario scripts in this jar and the fragments they source, by their path in the initramfs. */
    public static Map<String, byte[]> scenarios() throws IOException {
        List<String> words = new ArrayList<>(FRAGMENTS);
        for (BootScenario s : BootScenario.values()) {
            words.add(s.word());
        }
        return scripts(words);
    }

    /** The scripts {@code words} of this jar, by their path in the initramfs ({@code scenarios/WORD.sh}). */
    private static Map<String, byte[]> scripts(List<String> words) throws IOException {
        Map<String, byte[]> files = new LinkedHashMap<>();
        for (String word : words) {
            String resource = BootScenario.resourceOf(word);
            try (InputStream in = ScenarioOverlay.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IOException("the jar lacks the guest scenario " + resource);
                }
                files.put("scenarios/" + word + ".sh", in.readAllBytes());
            }
        }
        return files;
    }

    /** Writes {@code base} (an initramfs) then the overlay of this jar's scenarios to {@code out}. */
    public static void write(Path base, Path out) throws IOException {
        writeFiles(base, out, scenarios());
    }

    /**
     * As {@link #write(Path, Path)}, with {@code extra} files (path in the initramfs to bytes) in the same overlay,
     * replacing the base's files of the same paths: e.g. the user's kernel modules ({@link GuestModules}).
     */
    public static void write(Path base, Path out, Map<String, byte[]> extra) throws IOException {
        Map<String, byte[]> files = new LinkedHashMap<>(scenarios());
        files.putAll(extra);
        writeFiles(base, out, files);
    }

    /**
     * Writes {@code base} then an overlay of the scenarios {@code names} (their scripts in this jar, whether or
     * not a {@link BootScenario} names them: e.g. the e810 flavour's) to {@code out}.
     */
    public static void write(Path base, Path out, String... names) throws IOException {
        writeFiles(base, out, scripts(List.of(names)));
    }

    private static void writeFiles(Path base, Path out, Map<String, byte[]> files) throws IOException {
        byte[] overlay = gzip(archive(files));
        try (OutputStream o = Files.newOutputStream(out)) {
            Files.copy(base, o);
            o.write(overlay);
        }
    }

    /**
     * A newc archive of the directory {@code scenarios}, every other folder the files lie in (parents first: the
     * kernel's unpacker makes no folder by itself; one the base already has is made again harmlessly), and
     * {@code files} (paths relative to the root).
     */
    static byte[] archive(Map<String, byte[]> files) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int inode = FIRST_INODE;
        Set<String> folders = new LinkedHashSet<>();
        folders.add("scenarios");
        for (String path : files.keySet()) {
            for (int slash = path.indexOf('/'); slash > 0; slash = path.indexOf('/', slash + 1)) {
                folders.add(path.substring(0, slash));
            }
        }
        for (String folder : folders) {
            entry(out, folder, DIRECTORY, 2, inode++, new byte[0]);
        }
        for (Map.Entry<String, byte[]> f : files.entrySet()) {
            entry(out, f.getKey(), REGULAR, 1, inode++, f.getValue());
        }
        entry(out, TRAILER, 0, 1, 0, new byte[0]);
        return out.toByteArray();
    }

    private static void entry(ByteArrayOutputStream out, String name, int mode, int links, int inode, byte[] data) {
        byte[] n = name.getBytes(StandardCharsets.US_ASCII);
        StringBuilder h = new StringBuilder(HEADER_LENGTH).append(MAGIC);
        // ino, mode, uid, gid, nlink, mtime, filesize, devmajor, devminor, rdevmajor, rdevminor, namesize, check
        for (long v : new long[] {inode, mode, 0, 0, links, 0, data.length, 0, 0, 0, 0, n.length + 1, 0}) {
            h.append(String.format("%08x", v));
        }
        out.writeBytes(h.toString().getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(n);
        out.write(0);
        pad(out, HEADER_LENGTH + n.length + 1);
        out.writeBytes(data);
        pad(out, data.length);
    }

    private static void pad(ByteArrayOutputStream out, int length) {
        for (int i = length; i % 4 != 0; i++) {
            out.write(0);
        }
    }

    static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(data);
        }
        return out.toByteArray();
    }
}
