package dev.irdmaemu.bridge.vhost;

import dev.irdmaemu.bridge.shm.SharedFileMapping;
import dev.irdmaemu.fw.bus.HostMemory;
import java.io.FileDescriptor;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One SET_MEM_TABLE: the front-end's shared memory regions, each mapped from its file descriptor through
 * {@code /proc/self/fd/N} (READ_WRITE, shared, so the guest sees our writes) and published in a {@link HostMemory}
 * at its guest-physical address as a zero-copy Chronicle store over the mapping.
 *
 * <p>Three address spaces meet here (vhost-user.rst "Memory access"): descriptor buffers carry guest-physical
 * addresses (no VIRTIO_F_IOMMU_PLATFORM), SET_VRING_ADDR carries the front-end's user (virtual) addresses, and
 * each region starts at its mmap offset in its file. {@link #holdsUser} and {@link #userToGpa} translate the second
 * into the first.
 *
 * <p>A region longer than {@link #CHUNK} is mapped as several consecutive chunks ({@link SharedFileMapping}; a map is
 * limited to 2 GiB); a single buffer that straddles a chunk boundary is then refused like one outside memory.
 */
final class GuestMemory implements AutoCloseable {
    /** The largest piece mapped at once: 1 GiB, so every chunk boundary is 1 GiB-aligned within its region. */
    static final long CHUNK = SharedFileMapping.CHUNK;

    private final HostMemory host = new HostMemory();
    private final long[] gpa;
    private final long[] size;
    private final long[] userAddr;
    private final List<SharedFileMapping> mappings = new ArrayList<>();
    private boolean closed;

    private GuestMemory(int regions) {
        gpa = new long[regions];
        size = new long[regions];
        userAddr = new long[regions];
    }

    /**
     * Checks and maps the regions {@code [gpa, size, userAddr, mmapOffset]}; the caller keeps (and closes) the fds.
     * On failure nothing stays mapped.
     */
    static GuestMemory map(long[] gpas, long[] sizes, long[] userAddrs, long[] mmapOffsets, FileDescriptor[] fds)
            throws VhostUserException {
        int n = gpas.length;
        for (int i = 0; i < n; i++) {
            long s = sizes[i];
            // u64 fields: a value with the top bit set is negative here, and no real address or size is that large
            if (s <= 0 || gpas[i] < 0 || userAddrs[i] < 0 || mmapOffsets[i] < 0
                    || gpas[i] > Long.MAX_VALUE - s || userAddrs[i] > Long.MAX_VALUE - s
                    || mmapOffsets[i] > Long.MAX_VALUE - s) {
                throw new VhostUserException(VhostUserFailure.BAD_REGION, "region " + i + ": guest 0x"
                        + Long.toHexString(gpas[i]) + " size 0x" + Long.toHexString(s) + " user 0x"
                        + Long.toHexString(userAddrs[i]) + " offset 0x" + Long.toHexString(mmapOffsets[i]));
            }
            for (int j = 0; j < i; j++) {
                if (overlaps(gpas[i], s, gpas[j], sizes[j]) || overlaps(userAddrs[i], s, userAddrs[j], sizes[j])) {
                    throw new VhostUserException(VhostUserFailure.BAD_REGION, "region " + i + " overlaps region " + j);
                }
            }
        }
        GuestMemory memory = new GuestMemory(n);
        try {
            for (int i = 0; i < n; i++) {
                memory.mapRegion(i, gpas[i], sizes[i], userAddrs[i], mmapOffsets[i], fds[i]);
            }
        } catch (VhostUserException | RuntimeException e) {
            memory.close();
            throw e;
        }
        return memory;
    }

    private static boolean overlaps(long a, long aLen, long b, long bLen) {
        return a < b + bLen && b < a + aLen;
    }

    private void mapRegion(int i, long regionGpa, long regionSize, long ua, long mmapOffset, FileDescriptor fd)
            throws VhostUserException {
        SharedFileMapping mapping;
        try {
            mapping = SharedFileMapping.map(fd, mmapOffset, regionSize);
        } catch (IOException e) {
            throw new VhostUserException(VhostUserFailure.MAP_FAILED, "region " + i + ": " + e.getMessage());
        }
        mappings.add(mapping);
        try {
            mapping.publish(host, regionGpa);
        } catch (IllegalArgumentException e) {
            throw new VhostUserException(VhostUserFailure.MAP_FAILED, "region " + i + ": " + e.getMessage());
        }
        gpa[i] = regionGpa;
        size[i] = regionSize;
        userAddr[i] = ua;
    }

    HostMemory host() {
        return host;
    }

    int regions() {
        return gpa.length;
    }

    /** Whether all of the user span {@code [ua, ua+length)} lies in one region (then {@link #userToGpa} maps it). */
    boolean holdsUser(long ua, long length) {
        if (ua < 0 || length < 0 || ua > Long.MAX_VALUE - length) {
            return false;
        }
        for (int i = 0; i < userAddr.length; i++) {
            if (ua >= userAddr[i] && ua + length <= userAddr[i] + size[i]) {
                return true;
            }
        }
        return false;
    }

    /**
     * The guest-physical address of user address {@code ua}, which a region holds (the start of a span
     * {@link #holdsUser} accepted; the regions do not overlap, so exactly one holds it).
     *
     * @throws IllegalArgumentException when no region holds {@code ua}
     */
    long userToGpa(long ua) {
        for (int i = 0; i < userAddr.length; i++) {
            if (ua >= userAddr[i] && ua - userAddr[i] < size[i]) {
                return gpa[i] + (ua - userAddr[i]);
            }
        }
        throw new IllegalArgumentException("user address 0x" + Long.toHexString(ua) + " is in no region");
    }

    /** Unmaps every region now (not at GC): the caller guarantees nothing reads the stores any more. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (int r = host.regions() - 1; r >= 0; r--) {
            host.unmap(host.base(r));
        }
        for (SharedFileMapping mapping : mappings) {
            mapping.close();
        }
        mappings.clear();
    }
}
