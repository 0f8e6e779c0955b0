package dev.irdmaemu.fw.cqp;

import static dev.irdmaemu.fw.reg.Bits.genmask;

import dev.irdmaemu.fw.Flyweight;
import dev.irdmaemu.fw.reg.Bits;
import dev.irdmaemu.fw.reg.QuadwordView;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The buffer the device fills for Query RDMA Features, as irdma_get_rdma_features (ctrl.c) reads it: an array of
 * quadwords, each IRDMA_FEATURE_TYPE (63:48, enum irdma_feature_type of type.h) with its info (IRDMA_FEATURE_INFO,
 * 47:0); the first entry's IRDMA_FEATURE_CNT (47:32) is the number of entries. The driver fails with fewer than 2,
 * retries with a larger buffer when more than IRDMA_MAX_FEATURES (34), skips types of 34 and above, and keeps
 * each entry whole in feature_info[type]. Its buffer is ALIGN(8 * IRDMA_MAX_FEATURES, 16) = 272 bytes.
 */
public final class RdmaFeatureBuffer extends QuadwordView implements Flyweight<RdmaFeatureBuffer> {
    public static final long FEATURE_TYPE = genmask(63, 48);
    public static final long FEATURE_INFO = genmask(47, 0);
    public static final long FEATURE_CNT = genmask(47, 32);
    /** IRDMA_FW_VER_MAJOR / IRDMA_FW_VER_MINOR, in the FEATURE_FW_INFO entry. */
    public static final long FW_VER_MAJOR = genmask(31, 16);
    public static final long FW_VER_MINOR = genmask(15, 0);
    public static final int MAX_FEATURES = 34;
    public static final int DRIVER_BUFFER_SIZE = 272;
    /** enum irdma_feature_type values the model answers. */
    public static final int FEATURE_FW_INFO = 0;
    public static final int HW_VERSION_INFO = 1;
    public static final int FTN_FLAGS = 32;
    /**
     * FTN_FLAGS bits the driver tests: IRDMA_ATOMICS_ALLOWED_BIT (defs.h, value 1, used directly as the mask, so
     * bit 0) and IRDMA_MANAGE_RSRC_VER2 (BIT_ULL(2)).
     */
    public static final long FLAG_ATOMICS_ALLOWED = 1L;
    public static final long FLAG_MANAGE_RSRC_VER2 = 1L << 2;

    /** Entries announced by the first quadword's FEATURE_CNT. */
    public int count() {
        return Bits.getInt(qword(0), FEATURE_CNT);
    }

    /** Entries actually inside the window (at most {@link #count()}). */
    public int readableCount() {
        return (int) Math.min(count(), length / 8);
    }

    public int type(int i) {
        return Bits.getInt(qword(8L * i), FEATURE_TYPE);
    }

    public long info(int i) {
        return Bits.get(qword(8L * i), FEATURE_INFO);
    }

    public long entry(int i) {
        return i >= 0 ? qword(8L * i) : 0L;
    }

    /** One entry (the device's side); entry 0 must carry the count: {@link #firstEntry}. */
    public static long entry(int type, long info) {
        return Bits.prep(FEATURE_TYPE, type) | Bits.prep(FEATURE_INFO, info);
    }

    /** The FW info entry with the entry count, as entry 0. */
    public static long firstEntry(int count, int fwMajor, int fwMinor) {
        return entry(FEATURE_FW_INFO, Bits.prep(FEATURE_CNT, count) | Bits.prep(FW_VER_MAJOR, fwMajor)
                | Bits.prep(FW_VER_MINOR, fwMinor));
    }

    /** Writes entry {@code i} at absolute {@code offset}; false (nothing written) when it does not fit in
     * {@code bufferLength}, the length the driver gave in the WQE. */
    public static boolean write(BytesStore<?, ?> dst, long offset, int bufferLength, int i, long entry) {
        if (i < 0 || 8L * i + 8 > bufferLength) {
            return false;
        }
        requireRoom(dst, offset + 8L * i, 8, "feature entry");
        dst.writeLong(offset + 8L * i, entry);
        return true;
    }
}
