package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.bridge.kit.GuestLaunch;
import dev.irdmaemu.bridge.kit.GuestLaunch.Siw;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Objects;

/**
 * What one boot runs: the scenario, the siw build (null: the scenario's own), a kernel and an initramfs instead
 * of the kit's (null: the kit's), the run folder, how long to wait for the guest's result, the guest's memory, and
 * the guest's NIC.
 */
public record BootOptions(BootScenario scenario, Siw siw, Path kernel, Path initrd, Path runDir, Duration timeout,
                          int memoryMiB, Nic nic, Path modules) {
    /** The NIC the guest gets, with the hosted node at the far end of its wire. */
    public enum Nic {
        /** virtio-net served over vhost-user by the node's port; the guest's iWARP is siw (the kit's 6.1 kernel). */
        VIRTIO("virtio"),
        /**
         * The emulated E810 physical function over vfio-user (the kit's e810 flavour, Linux 7.3): the stock ice.ko
         * and irdma.ko in iWARP mode; the node is on the E810's Ethernet cable.
         */
        E810("e810");

        private final String word;

        Nic(String word) {
            this.word = word;
        }

        public String word() {
            return word;
        }

        /** The NIC named {@code word} (virtio, e810). */
        public static Nic of(String word) {
            for (Nic n : values()) {
                if (n.word.equals(word)) {
                    return n;
                }
            }
            throw new IllegalArgumentException("NIC " + word + " (virtio or e810)");
        }
    }

    /** The wait for the guest's result line when not told (a TCG boot takes about 10 s). */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(180);
    public static final int DEFAULT_MEMORY_MIB = 512;
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS");

    public BootOptions {
        Objects.requireNonNull(scenario, "scenario");
        Objects.requireNonNull(runDir, "runDir");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(nic, "nic");
        if (modules != null && (nic != Nic.E810 || kernel == null)) {
            throw new IllegalArgumentException("--modules goes with --kernel and --nic e810 (the user's kernel and its "
                    + "ice.ko, irdma.ko and RDMA modules)");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the timeout must be positive: " + timeout);
        }
        if (memoryMiB < GuestLaunch.MIN_MEMORY_MIB || memoryMiB > GuestLaunch.MAX_MEMORY_MIB) {
            throw new IllegalArgumentException("memory " + memoryMiB + " MiB");
        }
    }

    /** A boot on the virtio-net NIC. */
    public BootOptions(BootScenario scenario, Siw siw, Path kernel, Path initrd, Path runDir, Duration timeout,
                       int memoryMiB) {
        this(scenario, siw, kernel, initrd, runDir, timeout, memoryMiB, Nic.VIRTIO);
    }

    /** A boot on {@code nic} with the kit's modules (or none of the user's). */
    public BootOptions(BootScenario scenario, Siw siw, Path kernel, Path initrd, Path runDir, Duration timeout,
                       int memoryMiB, Nic nic) {
        this(scenario, siw, kernel, initrd, runDir, timeout, memoryMiB, nic, null);
    }

    /** The scenario with everything else as {@code irdma-emu boot} defaults it, the run folder under {@code base}. */
    public static BootOptions of(BootScenario scenario, Path base) {
        return new BootOptions(scenario, null, null, null, newRunDir(base), DEFAULT_TIMEOUT, DEFAULT_MEMORY_MIB);
    }

    /** {@code base/<date-time>}: a fresh folder name for a run (e.g. target/boot/20260103-101500-123). */
    public static Path newRunDir(Path base) {
        return base.resolve(LocalDateTime.now().format(STAMP));
    }

    /** The siw build the guest loads. */
    public Siw effectiveSiw() {
        return siw != null ? siw : scenario.siw();
    }

    public BootOptions withTimeout(Duration t) {
        return new BootOptions(scenario, siw, kernel, initrd, runDir, t, memoryMiB, nic, modules);
    }

    public BootOptions withNic(Nic n) {
        return new BootOptions(scenario, siw, kernel, initrd, runDir, timeout, memoryMiB, n, modules);
    }
}
