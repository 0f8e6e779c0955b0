package dev.irdmaemu.bridge.kit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Properties;

/**
 * A provisioned guest kit: QEMU (Debian trixie-backports, unpacked, run through its own loader), Debian 12's kernel,
 * siw.ko and an initramfs with the guest's init and scenarios. Described by the {@code kit.properties} that
 * {@code provision-kit.sh} writes last (its {@code complete=true} line marks a finished kit). Immutable.
 *
 * <p>The same kit holds a second flavour, {@link Flavour#E810} ({@link #e810()}): the same QEMU booting Linux 7.3
 * (Debian trixie-backports) with its ice.ko and irdma.ko and the E810 DDP package, from its own kernel image and
 * initramfs (the {@code e810.*} entries of the manifest).
 */
public final class GuestKit {
    /** What a launch of the kit boots. */
    public enum Flavour {
        /** Debian 12's 6.1 kernel with siw.ko: the siw scenarios. */
        SIW(""),
        /** Linux 7.3 with ice.ko, irdma.ko and the E810 DDP package: the guest of the emulated E810. */
        E810("e810.");

        private final String prefix;

        Flavour(String prefix) {
            this.prefix = prefix;
        }

        /** The prefix of the flavour's manifest entries (kernel.image, initramfs, kernel.release). */
        String prefix() {
            return prefix;
        }
    }

    /** The system property naming a kit folder (a folder holding kit.properties), before any search. */
    public static final String KIT_PROPERTY = "irdmaemu.kit";
    /** The environment variable naming a kit folder, when the system property is not set. */
    public static final String KIT_ENV = "IRDMA_EMU_KIT";
    /** The kit folder relative to the repository root: the symlink provision-kit.sh points at the newest kit. */
    public static final Path CURRENT = Path.of(".cache", "kit", "current");
    static final String MANIFEST = "kit.properties";

    private final Path dir;
    private final Properties manifest;
    private final Flavour flavour;
    private final Path loader;
    private final Path libraryPath;
    private final Path qemu;
    private final Path kernel;
    private final Path initramfs;
    private final Path siw;
    private final Path siwPeerToPeer;
    /** Whether the files were checked here (false for a kit relocated to where this JVM cannot look). */
    private final boolean checked;

    private GuestKit(Path dir, Properties manifest) throws MissingGuestKitException {
        this(dir, manifest, true, Flavour.SIW);
    }

    /** {@code check}: the files must be there (false for a kit somewhere this JVM cannot look, e.g. in an image). */
    private GuestKit(Path dir, Properties manifest, boolean check, Flavour flavour) throws MissingGuestKitException {
        this.dir = dir;
        this.manifest = manifest;
        this.flavour = flavour;
        this.checked = check;
        String p = flavour.prefix();
        this.loader = check ? file("qemu.loader") : named("qemu.loader");
        this.libraryPath = check ? folder("qemu.library.path") : named("qemu.library.path");
        this.qemu = check ? file("qemu.binary") : named("qemu.binary");
        this.kernel = check ? file(p + "kernel.image") : named(p + "kernel.image");
        this.initramfs = check ? file(p + "initramfs") : named(p + "initramfs");
        this.siw = check ? file("siw.module") : named("siw.module");
        this.siwPeerToPeer = check ? file("siw.p2p.module") : named("siw.p2p.module");
        if (check && !Files.isExecutable(loader)) {
            throw new MissingGuestKitException("the kit's loader " + loader + " is not executable");
        }
        for (String key : List.of("qemu.version", "kernel.release", p + "kernel.release", "recipe")) {
            if (manifest.getProperty(key, "").isBlank()) {
                throw new MissingGuestKitException(dir.resolve(MANIFEST) + " lacks " + key);
            }
        }
    }

