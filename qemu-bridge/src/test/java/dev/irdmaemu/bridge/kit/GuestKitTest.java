package dev.irdmaemu.bridge.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GuestKit's validation of a kit folder and the QEMU command lines it builds, on a fake kit. */
class GuestKitTest {
    @TempDir
    Path dir;

    private static final String MANIFEST = String.join("\n",
            "recipe=0123456789ab",
            "qemu.version=1:11.1.3+ds-2~bpo13+1",
            "qemu.binary=qemu/usr/bin/qemu-system-x86_64",
            "qemu.loader=qemu/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
            "qemu.library.path=qemu/usr/lib/x86_64-linux-gnu",
            "kernel.release=6.1.0-57-amd64",
            "kernel.image=vmlinuz",
            "initramfs=initramfs.cpio.gz",
            "siw.module=siw.ko",
            "siw.p2p.module=siw-p2p.ko",
            "modules=virtio_ring virtio siw",
            "complete=true", "");
    /** The e810 flavour's entries, as provision-kit.sh writes them. */
    private static final String E810_ENTRIES = String.join("\n",
            "e810.kernel.release=7.3.4+deb13-amd64",
            "e810.kernel.image=e810/vmlinuz",
            "e810.initramfs=e810/initramfs.cpio.gz",
            "e810.firmware.ddp.link=intel/ice/ddp/ice.pkg", "");

