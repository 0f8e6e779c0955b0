package dev.irdmaemu.bridge.vfiouser;

/**
 * A vfio-user payload that is one of linux/vfio.h's fixed structures opening with argsz u32 and flags u32 (DMA_MAP,
 * DMA_UNMAP, DEVICE_GET_INFO, DEVICE_GET_REGION_INFO, DEVICE_GET_IRQ_INFO, DEVICE_SET_IRQS): the pair's accessors
 * and the size and index rules they all check the same way.
 *
 * @param <P> the subclass
 */
public abstract class VfioArgszPayload<P extends VfioArgszPayload<P>> extends VfioUserPayload<P> {
    /** The structure's argsz (the payload's first u32 where the structure has one). */
    public int argsz() {
        return u32(0);
    }

    /** The structure's flags (the u32 after argsz where the structure has one). */
    public int flags() {
        return u32(4);
    }

    /**
     * The size rules of a fixed-size structure with an argsz: the payload is exactly {@code exact} bytes (BAD_SIZE)
     * and argsz, unsigned, says at least {@code minArgsz} (BAD_ARGSZ).
     */
    protected final VfioUserStatus sized(int exact, int minArgsz) {
        if (length != exact) {
            return VfioUserStatus.BAD_SIZE;
        }
        return Integer.compareUnsigned(argsz(), minArgsz) < 0 ? VfioUserStatus.BAD_ARGSZ : VfioUserStatus.OK;
    }

    /** The index check of the *_INFO requests: the unsigned {@code index} names one of {@code count}. */
    protected static VfioUserStatus indexWithin(int index, int count) {
        return Integer.compareUnsigned(index, count) >= 0 ? VfioUserStatus.BAD_INDEX : VfioUserStatus.OK;
    }
}
