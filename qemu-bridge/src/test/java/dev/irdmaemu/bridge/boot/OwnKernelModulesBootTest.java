package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.bridge.run.BootRun;
import dev.irdmaemu.bridge.run.BootReport;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.kit.GuestKit;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, item 4: the user's own kernel and modules on the E810 path ({@code boot --kernel K --modules DIR}). The
 * "user's" tree here is the kit's Linux 7.3 modules laid out as {@code make modules_install} writes them (nested
 * folders, a modules.dep with those paths); the boot takes ice.ko, irdma.ko and the RDMA core from it, not from the
 * kit: the guest's init loads the tree's closure (8 modules, where the kit's own list has 11), and irdma.ko still
 * runs rping against the node.
 */
class OwnKernelModulesBootTest {
    @Test
    void aModulesTreeReplacesTheKitsAndIrdmaStillConnects() throws Exception {
        GuestKit e810 = BootTests.kit().e810();
        String release = e810.kernelRelease();
        Path tree = Path.of("target", "boot-tests", "own-modules", "lib", "modules", release).toAbsolutePath();
        int modules = 0;
        StringBuilder dep = new StringBuilder();
        byte[] cpio;
        try (InputStream z = new GZIPInputStream(Files.newInputStream(e810.initramfs()))) {
            cpio = z.readAllBytes();
        }
        String prefix = "usr/lib/modules/" + release + "/";
        for (int at = 0; at + 110 <= cpio.length; ) {
            int size = hex(cpio, at + 54);
            int nameSize = hex(cpio, at + 94);
            String name = new String(cpio, at + 110, nameSize - 1, StandardCharsets.US_ASCII);
            int data = align(at + 110 + nameSize);
            if (name.equals("TRAILER!!!")) {
                break;
            }
            if (name.startsWith(prefix) && name.endsWith(".ko")) {
                Path f = tree.resolve("kernel/drivers").resolve(name.substring(prefix.length()));
                Files.createDirectories(f.getParent());
                Files.write(f, java.util.Arrays.copyOfRange(cpio, data, data + size));
                modules++;
            } else if (name.equals(prefix + "modules.dep")) {
                for (String line : new String(cpio, data, size, StandardCharsets.UTF_8).split("\n")) {
                    dep.append(line.replaceAll("([A-Za-z0-9_-]+\\.ko)", "kernel/drivers/$1")).append('\n');
                }
            }
            at = align(data + size);
        }
        assertTrue(modules >= 20, "the kit's e810 modules were found: " + modules);
        Files.writeString(tree.resolve("modules.dep"), dep);

        BootOptions o = BootOptions.of(BootScenario.RPING_CLIENT, Path.of("target", "boot-tests", "own-modules-run"))
                .withTimeout(BootTests.TIMEOUT);
        o = new BootOptions(o.scenario(), null, e810.kernel(), null, o.runDir(), o.timeout(), o.memoryMiB(),
                BootOptions.Nic.E810, tree);
        BootReport r = new BootRun(BootTests.kit(), o, line -> { }).run();
        assertTrue(r.ok(), () -> String.join("\n", r.summary()));
        assertEquals("8", r.guest().field("modules"), "the init loaded the tree's RDMA closure, not the kit's list");
        assertEquals("10", r.guest().field("rping_pings"));
        assertEquals("iWARP", r.guest().field("transport"));
        assertTrue(r.e810().empty(), r.e810()::toString);
    }

    private static int hex(byte[] b, int at) {
        return Integer.parseInt(new String(b, at, 8, StandardCharsets.US_ASCII), 16);
    }

    private static int align(int n) {
        return (n + 3) & ~3;
    }
}
