package dev.irdmaemu.bridge.vfiouser;

/**
 * DEVICE_SET_IRQS (vfio-user.rst; linux/vfio.h struct vfio_irq_set), 20 bytes: argsz u32, flags u32, index u32,
 * start u32, count u32. Flags: one data type (1 NONE, 2 BOOL, 4 EVENTFD) and one action (8 MASK, 0x10 UNMASK,
 * 0x20 TRIGGER). Eventfds travel only as SCM_RIGHTS, never in the payload.
 *
 * <p>The rules are libvfio-user's (lib/irq.c handle_device_set_irqs): start + count within the index's vectors;
 * count 0 only with NONE + TRIGGER, which disables the whole index; EVENTFD with as many descriptors as vectors
 * assigns them, EVENTFD with none de-assigns the vectors (QEMU sends "runs of -1" so, pci.c vfio_enable_vectors).
 * BOOL data and MASK/UNMASK with descriptors are not offered: QEMU handles MSI-X masking itself and INTx has no
 * vectors here.
 */
public final class SetIrqsPayload extends VfioArgszPayload<SetIrqsPayload> {
    public static final int LENGTH = 20;
    public static final int DATA_NONE = 1;
    public static final int DATA_BOOL = 2;
    public static final int DATA_EVENTFD = 4;
    public static final int ACTION_MASK = 8;
    public static final int ACTION_UNMASK = 0x10;
    public static final int ACTION_TRIGGER = 0x20;
    private static final int DATA_BITS = DATA_NONE | DATA_BOOL | DATA_EVENTFD;
    private static final int ACTION_BITS = ACTION_MASK | ACTION_UNMASK | ACTION_TRIGGER;

    public int index() {
        return u32(8);
    }

    public int start() {
        return u32(12);
    }

    public int count() {
        return u32(16);
    }

    public int data() {
        return flags() & DATA_BITS;
    }

    public int action() {
        return flags() & ACTION_BITS;
    }

    /** Checks the request against {@code vectors[index]} (each index's vector count) and the descriptors received. */
    public VfioUserStatus validate(int[] vectors, int fds) {
        VfioUserStatus sizing = sized(LENGTH, LENGTH);
        if (sizing != VfioUserStatus.OK) {
            return sizing;
        }
        int flags = flags();
        int data = data();
        int action = action();
        if ((flags & ~(DATA_BITS | ACTION_BITS)) != 0 || Integer.bitCount(data) != 1
                || Integer.bitCount(action) != 1) {
            return VfioUserStatus.BAD_FLAGS;
        }
        if (Integer.compareUnsigned(index(), vectors.length) >= 0) {
            return VfioUserStatus.BAD_INDEX;
        }
        if (data == DATA_BOOL || data == DATA_EVENTFD && action != ACTION_TRIGGER) {
            return VfioUserStatus.UNSUPPORTED;
        }
        long start = start() & 0xffffffffL;
        long count = count() & 0xffffffffL;
        if (count == 0) {
            if (data != DATA_NONE || action != ACTION_TRIGGER || start != 0) {
                return VfioUserStatus.OUT_OF_RANGE;
            }
        } else if (start + count > vectors[index()]) {
            return VfioUserStatus.OUT_OF_RANGE;
        }
        if (data == DATA_EVENTFD ? fds != 0 && fds != count : fds != 0) {
            return VfioUserStatus.BAD_FD_COUNT;
        }
        return VfioUserStatus.OK;
    }
}
