package dev.irdmaemu.bridge.kit;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One guest launch: the scenario, the memory, optionally a virtio-net NIC served by a vhost-user backend on a
 * UNIX socket, and PCI functions served by vfio-user servers ({@link #vfioUser(VfioUserDevice)}).
 * {@link #command()} gives QEMU's argument list. The guest gets no other network device: QEMU adds its default
 * user-mode NIC unless told not to, and {@code -nodefaults} does.
 */
public final class GuestLaunch {
    /** The emulated machine. */
    public enum Machine {
        /** QEMU's default i440FX PC: the guest memory as NUMA node 0's memdev (what the siw scenarios boot). */
        PC,
        /**
         * q35 with the guest memory as its {@code memory-backend}: PCI Express, so a vfio-user function sits behind
         * a pcie-root-port as an Endpoint with its link registers and extended capabilities (vfio-user-facts.md §3).
         */
        Q35
    }

    /** The kernel command line word the guest's init reads the scenario from. */
    public static final String SCENARIO_PARAMETER = "irdma_emu.scenario";
    /** The kernel command line word the guest's init reads the siw build from. */
    public static final String SIW_PARAMETER = "irdma_emu.siw";

    /** Which of the kit's two siw builds the guest loads. */
    public enum Siw {
        /** siw as Linux ships it: peer_to_peer false, so its MPA v2 requests lack the peer-to-peer bit. */
        STOCK("stock"),
        /**
         * siw built with peer_to_peer true (a source-level setting: siw_main.c defines it as a constant, no
         * module parameter). irdma refuses an MPA v2 request without the peer-to-peer bit
         * (irdma_negotiate_mpa_v2_ird_ord), so only this build gets a siw client through to the model.
         */
        PEER_TO_PEER("p2p");

        private final String word;

        Siw(String word) {
            this.word = word;
        }

        /** The value of {@value GuestLaunch#SIW_PARAMETER} that selects it. */
        public String word() {
            return word;
        }
    }
    private static final Pattern SCENARIO = Pattern.compile("[a-z0-9][a-z0-9_-]{0,63}");
    private static final Pattern MAC = Pattern.compile("([0-9a-f]{2}:){5}[0-9a-f]{2}");
    /** Root ports (chassis and slot numbers 1..N): plenty for a few NICs. */
    public static final int MAX_ROOT_PORTS = 16;
    /** memory-backend-memfd and the guest's needs: at least this much (the kernel and a 4 MB initramfs). */
    public static final int MIN_MEMORY_MIB = 128;
    public static final int MAX_MEMORY_MIB = 16384;

    private final GuestKit kit;
    private String scenario = "smoke";
    private Siw siw = Siw.STOCK;
    private int memoryMiB = 512;
    private Path vhostUserSocket;
    private Path kernel;
    private Path initramfs;
    private String mac;
    private Machine machine;
    private boolean rebootAllowed;
    private Path consoleSocket;
    private boolean userNetBaseline;
    /** Each element one pcie-root-port: its functions, function 0 first. */
    private final List<List<VfioUserDevice>> vfioUserPorts = new ArrayList<>();
    private final List<String> kernelArguments = new ArrayList<>();

    GuestLaunch(GuestKit kit) {
        this.kit = Objects.requireNonNull(kit, "kit");
    }

    /** The scenario the guest's init runs (/scenarios/NAME.sh in the initramfs): lower case, digits, - and _. */
    public GuestLaunch scenario(String name) {
        this.scenario = CommandLineWord.require(SCENARIO, name, "scenario names are [a-z0-9][a-z0-9_-]{0,63}");
        return this;
    }

    /** The siw build the guest loads (stock unless told). */
    public GuestLaunch siw(Siw build) {
        this.siw = Objects.requireNonNull(build, "build");
        return this;
    }

    public Siw siw() {
        return siw;
    }

    /** Guest memory, all of it in one shared memfd (a vhost-user backend maps it). */
    public GuestLaunch memoryMiB(int mib) {
        if (mib < MIN_MEMORY_MIB || mib > MAX_MEMORY_MIB) {
            throw new IllegalArgumentException("memory must be " + MIN_MEMORY_MIB + ".." + MAX_MEMORY_MIB + " MiB: " + mib);
        }
        this.memoryMiB = mib;
        return this;
    }

    /**
     * A virtio-net-pci NIC whose queues a vhost-user backend serves on {@code socket} (QEMU connects as the
     * client), with a locally administered unicast {@code mac} ("02:..." style: bit 1 of the first octet set, bit
     * 0 clear).
     */
    public GuestLaunch vhostUserNic(Path socket, String mac) {
        Objects.requireNonNull(socket, "socket");
        String m = Objects.requireNonNull(mac, "mac").toLowerCase(java.util.Locale.ROOT);
        if (!MAC.matcher(m).matches()) {
            throw new IllegalArgumentException("not a MAC address: " + mac);
        }
        int first = Integer.parseInt(m.substring(0, 2), 16);
        if ((first & 0x02) == 0 || (first & 0x01) != 0) {
            throw new IllegalArgumentException("the guest's MAC must be locally administered unicast: " + mac);
        }
        this.vhostUserSocket = socket.toAbsolutePath();
        this.mac = m;
        return this;
    }

    /**
     * The machine to emulate. Unset, it is {@link Machine#Q35} when a vfio-user function is attached and
     * {@link Machine#PC} otherwise; PC with a vfio-user function is refused (it has no PCIe root port).
     */
    public GuestLaunch machine(Machine m) {
        Objects.requireNonNull(m, "m");
        if (m == Machine.PC && !vfioUserPorts.isEmpty()) {
            throw new IllegalStateException("vfio-user functions need a PCIe root port: q35, not pc");
        }
        this.machine = m;
        return this;
    }

    /** The machine QEMU emulates (see {@link #machine(Machine)}). */
    public Machine machine() {
        if (machine != null) {
            return machine;
        }
        return vfioUserPorts.isEmpty() ? Machine.PC : Machine.Q35;
    }

    /** A vfio-user PCI function behind its own pcie-root-port (one NIC: the guest sees it at 0000:NN:00.0). */
    public GuestLaunch vfioUser(VfioUserDevice device) {
        return vfioUserFunctions(List.of(Objects.requireNonNull(device, "device")));
    }

    /**
     * The functions of one multi-function device (up to 8, function 0 first) behind one pcie-root-port, each
     * served on its own socket: {@code addr} 0.0 .. 0.7, {@code multifunction} on function 0.
     */
    public GuestLaunch vfioUserFunctions(List<VfioUserDevice> functions) {
        List<VfioUserDevice> f = List.copyOf(Objects.requireNonNull(functions, "functions"));
        if (f.isEmpty() || f.size() > 8) {
            throw new IllegalArgumentException("a PCI device has 1 to 8 functions: " + f.size());
        }
        if (machine == Machine.PC) {
            throw new IllegalStateException("vfio-user functions need a PCIe root port: q35, not pc");
        }
        if (vfioUserPorts.size() == MAX_ROOT_PORTS) {
            throw new IllegalStateException("at most " + MAX_ROOT_PORTS + " vfio-user devices");
        }
        Set<Path> sockets = new HashSet<>();
        Set<String> ids = new HashSet<>();
        for (VfioUserDevice d : vfioUserDevices()) {
            sockets.add(d.socketPath());
            ids.add(d.id());
        }
        for (VfioUserDevice d : f) {
            if (!sockets.add(d.socketPath())) {
                throw new IllegalArgumentException("two vfio-user functions on one socket: " + d.socketPath());
            }
            if (!d.id().isEmpty() && !ids.add(d.id())) {
                throw new IllegalArgumentException("two vfio-user functions with the id " + d.id());
            }
        }
        vfioUserPorts.add(f);
        return this;
    }

    /** The vfio-user functions attached, port by port, function 0 first. */
    public List<VfioUserDevice> vfioUserDevices() {
        return vfioUserPorts.stream().flatMap(List::stream).toList();
    }

    /** An extra kernel command line word (e.g. a scenario's parameter, "irdma_emu.peer=198.51.100.2"). */
    public GuestLaunch kernelArgument(String word) {
        if (word == null || word.isEmpty() || !word.chars().allMatch(c -> c > ' ' && c < 0x7f && c != '"')) {
            throw new IllegalArgumentException("a kernel argument is one printable word: " + word);
        }
        kernelArguments.add(word);
        return this;
    }

    /**
     * Adds QEMU's user-mode network as a second virtio-net NIC ({@value #USER_NET_BASELINE_MAC}), restricted
     * ({@code restrict=on}: the guest reaches nothing beyond QEMU's own gateway, 10.0.2.2, which answers ICMP echo
     * itself): a device whose round trip under TCG involves nothing of ours, the baseline the ping scenario measures
     * the model's virtio-net port against (issue 17).
     */
    public GuestLaunch userNetBaseline() {
        this.userNetBaseline = true;
        return this;
    }

    /** The baseline NIC's MAC address, by which the guest's ping scenario finds it. */
    public static final String USER_NET_BASELINE_MAC = "52:54:00:12:34:56";

    /**
     * Lets a guest reboot: a reset (the guest's {@code reboot -f}, a triple fault) restarts the machine with the
     * same kernel and command line instead of ending QEMU (no {@code -no-reboot}). Off unless asked for: with it
     * a guest that panics boots again, so whoever allows it counts the boots.
     */
    public GuestLaunch allowReboot() {
        this.rebootAllowed = true;
        return this;
    }

    public boolean rebootAllowed() {
        return rebootAllowed;
    }

    /**
     * The serial console on a UNIX socket as well as on QEMU's stdout, for a host that cannot reach QEMU's stdin
     * (QEMU in a container): QEMU listens on {@code socket} (and does not wait for a client), a client's bytes are
     * the guest's serial input, and the console's output goes to stdout as ever and to the client while one is
     * connected. The client must read what it gets: one that does not stalls the console once the socket's buffer
     * is full. Without it the console is QEMU's stdio alone.
     *
     * <p>QEMU's {@code hub} chardev (QEMU 10 and later) joins the two backends: a {@code file} backend on
     * {@code /dev/stdout} for the output, not {@code stdio}, since a hub stops writing to a backend that reports
     * itself closed, and stdio does as soon as its input ends (QEMU's stdin is {@code /dev/null} in a container).
     */
    public GuestLaunch consoleSocket(Path socket) {
        this.consoleSocket = Objects.requireNonNull(socket, "socket").toAbsolutePath();
        return this;
    }

    /** The console's socket, when {@link #consoleSocket(Path)} set one. */
    public Optional<Path> consoleSocket() {
        return Optional.ofNullable(consoleSocket);
    }

    /** Boots {@code image} instead of the kit's kernel (QEMU still comes from the kit). */
    public GuestLaunch kernel(Path image) {
        this.kernel = Objects.requireNonNull(image, "image").toAbsolutePath();
        return this;
    }

    /** Boots with {@code image} as the initramfs instead of the kit's (e.g. the kit's with an overlay). */
    public GuestLaunch initramfs(Path image) {
        this.initramfs = Objects.requireNonNull(image, "image").toAbsolutePath();
        return this;
    }

    /** The kernel image QEMU boots: the kit's unless {@link #kernel(Path)} named another. */
    public Path kernel() {
        return kernel != null ? kernel : kit.kernel();
    }

    /** The initramfs QEMU loads: the kit's unless {@link #initramfs(Path)} named another. */
    public Path initramfs() {
        return initramfs != null ? initramfs : kit.initramfs();
    }

    public GuestKit kit() {
        return kit;
    }

    public String scenario() {
        return scenario;
    }

    /** The kernel command line: the console on the first serial port, a quiet kernel, power off on panic. */
    public String kernelCommandLine() {
        StringBuilder b = new StringBuilder("console=ttyS0 loglevel=4 panic=-1 ");
        b.append(SCENARIO_PARAMETER).append('=').append(scenario);
        b.append(' ').append(SIW_PARAMETER).append('=').append(siw.word());
        for (String w : kernelArguments) {
            b.append(' ').append(w);
        }
        return b.toString();
    }

    /**
     * virtio-net-pci's offload properties: checksum offload both ways (csum, guest_csum), TCP segmentation of the
     * guest's frames by the backend (host_tso4, host_tso6, host_ecn), large TCP receives (guest_tso4, guest_tso6);
     * no ECN on large receives (guest_ecn) and no UDP fragmentation offload either way (guest_ufo, host_ufo).
     */
    static final String VIRTIO_NET_OFFLOADS = "csum=on,guest_csum=on,host_tso4=on,host_tso6=on,host_ecn=on,"
            + "guest_tso4=on,guest_tso6=on,guest_ecn=off,guest_ufo=off,host_ufo=off";

    /** QEMU's full argument list, the kit's loader first. The serial console is QEMU's stdout. */
    public List<String> command() {
        List<String> c = new ArrayList<>(kit.qemuCommand());
        // TCG only: KVM guests hang on the machines this runs on (issue 6)
        c.addAll(List.of("-accel", "tcg", "-smp", "1"));
        c.addAll(sharedMemoryArguments(memoryMiB, machine()));
        if (vhostUserSocket != null) {
            c.addAll(vhostUserNicArguments(vhostUserSocket, mac));
        }
        c.addAll(vfioUserArguments(vfioUserPorts));
        if (userNetBaseline) {
            c.addAll(List.of("-netdev", "user,id=base0,restrict=on",
                    "-device", "virtio-net-pci,netdev=base0,mac=" + USER_NET_BASELINE_MAC + ",romfile="));
        }
        c.addAll(List.of("-kernel", kernel().toString(), "-initrd", initramfs().toString(),
                "-append", kernelCommandLine()));
        // no default devices (no user-mode NIC, no VGA), the serial console on stdio (and a socket, if asked
        // for), no monitor; a guest reboot (a panic, a triple fault) ends QEMU instead of booting again, unless
        // allowReboot() said so
        c.addAll(List.of("-nographic", "-nodefaults"));
        c.addAll(consoleSocket == null ? List.of("-serial", "stdio") : consoleSocketArguments(consoleSocket));
        c.addAll(List.of("-monitor", "none"));
        if (!rebootAllowed) {
            c.add("-no-reboot");
        }
        return List.copyOf(c);
    }

    /**
     * The serial console on QEMU's stdout and on a listening UNIX {@code socket} ({@link #consoleSocket(Path)}):
     * a hub of a {@code file} backend on {@code /dev/stdout} and a {@code socket} server that does not wait for its
     * client, the first serial port on the hub.
     */
    static List<String> consoleSocketArguments(Path socket) {
        return List.of("-chardev", "file,id=console-out,path=/dev/stdout",
                "-chardev", "socket,id=console-in,path=" + optionValue(socket.toAbsolutePath().toString())
                        + ",server=on,wait=off",
                "-chardev", "hub,id=console,chardevs.0=console-out,chardevs.1=console-in",
                "-serial", "chardev:console");
    }

    /**
     * The guest memory arguments: {@code -m}, and all of it in one memfd that a vhost-user backend and a vfio-user
     * server can map ({@code share=on}): q35's own memory backend (its size equal to {@code -m}), or the PC's NUMA
     * node 0. A vfio-user server refuses guest RAM it cannot share (vfio-user-facts.md §3).
     */
    public static List<String> sharedMemoryArguments(int memoryMiB, Machine machine) {
        if (memoryMiB < MIN_MEMORY_MIB || memoryMiB > MAX_MEMORY_MIB) {
            throw new IllegalArgumentException("memory must be " + MIN_MEMORY_MIB + ".." + MAX_MEMORY_MIB + " MiB: "
                    + memoryMiB);
        }
        List<String> c = new ArrayList<>(List.of("-m", memoryMiB + "M",
                "-object", "memory-backend-memfd,id=mem,size=" + memoryMiB + "M,share=on"));
        if (machine == Machine.Q35) {
            c.addAll(List.of("-machine", "q35,memory-backend=mem"));
        } else {
            c.addAll(List.of("-numa", "node,memdev=mem"));
        }
        return c;
    }

    /**
     * A virtio-net-pci NIC whose queues the vhost-user backend on {@code socket} serves, with {@code mac}: the
     * chardev, the netdev and the device (no option ROM: the kernel is loaded directly, and iPXE's start-up costs
     * seconds under TCG). The offloads the backend does (VirtioNet.OFFERED_FEATURES) are on, the others off: QEMU
     * masks what the device line leaves off, whatever the backend offers. The guest RAM must be shared
     * ({@link #sharedMemoryArguments}).
     */
    public static List<String> vhostUserNicArguments(Path socket, String mac) {
        return List.of("-chardev", "socket,id=chr0,path=" + optionValue(socket.toAbsolutePath().toString()),
                "-netdev", "vhost-user,id=net0,chardev=chr0",
                "-device", "virtio-net-pci,netdev=net0,mac=" + mac + ",romfile=," + VIRTIO_NET_OFFLOADS);
    }

    /**
     * The vfio-user devices' arguments: each element of {@code ports} one pcie-root-port ({@code rp1}, {@code rp2},
     * ..., chassis and slot numbered alike) holding its functions, function 0 first, each a {@code vfio-user-pci}
     * device in the JSON form QEMU 11.1 requires ({@link VfioUserDevice}); functions without an id are numbered
     * {@code e810-0}, {@code e810-1}, ...
     */
    public static List<String> vfioUserArguments(List<List<VfioUserDevice>> ports) {
        List<String> c = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        ports.forEach(p -> p.forEach(d -> ids.add(d.id())));
        int named = 0;
        for (int port = 0; port < ports.size(); port++) {
            List<VfioUserDevice> functions = ports.get(port);
            int n = port + 1;
            String bus = "rp" + n;
            c.addAll(List.of("-device", "pcie-root-port,id=" + bus + ",chassis=" + n + ",slot=" + n));
            for (int fn = 0; fn < functions.size(); fn++) {
                VfioUserDevice d = functions.get(fn);
                String id = d.id();
                while (id.isEmpty() && ids.contains("e810-" + named)) {
                    named++;
                }
                if (id.isEmpty()) {
                    id = "e810-" + named++;
                }
                c.addAll(List.of("-device", d.deviceJson(id, bus, "0." + fn, fn == 0 && functions.size() > 1)));
            }
        }
        return c;
    }

    /** A value inside a QEMU option list: a comma is written as two (QEMU's QemuOpts escaping). */
    static String optionValue(String v) {
        return v.replace(",", ",,");
    }
}
