package dev.irdmaemu.bridge.boot;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scenarios laid over an initramfs: the base is kept byte for byte, the overlay follows as a second gzip
 * member holding a newc archive (cpio(5)) of every scenario in the jar, which are the files in
 * src/main/kit/guest/scenarios. (That the guest's kernel unpacks it is what every boot test shows.)
 */
class ScenarioOverlayTest {
    @TempDir
    Path dir;

    @Test
    void theBaseIsKeptAndTheOverlayHoldsEveryScenarioOfTheJar() throws IOException {
        Map<String, byte[]> baseFiles = new LinkedHashMap<>();
        baseFiles.put("scenarios/smoke.sh", "old smoke\n".getBytes(StandardCharsets.UTF_8));
        byte[] base = ScenarioOverlay.gzip(ScenarioOverlay.archive(baseFiles));
        Path in = dir.resolve("base.cpio.gz");
        Files.write(in, base);
        Path out = dir.resolve("initrd.img");
        ScenarioOverlay.write(in, out);
        byte[] all = Files.readAllBytes(out);
        byte[] prefix = java.util.Arrays.copyOf(all, base.length);
        assertArrayEquals(base, prefix, "the kit's initramfs comes first, unchanged");

        // both gzip members, one after the other, as the kernel reads them
        byte[] cpio;
        try (InputStream z = new GZIPInputStream(Files.newInputStream(out))) {
            cpio = z.readAllBytes();
        }
        Map<String, byte[]> entries = new LinkedHashMap<>();
        int at = 0;
        int archives = 0;
        while (at < cpio.length) {
            String magic = new String(cpio, at, 6, StandardCharsets.US_ASCII);
            assertEquals(ScenarioOverlay.MAGIC, magic, "newc magic at " + at);
            assertEquals(0, at % 4, "entries start on 4-byte boundaries");
            int size = field(cpio, at, 6);
            int nameSize = field(cpio, at, 11);
            String name = new String(cpio, at + ScenarioOverlay.HEADER_LENGTH, nameSize - 1, StandardCharsets.US_ASCII);
            assertEquals(0, cpio[at + ScenarioOverlay.HEADER_LENGTH + nameSize - 1], "names end with NUL");
            int data = align(at + ScenarioOverlay.HEADER_LENGTH + nameSize);
            if (name.equals(ScenarioOverlay.TRAILER)) {
                archives++;
            } else if (size > 0) {
                entries.put(archives + ":" + name, java.util.Arrays.copyOfRange(cpio, data, data + size));
            }
            at = align(data + size);
        }
        assertEquals(2, archives);
        assertEquals("old smoke\n", new String(entries.get("0:scenarios/smoke.sh"), StandardCharsets.UTF_8));
        for (BootScenario s : BootScenario.values()) {
            Path source = Path.of("src", "main", "kit", "guest", "scenarios", s.word() + ".sh");
            assertTrue(Files.isRegularFile(source), "the scenario's script is in the kit's sources: " + source);
            assertArrayEquals(Files.readAllBytes(source), entries.get("1:scenarios/" + s.word() + ".sh"),
                    s.word() + ": the overlay carries the script of this build");
        }
        for (String extra : ScenarioOverlay.FRAGMENTS) {
            Path source = Path.of("src", "main", "kit", "guest", "scenarios", extra + ".sh");
            assertArrayEquals(Files.readAllBytes(source), entries.get("1:scenarios/" + extra + ".sh"),
                    extra + ": the overlay carries the scripts the scenarios source, and the pair scenario");
        }
        assertEquals(BootScenario.values().length + ScenarioOverlay.FRAGMENTS.size() + 1, entries.size());
    }

    @Test
    void namedScenariosAreLaidOverTheBaseAndAnUnknownNameIsRefused() throws IOException {
        Path in = dir.resolve("base.cpio.gz");
        Files.write(in, ScenarioOverlay.gzip(ScenarioOverlay.archive(new LinkedHashMap<>())));
        Path out = dir.resolve("named.img");
        ScenarioOverlay.write(in, out, "e810-lifecycle");
        byte[] cpio;
        try (InputStream z = new GZIPInputStream(Files.newInputStream(out))) {
            cpio = z.readAllBytes();
        }
        String text = new String(cpio, StandardCharsets.US_ASCII);
        assertTrue(text.contains("scenarios/e810-lifecycle.sh"), "the named scenario is in the overlay");
        assertTrue(text.contains("IRDMA-EMU-CHECKPOINT"), "with the script of this build");
        assertFalse(text.contains("scenarios/smoke.sh"), "and nothing it was not asked for");
        assertThrows(IOException.class, () -> ScenarioOverlay.write(in, dir.resolve("x.img"), "no-such-scenario"));
    }

    @Test
    void aNewcHeaderIsThirteenHexFieldsAfterTheMagic() {
        Map<String, byte[]> one = new LinkedHashMap<>();
        one.put("scenarios/x.sh", new byte[] {'e', 'c', 'h', 'o', '\n'});
        byte[] a = ScenarioOverlay.archive(one);
        String dirHeader = new String(a, 0, ScenarioOverlay.HEADER_LENGTH, StandardCharsets.US_ASCII);
        // ino 1e0000, mode 040755, uid 0, gid 0, nlink 2, mtime 0, size 0, dev 0 0, rdev 0 0, namesize 10, check 0
        assertEquals("070701" + "001e0000" + "000041ed" + "00000000" + "00000000" + "00000002" + "00000000"
                + "00000000" + "00000000" + "00000000" + "00000000" + "00000000" + "0000000a" + "00000000", dirHeader);
        assertTrue(new String(a, StandardCharsets.US_ASCII).contains("TRAILER!!!"));
        assertEquals(0, a.length % 4);
    }

    private static int field(byte[] b, int entry, int index) {
        return Integer.parseInt(new String(b, entry + 6 + 8 * index, 8, StandardCharsets.US_ASCII), 16);
    }

    private static int align(int n) {
        return (n + 3) & ~3;
    }
}
