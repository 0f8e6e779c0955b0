package dev.irdmaemu.bridge.boot;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GuestModulesTest {
    @TempDir
    Path root;

    /** A tree as make modules_install writes it: nested paths, a dash in a file name, configfs built in. */
    private Path tree(String release, boolean withIrdma) throws IOException {
        Path t = root.resolve("lib/modules").resolve(release);
        String[][] modules = {
            {"kernel/drivers/infiniband/core/ib_core.ko", ""},
            {"kernel/drivers/infiniband/core/ib_uverbs.ko", "kernel/drivers/infiniband/core/ib_core.ko"},
            {"kernel/drivers/infiniband/core/iw_cm.ko", "kernel/drivers/infiniband/core/ib_core.ko"},
            {"kernel/drivers/infiniband/core/ib_cm.ko", "kernel/drivers/infiniband/core/ib_core.ko"},
            {"kernel/drivers/infiniband/core/rdma_cm.ko", "kernel/drivers/infiniband/core/ib_cm.ko "
                    + "kernel/drivers/infiniband/core/iw_cm.ko kernel/drivers/infiniband/core/ib_core.ko"},
            {"kernel/drivers/infiniband/core/rdma_ucm.ko", "kernel/drivers/infiniband/core/ib_uverbs.ko "
                    + "kernel/drivers/infiniband/core/rdma_cm.ko kernel/drivers/infiniband/core/ib_cm.ko "
                    + "kernel/drivers/infiniband/core/iw_cm.ko kernel/drivers/infiniband/core/ib_core.ko"},
            {"kernel/drivers/net/ethernet/intel/libie/libie-adminq.ko", ""},
            {"kernel/drivers/net/ethernet/intel/ice/ice.ko", "kernel/drivers/net/ethernet/intel/libie/libie-adminq.ko"},
            {"kernel/drivers/infiniband/hw/irdma/irdma.ko", "kernel/drivers/net/ethernet/intel/ice/ice.ko "
                    + "kernel/drivers/infiniband/core/ib_core.ko kernel/drivers/net/ethernet/intel/libie/libie-adminq.ko"},
        };
        StringBuilder dep = new StringBuilder();
        for (String[] m : modules) {
            if (!withIrdma && m[0].contains("irdma")) {
                continue;
            }
            Path f = t.resolve(m[0]);
            Files.createDirectories(f.getParent());
            Files.write(f, ("ELF " + m[0]).getBytes(StandardCharsets.US_ASCII));
            dep.append(m[0]).append(':').append(m[1].isEmpty() ? "" : " " + m[1]).append('\n');
        }
        Files.writeString(t.resolve("modules.dep"), dep);
        Files.writeString(t.resolve("modules.builtin"), "kernel/fs/configfs/configfs.ko\n");
        return t;
    }

    @Test
    void theNeededModulesGoFlatWithAFlatModulesDepTheInitOrderAndTheKernelsRelease() throws Exception {
        Path t = tree("7.3.0-mine", true);
        Map<String, byte[]> files = GuestModules.overlay(t, "abc123");
        String base = "usr/lib/modules/7.3.0-mine/";
        assertArrayEquals(Files.readAllBytes(t.resolve("kernel/drivers/net/ethernet/intel/ice/ice.ko")),
                files.get(base + "ice.ko"), "the module's own bytes, laid flat");
        assertTrue(files.containsKey(base + "libie_adminq.ko"), "a dash becomes an underscore, as modprobe names it");
        String dep = new String(files.get(base + "modules.dep"), StandardCharsets.UTF_8);
        assertTrue(dep.contains("irdma.ko: ice.ko libie_adminq.ko ib_core.ko\n")
                || dep.contains("irdma.ko: ib_core.ko ice.ko libie_adminq.ko\n")
                || dep.lines().anyMatch(l -> l.startsWith("irdma.ko:") && l.endsWith(" ib_core.ko")
                        || l.startsWith("irdma.ko:") && l.endsWith(" libie_adminq.ko")), dep);
        assertTrue(dep.lines().anyMatch(l -> l.equals("ib_core.ko:")), dep);
        List<String> order = new String(files.get("etc/modules.order"), StandardCharsets.UTF_8).lines().toList();
        assertEquals(List.of("ib_core", "ib_uverbs", "iw_cm", "ib_cm", "rdma_cm", "rdma_ucm"), order,
                "the init loads the RDMA core, dependencies first; configfs is built in; ice and irdma are the "
                        + "scenario's");
        String kit = new String(files.get("etc/irdma-emu-kit"), StandardCharsets.UTF_8);
        assertTrue(kit.contains("KVER=7.3.0-mine\n") && kit.contains("FLAVOUR=e810\n") && kit.contains("RECIPE=abc123"),
                kit);
        assertFalse(files.keySet().stream().anyMatch(p -> p.contains("configfs")), "nothing of a built-in module");
    }

    @Test
    void aTreeWithoutIrdmaAFolderWithoutModulesDepAndACompressedModuleAreRefusedByName() throws Exception {
        IOException missing = assertThrows(IOException.class, () -> GuestModules.overlay(tree("7.3.0-noirdma",
                false), "r"));
        assertTrue(missing.getMessage().contains("no irdma"), missing.getMessage());
        Path empty = Files.createDirectories(root.resolve("lib/modules/7.3.0-empty"));
        assertTrue(assertThrows(IOException.class, () -> GuestModules.overlay(empty, "r")).getMessage()
                .contains("no modules.dep"));
        Path xz = tree("7.3.0-xz", true);
        String dep = Files.readString(xz.resolve("modules.dep")).replace("ice/ice.ko", "ice/ice.ko.xz");
        Files.writeString(xz.resolve("modules.dep"), dep);
        Files.move(xz.resolve("kernel/drivers/net/ethernet/intel/ice/ice.ko"),
                xz.resolve("kernel/drivers/net/ethernet/intel/ice/ice.ko.xz"));
        assertTrue(assertThrows(IOException.class, () -> GuestModules.overlay(xz, "r")).getMessage()
                .contains("compressed"));
        Path escape = tree("7.3.0-escape", true);
        Files.writeString(escape.resolve("modules.dep"), Files.readString(escape.resolve("modules.dep"))
                .replace("kernel/drivers/infiniband/core/ib_core.ko:", "../../../../etc/ib_core.ko:"));
        assertTrue(assertThrows(IOException.class, () -> GuestModules.overlay(escape, "r")).getMessage()
                .contains("not in the tree"), "a path out of the tree is refused");
    }
}
