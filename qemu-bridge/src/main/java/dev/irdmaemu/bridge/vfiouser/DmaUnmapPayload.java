package dev.irdmaemu.bridge.vfiouser;

import java.nio.ByteBuffer;

/**
 * DMA_UNMAP's payload (vfio-user.rst "VFIO_USER_DMA_UNMAP"), 24 bytes: argsz u32, flags u32, address u64, size
 * u64. Flags: 1 asks for a dirty-page bitmap (not offered: no migration), 2 unmaps every window (address and size
 * 0; QEMU hw/vfio-user/container.c). The reply echoes the entry.
 */
public final class DmaUnmapPayload {
    public static final int LENGTH = 24;
    public static final int FLAG_GET_DIRTY_BITMAP = 1;
    public static final int FLAG_ALL = 2;
    private static final int AT = VfioUserHeader.SIZE;

    private ByteBuffer buf;
    private int length;

    public DmaUnmapPayload wrap(ByteBuffer buffer, int payloadLength) {
        this.buf = buffer;
        this.length = payloadLength;
        return this;
    }

    public int argsz() {
        return buf.getInt(AT);
    }

    public int flags() {
        return buf.getInt(AT + 4);
    }

    public long address() {
        return buf.getLong(AT + 8);
    }

    public long size() {
        return buf.getLong(AT + 16);
    }

    public boolean all() {
        return (flags() & FLAG_ALL) != 0;
    }

    public VfioUserStatus validate(int fds) {
        if (length != LENGTH) {
            return VfioUserStatus.BAD_SIZE;
        }
        if (Integer.compareUnsigned(argsz(), LENGTH) < 0) {
            return VfioUserStatus.BAD_ARGSZ;
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
