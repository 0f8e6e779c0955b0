package dev.irdmaemu.bridge.vfiouser;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.newsclub.net.unix.FileDescriptorCast;

/**
 * Whether the client maps the guest RAM it sent us shared, so that what the device writes reaches the guest and
 * what the guest writes reaches the device. QEMU sends a RAM block's descriptor with DMA_MAP whenever the block has
 * one (hw/vfio-user/container.c vfio_user_dma_map takes memory_region_get_fd), also for a memory backend with
 * {@code share=off}, which QEMU maps MAP_PRIVATE: the device and the guest would then each see their own copy of
 * every page either of them wrote, and the guest's driver would wait forever for descriptors the device did write.
 * The client's own mappings of the file tell (proc(5) /proc/PID/maps: the permission column's fourth letter, "s"
 * shared, "p" private; the fifth column the inode).
 */
enum ClientMemorySharing {
    /** The client maps the file shared (at least once). */
    SHARED,
    /** The client maps the file, only privately: the guest's RAM is not shared with the device. */
    PRIVATE,
    /** Cannot tell (no peer process id, its maps unreadable, the file not mapped there): assume it is shared. */
    UNKNOWN;

    /** How process {@code pid} maps the file behind {@code fd} (a descriptor the client sent). */
    static ClientMemorySharing of(long pid, FileDescriptor fd) {
        if (pid <= 0 || pid == ProcessHandle.current().pid()) {
            return UNKNOWN; // a client in this process: its mappings are ours, the server's own shared one included
        }
        long inode;
        String device;
        try {
            int n = FileDescriptorCast.using(fd).as(Integer.class);
            Path p = Path.of("/proc/self/fd/" + n);
            inode = ((Number) Files.getAttribute(p, "unix:ino")).longValue();
            long dev = ((Number) Files.getAttribute(p, "unix:dev")).longValue();
            // st_dev's major and minor (glibc's gnu_dev_major/minor), as maps prints them: "%02x:%02x"
            long major = dev >>> 8 & 0xfff | dev >>> 32 & ~0xfffL;
            long minor = dev & 0xff | dev >>> 12 & ~0xffL;
            device = String.format("%02x:%02x", major, minor);
        } catch (IOException | RuntimeException e) {
            return UNKNOWN;
        }
        return inMaps(Path.of("/proc/" + pid + "/maps"), device, inode);
    }

    /** What a maps file says about the mappings of {@code inode} on {@code device} ("major:minor", hex). */
    static ClientMemorySharing inMaps(Path maps, String device, long inode) {
        boolean mapped = false;
        try (BufferedReader r = Files.newBufferedReader(maps, StandardCharsets.US_ASCII)) {
            String line;
            while ((line = r.readLine()) != null) {
                // address perms offset dev inode [path]
                String[] f = line.trim().split("\\s+", 6);
                if (f.length < 5 || f[1].length() != 4) {
                    continue;
                }
                long ino;
                try {
                    ino = Long.parseLong(f[4]);
                } catch (NumberFormatException e) {
                    continue;
                }
                if (ino != inode || ino == 0 || !f[3].equals(device)) {
                    continue;
                }
                if (f[1].charAt(3) == 's') {
                    return SHARED;
                }
                mapped = true;
            }
        } catch (IOException | RuntimeException e) {
            return UNKNOWN;
        }
        return mapped ? PRIVATE : UNKNOWN;
    }
}
