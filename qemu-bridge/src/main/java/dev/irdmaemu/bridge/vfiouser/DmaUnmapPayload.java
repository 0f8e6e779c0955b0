package dev.irdmaemu.bridge.vfiouser;

/**
 * DMA_UNMAP's payload (vfio-user.rst "VFIO_USER_DMA_UNMAP"), 24 bytes: argsz u32, flags u32, address u64, size
 * u64. Flags: 1 asks for a dirty-page bitmap (not offered: no migration), 2 unmaps every window (address and size
 * 0; QEMU hw/vfio-user/container.c). The reply echoes the entry.
 */
public final class DmaUnmapPayload extends VfioArgszPayload<DmaUnmapPayload> {
    public static final int LENGTH = 24;
    public static final int FLAG_GET_DIRTY_BITMAP = 1;
    public static final int FLAG_ALL = 2;

    public long address() {
        return u64(8);
    }

    public long size() {
        return u64(16);
    }

    public boolean all() {
        return (flags() & FLAG_ALL) != 0;
    }

    public VfioUserStatus validate(int fds) {
        VfioUserStatus sizing = sized(LENGTH, LENGTH);
        if (sizing != VfioUserStatus.OK) {
            return sizing;
        }
        if (fds != 0) {
            return VfioUserStatus.BAD_FD_COUNT;
        }
        int flags = flags();
        if ((flags & FLAG_GET_DIRTY_BITMAP) != 0) {
            return VfioUserStatus.UNSUPPORTED;
        }
        if ((flags & ~FLAG_ALL) != 0 || all() && (address() != 0 || size() != 0)) {
            return VfioUserStatus.BAD_FLAGS;
        }
        return VfioUserStatus.OK;
    }

    /** Turns the request into its reply in place: the same entry, argsz the entry's size. */
    public int writeReply() {
        buf.putInt(AT, LENGTH);
        return LENGTH;
    }
}