    /**
     * The kit to use: the folder named by the system property {@value #KIT_PROPERTY}, else by the environment
     * variable {@value #KIT_ENV}, else {@code .cache/kit/current} of the repository holding the working directory
     * (the nearest parent with the {@code irdma-emu} launcher).
     */
    public static GuestKit locate() throws MissingGuestKitException {
        String named = System.getProperty(KIT_PROPERTY);
        if (named == null || named.isBlank()) {
            named = System.getenv(KIT_ENV);
        }
        if (named != null && !named.isBlank()) {
            return open(Path.of(named));
        }
        Path start = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        for (Path d = start; d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("irdma-emu")) && Files.isRegularFile(d.resolve("pom.xml"))) {
                return open(d.resolve(CURRENT));
            }
        }
        throw new MissingGuestKitException("no irdma-emu repository above " + start + " to find .cache/kit in");
    }

    /**
     * This kit's {@link Flavour#E810} flavour: the same QEMU and manifest, Linux 7.3's image and the e810 initramfs.
     * Fails, naming {@code ./irdma-emu kit}, when the kit was provisioned without it or lacks one of its files.
     */
    public GuestKit e810() throws MissingGuestKitException {
        if (flavour == Flavour.E810) {
            return this;
        }
        if (property(Flavour.E810.prefix() + "kernel.image").isBlank()) {
            throw new MissingGuestKitException("the guest kit in " + dir + " has no e810 flavour (Linux 7.3, ice, irdma;"
                    + " its kit.properties lacks e810.kernel.image: an older kit)");
        }
        return new GuestKit(dir, manifest, checked, Flavour.E810);
    }

    /** The kit in {@code dir}, validated: a complete manifest and every file it names present. */
    public static GuestKit open(Path dir) throws MissingGuestKitException {
        Objects.requireNonNull(dir, "dir");
        Path manifestFile = dir.resolve(MANIFEST);
        if (!Files.isRegularFile(manifestFile)) {
            throw new MissingGuestKitException("no guest kit in " + dir + " (no " + MANIFEST + ")");
        }
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(manifestFile)) {
            p.load(in);
        } catch (IOException | IllegalArgumentException e) {
            throw new MissingGuestKitException("unreadable " + manifestFile + " (" + e.getMessage() + ")");
        }
        if (!"true".equals(p.getProperty("complete"))) {
            throw new MissingGuestKitException("the guest kit in " + dir + " is half-made (no complete=true)");
        }
        try {
            return new GuestKit(dir.toRealPath(), p);
        } catch (IOException e) {
            throw new MissingGuestKitException("the guest kit folder " + dir + " is unreadable (" + e + ")");
        }
    }

    private Path named(String key) throws MissingGuestKitException {
        String rel = manifest.getProperty(key, "");
        if (rel.isBlank()) {
            throw new MissingGuestKitException(dir.resolve(MANIFEST) + " lacks " + key);
        }
        Path p = dir.resolve(rel).normalize();
        if (!p.startsWith(dir)) {
            // the manifest names files inside the kit only
            throw new MissingGuestKitException(dir.resolve(MANIFEST) + ": " + key + " leaves the kit folder");
        }
        return p;
    }

    private Path file(String key) throws MissingGuestKitException {
        Path p = named(key);
        if (!Files.isRegularFile(p)) {
            throw new MissingGuestKitException("the guest kit lacks " + key + " (" + p + ")");
        }
        return p;
    }

    private Path folder(String key) throws MissingGuestKitException {
        Path p = named(key);
        if (!Files.isDirectory(p)) {
            throw new MissingGuestKitException("the guest kit lacks " + key + " (" + p + ")");
        }
        return p;
    }

    /** The kit folder (its real path). */
    public Path dir() {
        return dir;
    }

    /** A manifest entry, or "" when absent. */
    public String property(String key) {
        return manifest.getProperty(key, "");
    }

    /** The Debian version of qemu-system-x86, e.g. "1:11.1.3+ds-2~bpo13+1". */
    public String qemuVersion() {
        return property("qemu.version");
    }

    /**
     * The guest kernel's release (what {@code uname -r} says in the guest): "6.1.0-57-amd64" for the siw flavour,
     * e.g. "7.3.4+deb13-amd64" for the e810 flavour.
     */
    public String kernelRelease() {
        return property(flavour.prefix() + "kernel.release");
    }

    /** What a launch of this kit boots. */
    public Flavour flavour() {
        return flavour;
    }

    /** The digest of the provisioning recipe (script, init, scenarios) the kit was made from. */
    public String recipe() {
        return property("recipe");
    }

    /** The guest kernel image. */
    public Path kernel() {
        return kernel;
    }

    /** The guest's initramfs (init, scenarios, userspace and modules). */
    public Path initramfs() {
        return initramfs;
    }

    /** siw.ko as built for the guest kernel (also inside the initramfs). */
    public Path siwModule() {
        return siw;
    }

    /** siw.ko built with peer_to_peer true (also inside the initramfs; {@link GuestLaunch.Siw#PEER_TO_PEER}). */
    public Path siwPeerToPeerModule() {
        return siwPeerToPeer;
    }

    /**
     * The start of every QEMU command line: trixie's loader running the unpacked binary against the kit's own
     * libraries (the host's glibc is older than the one QEMU was built for).
     */
    public List<String> qemuCommand() {
        return List.of(loader.toString(), "--library-path", libraryPath.toString(), qemu.toString());
    }

    /**
     * This kit as seen from another file system where a copy of it sits at {@code root} (an absolute path), e.g.
     * the kit inside a container image: the same manifest, every path resolved under {@code root}. Nothing is
     * checked there (this JVM cannot see it); {@link #launch()} on the result gives command lines for that side.
     */
    public GuestKit relocatedTo(Path root) {
        Objects.requireNonNull(root, "root");
        if (!root.isAbsolute()) {
            throw new IllegalArgumentException("the kit's new root must be absolute: " + root);
        }
        try {
            return new GuestKit(root.normalize(), manifest, false, flavour);
        } catch (MissingGuestKitException e) {
            // the manifest was checked when this kit was opened: its entries resolve anywhere
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** A launch of this kit, to configure and turn into a command line. */
    public GuestLaunch launch() {
        return new GuestLaunch(this);
    }

    @Override
    public String toString() {
        return "GuestKit[" + dir + ", qemu " + qemuVersion() + ", linux " + kernelRelease()
                + (flavour == Flavour.SIW ? "" : ", " + flavour.name().toLowerCase(java.util.Locale.ROOT)) + "]";
    }
}
