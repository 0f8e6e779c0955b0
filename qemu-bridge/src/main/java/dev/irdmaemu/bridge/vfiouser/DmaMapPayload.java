package dev.irdmaemu.bridge.vfiouser;

/**
 * DMA_MAP's payload (vfio-user.rst "VFIO_USER_DMA_MAP"), 32 bytes: argsz u32, flags u32 (1 READ, 2 WRITE),
 * offset u64 (into the file descriptor, when one came), address u64 (the IOVA, guest-physical without a vIOMMU),
 * size u64. With no descriptor the window is reachable only through DMA_READ/WRITE messages.
 */
public final class DmaMapPayload extends VfioArgszPayload<DmaMapPayload> {
    public static final int LENGTH = 32;
    public static final int FLAG_READ = 1;
    public static final int FLAG_WRITE = 2;
    /** The page size advertised in VERSION ({@code pgsizes}): windows are whole pages. */
    public static final long PAGE = 4096;

    public long offset() {
        return u64(8);
    }

    public long address() {
        return u64(16);
    }

    public long size() {
        return u64(24);
    }

    public boolean writable() {
        return (flags() & FLAG_WRITE) != 0;
    }

    /** Checks the structure with {@code fds} descriptors received (0 or 1). */
    public VfioUserStatus validate(int fds) {
        VfioUserStatus sizing = sized(LENGTH, LENGTH);
        if (sizing != VfioUserStatus.OK) {
            return sizing;
        }
        int flags = flags();
        if ((flags & ~(FLAG_READ | FLAG_WRITE)) != 0 || (flags & FLAG_READ) == 0) {
            return VfioUserStatus.BAD_FLAGS; // a write-only window has no meaning for a PCI device's DMA
        }
        if (fds > 1) {
            return VfioUserStatus.BAD_FD_COUNT;
        }
        long address = address();
        long size = size();
        long offset = offset();
        // u64 fields: the top bit set reads negative and is beyond any guest's address space
        if (size <= 0 || address < 0 || offset < 0 || address > Long.MAX_VALUE - size
                || offset > Long.MAX_VALUE - size) {
            return VfioUserStatus.OUT_OF_RANGE;
        }
        if ((address | size) % PAGE != 0 || fds == 1 && offset % PAGE != 0) {
            return VfioUserStatus.OUT_OF_RANGE;
        }
        return VfioUserStatus.OK;
    }
}
