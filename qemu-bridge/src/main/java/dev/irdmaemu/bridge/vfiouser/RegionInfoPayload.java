package dev.irdmaemu.bridge.vfiouser;

import java.nio.ByteBuffer;

/**
 * DEVICE_GET_REGION_INFO (vfio-user.rst; linux/vfio.h struct vfio_region_info), 32 bytes: argsz u32, flags u32
 * (1 READ, 2 WRITE, 4 MMAP, 8 CAPS), index u32, cap_offset u32, size u64, offset u64. We offer no capabilities
 * and never MMAP (an MMAP-able region turns off posted writes for the whole device in QEMU's client, device.c
 * vfio_user_get_region_info), so the full reply is the 32-byte structure. A request whose argsz is smaller gets
 * that many bytes with argsz saying 32, VFIO's way of asking the caller to retry with a bigger buffer (lvu
 * handle_device_get_region_info); below {@link #MIN_ARGSZ} it could not even carry the index back and is refused.
 */
public final class RegionInfoPayload {
    public static final int LENGTH = 32;
    /** The smallest argsz answered: argsz, flags, index and cap_offset. */
    public static final int MIN_ARGSZ = 16;
    public static final int FLAG_READ = 1;
    public static final int FLAG_WRITE = 2;
    private static final int AT = VfioUserHeader.SIZE;

    private ByteBuffer buf;
    private int length;

    public RegionInfoPayload wrap(ByteBuffer buffer, int payloadLength) {
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

    public int index() {
        return buf.getInt(AT + 8);
    }

    public int capOffset() {
        return buf.getInt(AT + 12);
    }

    public long size() {
        return buf.getLong(AT + 16);
    }

    public long offset() {
        return buf.getLong(AT + 24);
    }

    public VfioUserStatus validate(int numRegions) {
        if (length != LENGTH) {
            return VfioUserStatus.BAD_SIZE;
        }
        if (Integer.compareUnsigned(argsz(), MIN_ARGSZ) < 0) {
            return VfioUserStatus.BAD_ARGSZ;
        }
        return Integer.compareUnsigned(index(), numRegions) >= 0 ? VfioUserStatus.BAD_INDEX : VfioUserStatus.OK;
    }

    /**
     * Writes the reply for the request's index: at most the request's argsz bytes, argsz set to the full size.
     * Answers the reply payload's length.
     */
    public int writeReply(int flags, long size) {
        int index = index();
        int room = Integer.compareUnsigned(argsz(), LENGTH) < 0 ? argsz() : LENGTH;
        buf.putInt(AT, LENGTH).putInt(AT + 4, flags).putInt(AT + 8, index).putInt(AT + 12, 0)
                .putLong(AT + 16, size).putLong(AT + 24, 0);
        return room;
    }
}
