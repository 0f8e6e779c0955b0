package dev.irdmaemu.bridge.vfiouser;

/**
 * REGION_READ and REGION_WRITE (vfio-user.rst "VFIO_USER_REGION_READ"/"WRITE"): offset u64, region u32, count
 * u32, then (write request, read reply) count bytes of data. A read request is the 16 bytes alone; a write's reply
 * is the 16 bytes alone.
 *
 * <p>Accesses are 1, 2, 4 or 8 bytes inside the region, the shapes a CPU's MMIO or config cycle takes; the one
 * exception is the whole-config read QEMU makes at realize (hw/vfio/pci.c vfio_pci_config_setup: 4096 bytes at
 * offset 0 of the config region): a read of the bulk region's whole size.
 */
public final class RegionAccessPayload extends VfioUserPayload<RegionAccessPayload> {
    public static final int FIXED = 16;

    public long offset() {
        return u64(0);
    }

    public int region() {
        return u32(8);
    }

    public int count() {
        return u32(12);
    }

    /** The buffer offset of the data (write request, read reply). */
    public static int dataOffset() {
        return AT + FIXED;
    }

    /** Little-endian value of a 1/2/4/8-byte write's data. */
    public long value() {
        int at = AT + FIXED;
        switch (count()) {
            case 1:
                return buf.get(at) & 0xffL;
            case 2:
                return buf.getShort(at) & 0xffffL;
            case 4:
                return buf.getInt(at) & 0xffffffffL;
            default:
                return buf.getLong(at);
        }
    }

    /** Puts a read's value (little-endian, count bytes) after the fixed part. */
    public void putValue(long value) {
        int at = AT + FIXED;
        switch (count()) {
            case 1:
                buf.put(at, (byte) value);
                break;
            case 2:
                buf.putShort(at, (short) value);
                break;
            case 4:
                buf.putInt(at, (int) value);
                break;
            default:
                buf.putLong(at, value);
        }
    }

    /**
     * Checks a request: {@code regionSizes[region]} is each region's size (0 = absent), {@code bulkRegion} the
     * region that may also be read whole in one request (config), {@code write} whether data must follow.
     */
    public VfioUserStatus validate(long[] regionSizes, int bulkRegion, boolean write) {
        if (length < FIXED) {
            return VfioUserStatus.BAD_SIZE;
        }
        int region = region();
        long count = count() & 0xffffffffL;
        if (length != FIXED + (write ? count : 0)) {
            return VfioUserStatus.BAD_SIZE;
        }
        if (Integer.compareUnsigned(region, regionSizes.length) >= 0 || regionSizes[region] == 0) {
            return VfioUserStatus.BAD_INDEX;
        }
        boolean scalar = count == 1 || count == 2 || count == 4 || count == 8;
        if (!scalar && (write || region != bulkRegion || count != regionSizes[region])) {
            return VfioUserStatus.BAD_ACCESS_SIZE;
        }
        long offset = offset();
        if (offset < 0 || offset > regionSizes[region] - count) {
            return VfioUserStatus.OUT_OF_RANGE;
        }
        return VfioUserStatus.OK;
    }
}
