package dev.irdmaemu.fw.hmc;

import static dev.irdmaemu.fw.reg.Bits.genmask;

import dev.irdmaemu.fw.Flyweight;
import dev.irdmaemu.fw.reg.Bits;
import dev.irdmaemu.fw.reg.Gen2HwMask;
import dev.irdmaemu.fw.reg.QuadwordView;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over the Commit FPM values buffer (IRDMA_COMMIT_FPM_BUF_SIZE = 208 bytes). The driver writes one
 * quadword per object type at {@link HmcObjectType#commitOffset()}, the plain count it wants
 * (irdma_sc_cfg_iw_fpm; 0 at 40 for APBVT and at 120, the scratch-buffer addresses at 192 and 200). The device
 * answers in place; irdma_sc_parse_fpm_commit_buf / irdma_sc_decode_fpm_commit read back, per type:
 * <pre>
 *  63:32  the object's base in the HMC space, in 512-byte units (IRDMA_COMMIT_FPM_BASE_S)
 *  low    the committed count: IRDMA_COMMIT_FPM_QPCNT (20:0) for QP, the gen2 ICRDMA_COMMIT_FPM_CQCNT (19:0) for
 *         CQ, (u32) of the quadword for the rest; APBVT's count is forced to 1 on gen2
 * </pre>
 * The driver then sizes the SD table from the object with the highest base: ceil((base + count * size) / 2 MiB).
 */
public final class FpmCommitBuffer extends QuadwordView implements Flyweight<FpmCommitBuffer> {
    /** IRDMA_COMMIT_FPM_BUF_SIZE (user.h). */
    public static final int SIZE = 208;
    public static final int BASE_SHIFT = 32;
    public static final int BASE_UNIT = 512;
    public static final long QP_COUNT = genmask(20, 0);
    public static final long CQ_COUNT = Gen2HwMask.COMMIT_FPM_CQCNT.mask();
    public static final long COUNT = genmask(31, 0);
    public static final int OFF_SCRATCH_BUF0 = 192;
    public static final int OFF_SCRATCH_BUF1 = 200;
    /** IRDMA_HMC_DIRECT_BP_SIZE: the span of one SD. */
    public static final long SD_SPAN = 0x20_0000L;

    public FpmCommitBuffer wrap(BytesStore<?, ?> store, long offset) {
        return wrap(store, offset, SIZE);
    }

    public FpmCheck validate() {
        if (!beginValidation(SIZE)) {
            return fail(FpmCheck.TRUNCATED, length);
        }
        return FpmCheck.ACCEPTED;
    }

    public long rawQword(HmcObjectType t) {
        return qword(t.commitOffset());
    }

    /** The count as the driver's request reads to the device: (u32) of the quadword. */
    public long requestedCount(HmcObjectType t) {
        return Bits.get(qword(t.commitOffset()), COUNT);
    }

    /** The committed count as irdma_sc_decode_fpm_commit reads it (gen2). */
    public long committedCount(HmcObjectType t) {
        long q = qword(t.commitOffset());
        return switch (t) {
            case QP -> Bits.get(q, QP_COUNT);
            case CQ -> Bits.get(q, CQ_COUNT);
            case APBVT_ENTRY -> 1;
            default -> Bits.get(q, COUNT);
        };
    }

    /** The committed base in bytes of the HMC space: (quadword >> 32) * 512. */
    public long base(HmcObjectType t) {
        return (qword(t.commitOffset()) >>> BASE_SHIFT) * BASE_UNIT;
    }

    public long scratchBuffer0() {
        return qword(OFF_SCRATCH_BUF0);
    }

    public long scratchBuffer1() {
        return qword(OFF_SCRATCH_BUF1);
    }

    /** SDs covering {@code hmcBytes} of HMC space, rounded up, as irdma_sc_parse_fpm_commit_buf computes sd_cnt. */
    public static long sdCount(long hmcBytes) {
        return (hmcBytes + SD_SPAN - 1) / SD_SPAN;
    }

    // --- writers

    /** The driver's request (irdma_sc_cfg_iw_fpm): the plain count; write 0 for APBVT. */
    public static void writeRequest(BytesStore<?, ?> dst, long offset, HmcObjectType t, long count) {
        requireRoom(dst, offset, SIZE, "Commit FPM buffer");
        dst.writeLong(offset + t.commitOffset(), count);
    }

    /**
     * The device's answer for {@code t}: {@code count} in the type's count field and {@code baseBytes} (a multiple
     * of 512) in 63:32.
     */
    public static void writeCommitted(BytesStore<?, ?> dst, long offset, HmcObjectType t, long count, long baseBytes) {
        requireRoom(dst, offset, SIZE, "Commit FPM buffer");
        if (baseBytes < 0 || baseBytes % BASE_UNIT != 0) {
            throw new IllegalArgumentException("HMC base " + baseBytes + " is not a multiple of 512");
        }
        long countMask = switch (t) {
            case QP -> QP_COUNT;
            case CQ -> CQ_COUNT;
            default -> COUNT;
        };
        dst.writeLong(offset + t.commitOffset(), Bits.prep(countMask, count) | (baseBytes / BASE_UNIT) << BASE_SHIFT);
    }
}
