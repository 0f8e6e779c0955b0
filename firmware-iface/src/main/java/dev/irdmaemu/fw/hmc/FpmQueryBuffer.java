package dev.irdmaemu.fw.hmc;

import static dev.irdmaemu.fw.reg.Bits.genmask;

import dev.irdmaemu.fw.Flyweight;
import dev.irdmaemu.fw.reg.Bits;
import dev.irdmaemu.fw.reg.QuadwordView;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over the Query FPM values buffer (IRDMA_QUERY_FPM_BUF_SIZE = 200 bytes, little-endian quadwords) that
 * the device writes for a Query FPM Values WQE and irdma_sc_parse_fpm_query_buf (ctrl.c) reads, gen2 layout:
 * <pre>
 *  byte   0  IRDMA_QUERY_FPM_FIRST_PE_SD_INDEX (13:0), IRDMA_QUERY_FPM_MAX_PE_SDS (44:32)
 *  per type  {@link HmcObjectType#queryOffset()}: max count (31:0) and log2 object size (63:32), or for the free
 *            lists max count and block size (XFBLOCKSIZE, Q1BLOCKSIZE, RRFFLBLOCKSIZE, OOISCFBLOCKSIZE, 63:32),
 *            or for PBLE the max count only
 *  byte 120  IRDMA_QUERY_FPM_MAX_CEQS (9:0), HTMULTIPLIER (19:16), TIMERBUCKET (47:32), MAX_IRD (53:50)
 * </pre>
 * The PF driver uses max_pe_sds as is (the unprivileged-function decrement does not apply).
 */
public final class FpmQueryBuffer extends QuadwordView implements Flyweight<FpmQueryBuffer> {
    /** IRDMA_QUERY_FPM_BUF_SIZE (user.h). */
    public static final int SIZE = 200;
    public static final int OFF_MISC = 120;

    public static final long FIRST_PE_SD_INDEX = genmask(13, 0);
    public static final long MAX_PE_SDS = genmask(44, 32);
    public static final long MAX_COUNT = genmask(31, 0);
    public static final long SIZE_OR_BLOCK = genmask(63, 32);
    public static final long MAX_CEQS = genmask(9, 0);
    public static final long HTMULTIPLIER = genmask(19, 16);
    public static final long TIMERBUCKET = genmask(47, 32);
    public static final long MAX_IRD = genmask(53, 50);
    /** The sizes the driver assumes where the buffer carries none. */
    public static final int FREE_LIST_OBJECT_SIZE = 4;
    public static final int PBLE_OBJECT_SIZE = 8;
    public static final int APBVT_OBJECT_SIZE = 8192;

    private static final HmcObjectType[] TYPES = HmcObjectType.values();

    public FpmQueryBuffer wrap(BytesStore<?, ?> store, long offset) {
        return wrap(store, offset, SIZE);
    }

    /**
     * The driver's -EINVAL cases (XF objects without XFBLOCKSIZE, no Q1BLOCKSIZE, RRF / OOISC free-list objects
     * without a block size) and object sizes it cannot shift by.
     */
    public FpmCheck validate() {
        if (!beginValidation(SIZE)) {
            return fail(FpmCheck.TRUNCATED, length);
        }
        for (HmcObjectType t : TYPES) {
            if (t.queryEncoding() == HmcObjectType.QueryEncoding.COUNT_AND_LOG2_SIZE && sizeLog2(t) >= 64) {
                return fail(FpmCheck.OBJECT_SIZE_TOO_LARGE, t.queryOffset() + 4);
            }
        }
        if (maxCount(HmcObjectType.XF) != 0 && blockSize(HmcObjectType.XFFL) == 0) {
            return fail(FpmCheck.MISSING_BLOCK_SIZE, HmcObjectType.XFFL.queryOffset() + 4);
        }
        if (blockSize(HmcObjectType.Q1FL) == 0) {
            return fail(FpmCheck.MISSING_BLOCK_SIZE, HmcObjectType.Q1FL.queryOffset() + 4);
        }
        if (maxCount(HmcObjectType.RRFFL) != 0 && blockSize(HmcObjectType.RRFFL) == 0) {
            return fail(FpmCheck.MISSING_BLOCK_SIZE, HmcObjectType.RRFFL.queryOffset() + 4);
        }
        if (maxCount(HmcObjectType.OOISCFFL) != 0 && blockSize(HmcObjectType.OOISCFFL) == 0) {
            return fail(FpmCheck.MISSING_BLOCK_SIZE, HmcObjectType.OOISCFFL.queryOffset() + 4);
        }
        return FpmCheck.ACCEPTED;
    }

    public int firstPeSdIndex() {
        return Bits.getInt(qword(0), FIRST_PE_SD_INDEX);
    }

    public int maxPeSds() {
        return Bits.getInt(qword(0), MAX_PE_SDS);
    }

    /** The max count the driver reads ((u32) of the quadword); 1 for APBVT, which the buffer does not carry. */
    public long maxCount(HmcObjectType t) {
        return t.queryOffset() < 0 ? 1 : Bits.get(qword(t.queryOffset()), MAX_COUNT);
    }

    /** log2 of the object size (COUNT_AND_LOG2_SIZE types); -1 for the others. */
    public int sizeLog2(HmcObjectType t) {
        return t.queryEncoding() == HmcObjectType.QueryEncoding.COUNT_AND_LOG2_SIZE
                ? (int) Bits.get(qword(t.queryOffset()), SIZE_OR_BLOCK) : -1;
    }

    /** The object size in bytes as the driver takes it (BIT_ULL(log2), or its fixed 4 / 8 / 8192); 0 if undefined. */
    public long objectSize(HmcObjectType t) {
        return switch (t.queryEncoding()) {
            case COUNT_AND_LOG2_SIZE -> {
                int l = sizeLog2(t);
                yield l >= 0 && l < 64 ? 1L << l : 0L;
            }
            case FREE_LIST -> FREE_LIST_OBJECT_SIZE;
            case COUNT_ONLY -> PBLE_OBJECT_SIZE;
            case DRIVER_FIXED -> APBVT_OBJECT_SIZE;
        };
    }

    /** The block size of a free-list type (XFFL, Q1FL, RRFFL, OOISCFFL); 0 for the others. */
    public long blockSize(HmcObjectType t) {
        return t.queryEncoding() == HmcObjectType.QueryEncoding.FREE_LIST
                ? Bits.get(qword(t.queryOffset()), SIZE_OR_BLOCK) : 0L;
    }

    public int maxCeqs() {
        return Bits.getInt(qword(OFF_MISC), MAX_CEQS);
    }

    public int htMultiplier() {
        return Bits.getInt(qword(OFF_MISC), HTMULTIPLIER);
    }

    public int timerBucket() {
        return Bits.getInt(qword(OFF_MISC), TIMERBUCKET);
    }

    /** MAX_IRD, read only when the firmware reports IRDMA_MANAGE_RSRC_VER2. */
    public int maxIrdEncoding() {
        return Bits.getInt(qword(OFF_MISC), MAX_IRD);
    }

    // --- the device's side

    /** Zeroes the 200 bytes at absolute {@code offset}. */
    public static void clear(BytesStore<?, ?> dst, long offset) {
        requireRoom(dst, offset, SIZE, "Query FPM buffer");
        dst.zeroOut(offset, offset + SIZE);
    }

    public static void writeSdInfo(BytesStore<?, ?> dst, long offset, int firstPeSdIndex, int maxPeSds) {
        requireRoom(dst, offset, SIZE, "Query FPM buffer");
        dst.writeLong(offset, Bits.prep(FIRST_PE_SD_INDEX, firstPeSdIndex) | Bits.prep(MAX_PE_SDS, maxPeSds));
    }

    /**
     * Writes {@code t}'s quadword: {@code maxCount} and, by its encoding, the log2 object size or the free-list
     * block size ({@code sizeOrBlock}; ignored for PBLE). APBVT has no quadword: nothing is written.
     */
    public static void writeObject(BytesStore<?, ?> dst, long offset, HmcObjectType t, long maxCount,
                                   long sizeOrBlock) {
        requireRoom(dst, offset, SIZE, "Query FPM buffer");
        if (t.queryOffset() < 0) {
            return;
        }
        long hi = t.queryEncoding() == HmcObjectType.QueryEncoding.COUNT_ONLY ? 0 : Bits.prep(SIZE_OR_BLOCK, sizeOrBlock);
        dst.writeLong(offset + t.queryOffset(), Bits.prep(MAX_COUNT, maxCount) | hi);
    }

    public static void writeMisc(BytesStore<?, ?> dst, long offset, int maxCeqs, int htMultiplier, int timerBucket,
                                 int maxIrd) {
        requireRoom(dst, offset, SIZE, "Query FPM buffer");
        dst.writeLong(offset + OFF_MISC, Bits.prep(MAX_CEQS, maxCeqs) | Bits.prep(HTMULTIPLIER, htMultiplier)
                | Bits.prep(TIMERBUCKET, timerBucket) | Bits.prep(MAX_IRD, maxIrd));
    }
}
