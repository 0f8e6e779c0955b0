package dev.irdmaemu.bridge.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
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

    private Path fakeKit(String manifest) throws IOException {
        Files.createDirectories(dir.resolve("qemu/usr/bin"));
        Files.createDirectories(dir.resolve("qemu/usr/lib/x86_64-linux-gnu"));
        Path loader = Files.writeString(dir.resolve("qemu/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"), "");
        Files.setPosixFilePermissions(loader, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(dir.resolve("qemu/usr/bin/qemu-system-x86_64"), "");
        for (String f : List.of("vmlinuz", "initramfs.cpio.gz", "siw.ko", "siw-p2p.ko")) {
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

    private static void assertFollows(List<String> c, String option, String value) {
        int i = c.indexOf(option);
        assertTrue(i >= 0 && i + 1 < c.size(), option + " missing in " + c);
        assertEquals(value, c.get(i + 1), option);
    }
}
