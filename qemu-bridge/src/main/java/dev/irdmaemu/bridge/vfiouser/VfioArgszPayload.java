package dev.irdmaemu.bridge.vfiouser;

/**
 * A vfio-user payload that is one of linux/vfio.h's fixed structures opening with argsz u32 and flags u32 (DMA_MAP,
 * DMA_UNMAP, DEVICE_GET_INFO, DEVICE_GET_REGION_INFO, DEVICE_GET_IRQ_INFO, DEVICE_SET_IRQS): the pair's accessors
 * and the size and index rules they all check the same way.
 *
 * @param <P> the subclass
 */
public abstract class VfioArgszPayload<P extends VfioArgszPayload<P>> extends VfioUserPayload<P> {
    /** Where the *_INFO requests hold the index they ask about: vfio_region_info.index, vfio_irq_info.index. */
    protected static final int INFO_INDEX = 8;

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

    /**
     * The rules of a *_INFO request (DEVICE_GET_REGION_INFO, DEVICE_GET_IRQ_INFO): the {@link #sized} rules, then that
     * the unsigned index at {@link #INFO_INDEX} names one of {@code count} (BAD_INDEX).
     */
    protected final VfioUserStatus validateInfoRequest(int exact, int minArgsz, int count) {
        VfioUserStatus sizing = sized(exact, minArgsz);
        if (sizing != VfioUserStatus.OK) {
            return sizing;
        }
        return Integer.compareUnsigned(u32(INFO_INDEX), count) >= 0 ? VfioUserStatus.BAD_INDEX : VfioUserStatus.OK;
    }
}
