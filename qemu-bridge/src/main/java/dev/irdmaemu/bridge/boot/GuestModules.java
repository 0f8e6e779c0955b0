package dev.irdmaemu.bridge.boot;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The user's own kernel modules for a boot on the emulated E810 ({@code irdma-emu boot --kernel K --modules DIR}):
 * from a modules tree as {@code make modules_install INSTALL_MOD_PATH=X} writes it ({@code X/lib/modules/RELEASE},
 * with its {@code modules.dep} and {@code modules.builtin}), the modules ice, irdma and the user-space RDMA stack
 * need, laid flat into the guest's initramfs the way the kit lays its own: {@code /lib/modules/RELEASE/NAME.ko}, a
 * flat {@code modules.dep} for the scenarios' {@code modprobe ice} and {@code modprobe irdma}, the
 * {@code /etc/modules.order} the guest's init loads first, and the kit file naming RELEASE as the guest's kernel.
 * A module the kernel has built in ({@code modules.builtin}) is left out; one that is neither there nor built in is
 * an error naming it. Compressed modules are refused (the guest's busybox insmod reads plain ELF only).
 */
public final class GuestModules {
    /** What the guest's init loads before the scenario: the RDMA core and its user-space interfaces. */
    static final List<String> INIT_LOADS = List.of("ib_core", "ib_uverbs", "iw_cm", "ib_cm", "configfs", "rdma_cm",
            "rdma_ucm");
    /** What the scenarios load themselves, after devlink (nic.sh): ice, then irdma. */
    static final List<String> SCENARIO_LOADS = List.of("ice", "irdma");
    /** The DDP package path the kit's init file names (provision-kit.sh). */
    static final String E810_DDP = "intel/ice/ddp/ice.pkg";

    private GuestModules() {
    }

    /**
     * The overlay's files (path in the initramfs to bytes) for the modules tree {@code dir}, whose name is the
     * kernel's release; {@code recipe} goes to the kit file as the kit's own does.
     */
    public static Map<String, byte[]> overlay(Path dir, String recipe) throws IOException {
        Path tree = dir.toAbsolutePath().normalize();
        String release = release(dir, tree);
        ModulesDep modules = ModulesDep.read(dir, tree);
        LinkedHashSet<String> order = loadOrder(dir, modules, builtin(tree));
        String base = "usr/lib/modules/" + release + "/";
        Map<String, byte[]> files = moduleFiles(dir, tree, modules, order, base);
        LinkedHashSet<String> initSet = new LinkedHashSet<>();
        for (String root : INIT_LOADS) {
            visit(root, modules.depsOf(), initSet, new HashSet<>());
        }
        StringBuilder initOrder = new StringBuilder();
        for (String m : initSet) {
            initOrder.append(m).append('\n');
        }
        files.put("etc/modules.order", initOrder.toString().getBytes(StandardCharsets.UTF_8));
        files.put("etc/irdma-emu-kit", ("KVER=" + release + "\nRECIPE=" + recipe + "\nFLAVOUR=e810\nE810_DDP="
                + E810_DDP + "\n").getBytes(StandardCharsets.UTF_8));
        return files;
    }

    /** The tree's folder name, which must be a kernel release. */
    private static String release(Path dir, Path tree) throws IOException {
        String release = tree.getFileName() == null ? "" : tree.getFileName().toString();
        if (!release.matches("[A-Za-z0-9._+-]+")) {
            throw new IOException(dir + ": not a modules tree (lib/modules/RELEASE), its name is no kernel release");
        }
        return release;
    }

    /** The tree's modules.dep (kmod's depmod output): each module's path in the tree and its direct dependencies. */
    private record ModulesDep(Map<String, String> pathOf, Map<String, List<String>> depsOf) {
        static ModulesDep read(Path dir, Path tree) throws IOException {
            Path depFile = tree.resolve("modules.dep");
            if (!Files.isRegularFile(depFile)) {
                throw new IOException(dir + " has no modules.dep: give the folder make modules_install wrote "
                        + "(INSTALL_MOD_PATH/lib/modules/RELEASE)");
            }
            Map<String, String> pathOf = new LinkedHashMap<>();
            Map<String, List<String>> depsOf = new LinkedHashMap<>();
            for (String line : Files.readAllLines(depFile, StandardCharsets.UTF_8)) {
                int colon = line.indexOf(':');
                if (colon <= 0) {
                    continue;
                }
                String path = line.substring(0, colon).trim();
                String name = moduleName(path);
                pathOf.put(name, path);
                List<String> deps = new ArrayList<>();
                for (String d : line.substring(colon + 1).trim().split("\\s+")) {
                    if (!d.isEmpty()) {
                        deps.add(moduleName(d));
                    }
                }
                depsOf.put(name, deps);
            }
            return new ModulesDep(pathOf, depsOf);
        }
    }

    /** The modules the kernel has built in (modules.builtin; none when the tree has no such file). */
    private static Set<String> builtin(Path tree) throws IOException {
        Set<String> builtin = new HashSet<>();
        Path builtinFile = tree.resolve("modules.builtin");
        if (Files.isRegularFile(builtinFile)) {
            for (String line : Files.readAllLines(builtinFile, StandardCharsets.UTF_8)) {
                if (!line.isBlank()) {
                    builtin.add(moduleName(line.trim()));
                }
            }
        }
        return builtin;
    }

    /** Every module the init and the scenarios load, dependencies first; a root neither there nor built in fails. */
    private static LinkedHashSet<String> loadOrder(Path dir, ModulesDep modules, Set<String> builtin)
            throws IOException {
        LinkedHashSet<String> order = new LinkedHashSet<>();
        List<String> roots = new ArrayList<>(INIT_LOADS);
        roots.addAll(SCENARIO_LOADS);
        for (String root : roots) {
            if (!modules.pathOf().containsKey(root) && !builtin.contains(root)) {
                throw new IOException(dir + " has no " + root + " (neither a module in modules.dep nor built in)");
            }
            visit(root, modules.depsOf(), order, new HashSet<>());
        }
        return order;
    }

    /** Each module in {@code order} as {@code base/NAME.ko}, then the flat modules.dep naming them. */
    private static Map<String, byte[]> moduleFiles(Path dir, Path tree, ModulesDep modules,
                                                   LinkedHashSet<String> order, String base) throws IOException {
        Map<String, byte[]> files = new LinkedHashMap<>();
        StringBuilder dep = new StringBuilder();
        for (String m : order) {
            Path ko = tree.resolve(modules.pathOf().get(m)).normalize();
            if (!ko.startsWith(tree) || !Files.isRegularFile(ko)) {
                throw new IOException(dir + ": modules.dep names " + modules.pathOf().get(m)
                        + ", which is not in the tree");
            }
            if (!ko.getFileName().toString().endsWith(".ko")) {
                throw new IOException(ko + " is compressed: install the modules uncompressed "
                        + "(CONFIG_MODULE_COMPRESS_NONE) for the guest's busybox insmod");
            }
            files.put(base + m + ".ko", Files.readAllBytes(ko));
            // modprobe loads a module's dependencies from the right: the deepest last in the list
            LinkedHashSet<String> closure = new LinkedHashSet<>();
            visit(m, modules.depsOf(), closure, new HashSet<>());
            closure.remove(m);
            List<String> deps = new ArrayList<>(closure);
            Collections.reverse(deps);
            dep.append(m).append(".ko:");
            for (String d : deps) {
                dep.append(' ').append(d).append(".ko");
            }
            dep.append('\n');
        }
        files.put(base + "modules.dep", dep.toString().getBytes(StandardCharsets.UTF_8));
        return files;
    }

    /** A module's name from its path: the file name without .ko, dashes as underscores (as modprobe matches). */
    static String moduleName(String path) {
        String f = path.substring(path.lastIndexOf('/') + 1);
        int ko = f.indexOf(".ko");
        return (ko >= 0 ? f.substring(0, ko) : f).replace('-', '_');
    }

    /** Depth first: {@code m}'s dependencies before {@code m}, each once; built-in ones (no entry) left out. */
    private static void visit(String m, Map<String, List<String>> depsOf, LinkedHashSet<String> order,
                              Set<String> onPath) {
        if (order.contains(m) || !depsOf.containsKey(m) || !onPath.add(m)) {
            return;
        }
        for (String d : depsOf.get(m)) {
            visit(d, depsOf, order, onPath);
        }
        onPath.remove(m);
        order.add(m);
    }
}
