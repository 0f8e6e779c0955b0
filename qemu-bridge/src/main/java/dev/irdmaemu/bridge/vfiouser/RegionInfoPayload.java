package dev.irdmaemu.bridge.vfiouser;

/**
 * DEVICE_GET_REGION_INFO (vfio-user.rst; linux/vfio.h struct vfio_region_info), 32 bytes: argsz u32, flags u32
 * (1 READ, 2 WRITE, 4 MMAP, 8 CAPS), index u32, cap_offset u32, size u64, offset u64. We offer no capabilities
 * and never MMAP (an MMAP-able region turns off posted writes for the whole device in QEMU's client, device.c
 * vfio_user_get_region_info), so the full reply is the 32-byte structure. A request whose argsz is smaller gets
 * that many bytes with argsz saying 32, VFIO's way of asking the caller to retry with a bigger buffer (lvu
 * handle_device_get_region_info); below {@link #MIN_ARGSZ} it could not even carry the index back and is refused.
 */
public final class RegionInfoPayload extends VfioArgszPayload<RegionInfoPayload> {
    public static final int LENGTH = 32;
    /** The smallest argsz answered: argsz, flags, index and cap_offset. */
    public static final int MIN_ARGSZ = 16;
    public static final int FLAG_READ = 1;
    public static final int FLAG_WRITE = 2;

    public int index() {
        return u32(INFO_INDEX);
    }

    public int capOffset() {
        return u32(12);
    }

    public long size() {
        return u64(16);
    }

    public long offset() {
        return u64(24);
    }

    public VfioUserStatus validate(int numRegions) {
        return validateInfoRequest(LENGTH, MIN_ARGSZ, numRegions);
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