    private Path fakeKit(String manifest) throws IOException {
        Files.createDirectories(dir.resolve("qemu/usr/bin"));
        Files.createDirectories(dir.resolve("qemu/usr/lib/x86_64-linux-gnu"));
        Path loader = Files.writeString(dir.resolve("qemu/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"), "");
        Files.setPosixFilePermissions(loader, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(dir.resolve("qemu/usr/bin/qemu-system-x86_64"), "");
        Files.createDirectories(dir.resolve("e810"));
        for (String f : List.of("vmlinuz", "initramfs.cpio.gz", "siw.ko", "siw-p2p.ko", "e810/vmlinuz", "e810/initramfs.cpio.gz")) {
            Files.writeString(dir.resolve(f), "");
        }
        Files.writeString(dir.resolve("kit.properties"), manifest);
        return dir;
    }

    private GuestKit kit() throws Exception {
        return GuestKit.open(fakeKit(MANIFEST));
    }

    private static void assertMissing(Path d, String why) {
        MissingGuestKitException e = assertThrows(MissingGuestKitException.class, () -> GuestKit.open(d));
        assertTrue(e.getMessage().contains(why), e.getMessage());
        assertTrue(e.getMessage().endsWith(": run ./irdma-emu kit"), e.getMessage());
    }

    @Test
    void aCompleteKitOpensWithItsVersions() throws Exception {
        GuestKit k = kit();
        assertEquals("1:11.1.3+ds-2~bpo13+1", k.qemuVersion());
        assertEquals("6.1.0-57-amd64", k.kernelRelease());
        assertEquals("0123456789ab", k.recipe());
        assertEquals(dir.toRealPath().resolve("siw.ko"), k.siwModule());
        assertEquals(dir.toRealPath().resolve("siw-p2p.ko"), k.siwPeerToPeerModule());
        assertEquals(List.of(dir.toRealPath().resolve("qemu/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2").toString(),
                "--library-path", dir.toRealPath().resolve("qemu/usr/lib/x86_64-linux-gnu").toString(),
                dir.toRealPath().resolve("qemu/usr/bin/qemu-system-x86_64").toString()), k.qemuCommand());
    }

    @Test
    void noManifestIsNoKit() {
        assertMissing(dir, "no kit.properties");
    }

    @Test
    void aKitWithoutItsCompleteLineIsHalfMade() throws Exception {
        assertMissing(fakeKit(MANIFEST.replace("complete=true\n", "")), "half-made");
    }

    @Test
    void aKitLackingAFileItNamesIsNoKit() throws Exception {
        fakeKit(MANIFEST);
        Files.delete(dir.resolve("initramfs.cpio.gz"));
        assertMissing(dir, "lacks initramfs");
    }

    @Test
    void aManifestNamingAFileOutsideTheKitIsRefused() throws Exception {
        assertMissing(fakeKit(MANIFEST.replace("kernel.image=vmlinuz", "kernel.image=../../etc/passwd")), "leaves the kit folder");
    }

    @Test
    void aManifestWithoutVersionsIsRefused() throws Exception {
        assertMissing(fakeKit(MANIFEST.replace("kernel.release=6.1.0-57-amd64\n", "")), "lacks kernel.release");
    }

    @Test
    void theSystemPropertyNamesTheKitFolder() throws Exception {
        fakeKit(MANIFEST);
        String before = System.getProperty(GuestKit.KIT_PROPERTY);
        System.setProperty(GuestKit.KIT_PROPERTY, dir.toString());
        try {
            assertEquals(dir.toRealPath(), GuestKit.locate().dir());
        } finally {
            if (before == null) {
                System.clearProperty(GuestKit.KIT_PROPERTY);
            } else {
                System.setProperty(GuestKit.KIT_PROPERTY, before);
            }
        }
    }

    @Test
    void aSmokeLaunchIsTcgWithSharedMemoryAndNoNetwork() throws Exception {
        GuestKit k = kit();
        List<String> c = k.launch().scenario("smoke").memoryMiB(256).command();
        assertEquals(k.qemuCommand(), c.subList(0, 4));
        assertFollows(c, "-accel", "tcg");
        assertFollows(c, "-m", "256M");
        assertFollows(c, "-object", "memory-backend-memfd,id=mem,size=256M,share=on");
        assertFollows(c, "-numa", "node,memdev=mem");
        assertFollows(c, "-kernel", k.kernel().toString());
        assertFollows(c, "-initrd", k.initramfs().toString());
        assertFollows(c, "-append", "console=ttyS0 loglevel=4 panic=-1 irdma_emu.scenario=smoke irdma_emu.siw=stock");
        assertFollows(c, "-serial", "stdio");
        assertTrue(c.contains("-nodefaults"), "no default (user-mode) NIC");
        assertTrue(c.contains("-no-reboot"));
        assertFalse(c.contains("-netdev") || c.contains("-nic") || c.contains("-chardev"), c.toString());
        assertFalse(c.contains("-enable-kvm") || String.join(" ", c).contains("kvm"), c.toString());
    }

    @Test
    void aLaunchThatAllowsRebootLeavesOutNoReboot() throws Exception {
        GuestLaunch l = kit().launch().scenario("smoke");
        assertFalse(l.rebootAllowed());
        assertTrue(l.command().contains("-no-reboot"));
        List<String> c = l.allowReboot().command();
        assertTrue(l.rebootAllowed());
        assertFalse(c.contains("-no-reboot"), "a guest reset restarts the machine: " + c);
        assertFollows(c, "-serial", "stdio");
    }

    @Test
    void aConsoleSocketJoinsStdoutAndAListeningSocketInAHubOnTheSerialPort() throws Exception {
        GuestLaunch l = kit().launch().scenario("smoke");
        assertTrue(l.consoleSocket().isEmpty());
        List<String> c = l.consoleSocket(Path.of("/tmp/run,1/console.sock")).command();
        assertEquals(Path.of("/tmp/run,1/console.sock"), l.consoleSocket().orElseThrow());
        assertFalse(c.contains("stdio"), "stdio would stop taking output once its input (/dev/null) ends: " + c);
        int serial = c.indexOf("-serial");
        assertEquals(List.of(
                "-chardev", "file,id=console-out,path=/dev/stdout",
                "-chardev", "socket,id=console-in,path=/tmp/run,,1/console.sock,server=on,wait=off",
                "-chardev", "hub,id=console,chardevs.0=console-out,chardevs.1=console-in",
                "-serial", "chardev:console"), c.subList(serial - 6, serial + 2));
        assertEquals(1, c.stream().filter("-serial"::equals).count(), c.toString());
        assertFollows(c, "-monitor", "none");
        assertTrue(c.contains("-nodefaults") && c.contains("-nographic") && c.contains("-no-reboot"), c.toString());
    }

    @Test
    void aRelocatedKitBuildsTheSameCommandLineUnderItsNewRoot() throws Exception {
        GuestKit k = kit();
        GuestKit moved = k.relocatedTo(Path.of("/kit"));
        assertEquals(List.of("/kit/qemu/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", "--library-path",
                "/kit/qemu/usr/lib/x86_64-linux-gnu", "/kit/qemu/usr/bin/qemu-system-x86_64"), moved.qemuCommand());
        assertEquals(Path.of("/kit/vmlinuz"), moved.kernel());
        assertEquals(Path.of("/kit/initramfs.cpio.gz"), moved.initramfs());
        assertEquals(k.recipe(), moved.recipe());
        List<String> here = k.launch().scenario("smoke").command();
        List<String> there = moved.launch().scenario("smoke").command();
        String root = k.dir().toString();
        assertEquals(here.stream().map(w -> w.replace(root, "/kit")).toList(), there, "only the kit's paths differ");
        assertThrows(IllegalArgumentException.class, () -> k.relocatedTo(Path.of("kit")));
    }

    @Test
    void aVhostUserNicIsASocketChardevAVhostUserNetdevAndAVirtioNetDevice() throws Exception {
        List<String> c = kit().launch().vhostUserNic(Path.of("/tmp/a,b.sock"), "02:00:5E:00:00:01")
                .siw(GuestLaunch.Siw.PEER_TO_PEER).kernelArgument("irdma_emu.peer=198.51.100.2").command();
        assertFollows(c, "-chardev", "socket,id=chr0,path=/tmp/a,,b.sock");
        assertFollows(c, "-netdev", "vhost-user,id=net0,chardev=chr0");
        assertFollows(c, "-device", "virtio-net-pci,netdev=net0,mac=02:00:5e:00:00:01,romfile=,"
                + GuestLaunch.VIRTIO_NET_OFFLOADS);
        assertFollows(c, "-append", "console=ttyS0 loglevel=4 panic=-1 irdma_emu.scenario=smoke irdma_emu.siw=p2p irdma_emu.peer=198.51.100.2");
        assertEquals(1, Collections.frequency(c, "-netdev"));
    }

    @Test
    void theUserNetBaselineIsARestrictedUserNetdevOnASecondVirtioNic() throws Exception {
        List<String> c = kit().launch().vhostUserNic(Path.of("/tmp/v.sock"), "02:00:00:00:00:02").userNetBaseline()
                .command();
        assertEquals(2, Collections.frequency(c, "-netdev"));
        assertEquals("user,id=base0,restrict=on", c.get(c.lastIndexOf("-netdev") + 1));
        assertEquals("virtio-net-pci,netdev=base0,mac=52:54:00:12:34:56,romfile=", c.get(c.lastIndexOf("-device") + 1));
        assertTrue(c.indexOf("vhost-user,id=net0,chardev=chr0") < c.lastIndexOf("-netdev"),
                "the model's NIC comes first (eth0)");
        assertFalse(kit().launch().command().contains("-netdev"), "only when asked for");
    }

    @Test
    void badLaunchSettingsAreRefused() throws Exception {
        GuestLaunch l = kit().launch();
        Path s = Path.of("/tmp/s");
        for (String mac : List.of("00:11:22:33:44:55", "03:00:00:00:00:01", "02:00:00:00:00", "02-00-00-00-00-01", "02:00:00:00:00:0g")) {
            assertThrows(IllegalArgumentException.class, () -> l.vhostUserNic(s, mac), mac);
        }
        for (String sc : List.of("", "Smoke", "a b", "a;reboot", "-x", "x".repeat(65))) {
            assertThrows(IllegalArgumentException.class, () -> l.scenario(sc), sc);
        }
        assertThrows(IllegalArgumentException.class, () -> l.memoryMiB(64));
        assertThrows(IllegalArgumentException.class, () -> l.kernelArgument("two words"));
        assertThrows(IllegalArgumentException.class, () -> l.kernelArgument("quote\"d"));
        assertEquals("smoke", l.scenario(), "a refused setting changes nothing");
    }

    @Test
    void theE810FlavourBootsLinux73FromItsOwnImageAndInitramfsWithTheSameQemu() throws Exception {
        GuestKit k = GuestKit.open(fakeKit(MANIFEST + E810_ENTRIES));
        GuestKit e810 = k.e810();
        assertEquals(GuestKit.Flavour.SIW, k.flavour());
        assertEquals(GuestKit.Flavour.E810, e810.flavour());
        assertEquals("7.3.4+deb13-amd64", e810.kernelRelease());
        assertEquals("6.1.0-57-amd64", k.kernelRelease(), "the siw flavour is unchanged");
        assertEquals(k.dir().resolve("e810/vmlinuz"), e810.kernel());
        assertEquals(k.dir().resolve("e810/initramfs.cpio.gz"), e810.initramfs());
        assertEquals(k.qemuCommand(), e810.qemuCommand());
        assertEquals(k.recipe(), e810.recipe());
        assertSame(e810, e810.e810(), "the e810 flavour of the e810 flavour is itself");
        List<String> c = e810.launch().scenario("e810-probe").command();
        assertFollows(c, "-kernel", k.dir().resolve("e810/vmlinuz").toString());
        assertFollows(c, "-initrd", k.dir().resolve("e810/initramfs.cpio.gz").toString());
        GuestKit moved = e810.relocatedTo(Path.of("/kit"));
        assertEquals(Path.of("/kit/e810/vmlinuz"), moved.kernel(), "relocation keeps the flavour");
        assertEquals("7.3.4+deb13-amd64", moved.kernelRelease());
        GuestKit movedThenE810 = k.relocatedTo(Path.of("/kit")).e810();
        assertEquals(Path.of("/kit/e810/vmlinuz"), movedThenE810.kernel(), "a relocated kit's e810 flavour is not "
                + "checked here either (a container's image holds it, not this machine)");
    }

    @Test
    void aKitWithoutTheE810FlavourSaysToProvisionIt() throws Exception {
        GuestKit k = kit();
        MissingGuestKitException e = assertThrows(MissingGuestKitException.class, k::e810);
        assertTrue(e.getMessage().contains("no e810 flavour"), e.getMessage());
        assertTrue(e.getMessage().endsWith(": run ./irdma-emu kit"), e.getMessage());
        GuestKit half = GuestKit.open(fakeKit(MANIFEST + E810_ENTRIES));
        Files.delete(dir.resolve("e810/initramfs.cpio.gz"));
        MissingGuestKitException lacking = assertThrows(MissingGuestKitException.class, half::e810);
        assertTrue(lacking.getMessage().contains("e810.initramfs"), lacking.getMessage());
    }

    @Test
    void aVfioUserFunctionIsAQ35MemfdMachineARootPortAndAJsonDevice() throws Exception {
        VfioUserDevice nic = VfioUserDevice.socket(Path.of("/run/irdma-emu/e810.sock")).id("e810").build();
        List<String> c = kit().launch().memoryMiB(1024).vfioUser(nic).command();
        assertEquals(GuestLaunch.Machine.Q35, kit().launch().vfioUser(nic).machine(), "q35 when a function is attached");
        assertFollows(c, "-m", "1024M");
        assertFollows(c, "-object", "memory-backend-memfd,id=mem,size=1024M,share=on");
        assertFollows(c, "-machine", "q35,memory-backend=mem");
        assertFalse(c.contains("-numa"), "q35's memory is its backend, not a NUMA node's");
        int port = c.indexOf("pcie-root-port,id=rp1,chassis=1,slot=1");
        assertTrue(port > 0 && "-device".equals(c.get(port - 1)), c.toString());
        assertEquals("-device", c.get(port + 1));
        assertEquals("{\"driver\":\"vfio-user-pci\",\"id\":\"e810\",\"bus\":\"rp1\",\"addr\":\"0.0\",\"rombar\":0,"
                + "\"socket\":{\"type\":\"unix\",\"path\":\"/run/irdma-emu/e810.sock\"},\"x-msg-timeout\":10000}", c.get(port + 2));
        assertTrue(c.indexOf("-kernel") > port, "the devices before the kernel");
    }

    @Test
    void twoNicsGetTwoRootPortsAndTheFunctionsOfOneShareItsPort() throws Exception {
        VfioUserDevice a = VfioUserDevice.socket(Path.of("/tmp/a.sock")).build();
        VfioUserDevice pf0 = VfioUserDevice.socket(Path.of("/tmp/pf0.sock")).id("nic1-pf0")
                .messageTimeout(Duration.ofMillis(2500)).noPostedWrites().build();
        VfioUserDevice pf1 = VfioUserDevice.socket(Path.of("/tmp/pf1.sock")).id("nic1-pf1").build();
        GuestLaunch l = kit().launch().vfioUser(a).vfioUserFunctions(List.of(pf0, pf1));
        List<String> c = l.command();
        assertEquals(List.of(a, pf0, pf1), l.vfioUserDevices());
        List<String> devices = new java.util.ArrayList<>();
        for (int i = 0; i < c.size() - 1; i++) {
            if ("-device".equals(c.get(i))) {
                devices.add(c.get(i + 1));
            }
        }
        assertEquals(List.of("pcie-root-port,id=rp1,chassis=1,slot=1",
                "{\"driver\":\"vfio-user-pci\",\"id\":\"e810-0\",\"bus\":\"rp1\",\"addr\":\"0.0\",\"rombar\":0,"
                        + "\"socket\":{\"type\":\"unix\",\"path\":\"/tmp/a.sock\"},\"x-msg-timeout\":10000}",
                "pcie-root-port,id=rp2,chassis=2,slot=2",
                "{\"driver\":\"vfio-user-pci\",\"id\":\"nic1-pf0\",\"bus\":\"rp2\",\"addr\":\"0.0\",\"multifunction\":true,"
                        + "\"rombar\":0,\"socket\":{\"type\":\"unix\",\"path\":\"/tmp/pf0.sock\"},\"x-msg-timeout\":2500,"
                        + "\"x-no-posted-writes\":true}",
                "{\"driver\":\"vfio-user-pci\",\"id\":\"nic1-pf1\",\"bus\":\"rp2\",\"addr\":\"0.1\",\"rombar\":0,"
                        + "\"socket\":{\"type\":\"unix\",\"path\":\"/tmp/pf1.sock\"},\"x-msg-timeout\":10000}"), devices);
    }

    @Test
    void aSocketPathIsAJsonStringWhateverItHolds() {
        VfioUserDevice d = VfioUserDevice.socket(Path.of("/tmp/we\"ird\\dir,x/s.sock")).id("x").build();
        String json = d.deviceJson("x", "rp1", "0.0", false);
        assertTrue(json.contains("\"path\":\"/tmp/we\\\"ird\\\\dir,x/s.sock\"}"), json);
        assertEquals("\"a\\u0001b\"", VfioUserDevice.string("a\u0001b"));
    }

    @Test
    void badVfioUserSettingsAreRefused() throws Exception {
        Path longPath = Path.of("/tmp/" + "d".repeat(100) + "/e810.sock");
        assertThrows(IllegalArgumentException.class, () -> VfioUserDevice.socket(longPath), "longer than sun_path");
        assertThrows(IllegalArgumentException.class, () -> VfioUserDevice.socket(Path.of("/tmp/a\nb")));
        VfioUserDevice.Builder b = VfioUserDevice.socket(Path.of("/tmp/s.sock"));
        for (String id : List.of("", "0abc", "a b", "a\"b", "a,b", "x".repeat(33))) {
            assertThrows(IllegalArgumentException.class, () -> b.id(id), id);
        }
        assertThrows(IllegalArgumentException.class, () -> b.messageTimeout(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> b.messageTimeout(Duration.ofHours(1)));
        assertEquals(VfioUserDevice.DEFAULT_MESSAGE_TIMEOUT, b.build().messageTimeout(), "refused settings change nothing");
        VfioUserDevice one = VfioUserDevice.socket(Path.of("/tmp/one.sock")).id("one").build();
        VfioUserDevice sameSocket = VfioUserDevice.socket(Path.of("/tmp/one.sock")).id("two").build();
        VfioUserDevice sameId = VfioUserDevice.socket(Path.of("/tmp/two.sock")).id("one").build();
        GuestLaunch l = kit().launch().vfioUser(one);
        assertThrows(IllegalArgumentException.class, () -> l.vfioUser(sameSocket));
        assertThrows(IllegalArgumentException.class, () -> l.vfioUser(sameId));
        assertThrows(IllegalArgumentException.class, () -> l.vfioUserFunctions(List.of()));
        assertThrows(IllegalStateException.class, () -> l.machine(GuestLaunch.Machine.PC), "pc has no PCIe root port");
        assertThrows(IllegalStateException.class, () -> kit().launch().machine(GuestLaunch.Machine.PC).vfioUser(sameId));
        assertEquals(List.of(one), l.vfioUserDevices(), "refused functions are not attached");
        List<String> pc = kit().launch().command();
        assertFalse(pc.contains("-machine") || pc.contains("pcie-root-port,id=rp1,chassis=1,slot=1"), "no function, no q35");
        assertFollows(kit().launch().machine(GuestLaunch.Machine.Q35).command(), "-machine", "q35,memory-backend=mem");
    }

    @Test
    void aLaunchWhoseVfioUserServerIsNotListeningDoesNotStartQemu() throws Exception {
        GuestKit k = kit();
        Path absent = dir.resolve("absent.sock");
        GuestBootException e = assertThrows(GuestBootException.class, () -> QemuProcess.start(
                k.launch().vfioUser(VfioUserDevice.socket(absent).build()), dir.resolve("console.log")));
        assertTrue(e.getMessage().contains("no vfio-user server socket at " + absent), e.getMessage());
        Path plain = Files.writeString(dir.resolve("plain.sock"), "");
        GuestBootException notSocket = assertThrows(GuestBootException.class, () -> QemuProcess.start(
                k.launch().vfioUser(VfioUserDevice.socket(plain).build()), dir.resolve("console.log")));
        assertTrue(notSocket.getMessage().contains("is not a UNIX socket"), notSocket.getMessage());
        assertFalse(Files.exists(dir.resolve("console.log")), "QEMU was not started");
    }

    private static void assertFollows(List<String> c, String option, String value) {
        int i = c.indexOf(option);
        assertTrue(i >= 0 && i + 1 < c.size(), option + " missing in " + c);
        assertEquals(value, c.get(i + 1), option);
    }
}
