package dev.irdmaemu.fw.cqp;

import static dev.irdmaemu.fw.reg.Bits.bit;
import static dev.irdmaemu.fw.reg.Bits.genmask;

import dev.irdmaemu.fw.Flyweight;
import dev.irdmaemu.fw.reg.Bits;
import dev.irdmaemu.fw.reg.QuadwordView;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over one CCQ completion (the CQE the device writes to the control CQ for a CQP WQE), as
 * irdma_sc_ccq_get_cqe_info (ctrl.c) reads it, with the defs.h masks:
 * <pre>
 *  byte  8  quadword 1: the completion context, the value the driver put at byte 24 of the CQP host context
 *                       (its struct irdma_sc_cqp pointer; {@link CqpHostContext#completionContext()})
 *  byte 16  quadword 2: IRDMA_CCQ_OPRETVAL (31:0), IRDMA_CCQ_DEFINFO (63:32, gen3 deferred completions)
 *  byte 24  quadword 3: IRDMA_CQ_MINERR (15:0), IRDMA_CQ_MAJERR (31:16), IRDMA_CQ_WQEIDX (46:32),
 *                       IRDMA_OOO_CMPL (54), IRDMA_CQ_ERROR (55), IRDMA_CQ_VALID (63)
 * </pre>
 * A CQE is 32 bytes; with avoid_mem_cflct the driver indexes the ring in 64-byte extended CQEs with the same first
 * 32 bytes. The driver takes the major code only when IRDMA_CQ_ERROR is set, always the minor code, and the op
 * code not from the CQE but from the header of the SQ WQE at WQEIDX ({@link CqpWqe#opcode()}). The valid bit is
 * the CQ's polarity: irdma_sc_ccq_init starts it at 1 and the driver flips it each time its head wraps to 0.
 */
public final class CqpCompletion extends QuadwordView implements Flyweight<CqpCompletion> {
    public static final int SIZE = 32;
    public static final int EXTENDED_SIZE = 64;

    public static final long OPRETVAL = genmask(31, 0);
    public static final long DEFINFO = genmask(63, 32);
    public static final long MINERR = genmask(15, 0);
    public static final long MAJERR = genmask(31, 16);
    public static final long WQEIDX = genmask(46, 32);
    public static final long OOO_CMPL = bit(54);
    public static final long ERROR = bit(55);
    public static final long VALID = bit(63);

    public CqpCompletion wrap(BytesStore<?, ?> store, long offset) {
        return wrap(store, offset, SIZE);
    }

    public CqpCompletionCheck validate() {
        if (!beginValidation(SIZE)) {
            return fail(CqpCompletionCheck.TRUNCATED, length);
        }
        if (!error() && majorCode() != 0) {
            return fail(CqpCompletionCheck.MAJOR_WITHOUT_ERROR, 26);
        }
        return CqpCompletionCheck.ACCEPTED;
    }

    /**
     * The valid bit of the {@code n}-th CQE (from 0) in a CCQ of {@code ringSize} entries: 1 on the first pass (the
     * driver's cq_uk.polarity starts true), then alternating on each wrap.
     */
    public static boolean expectedValid(long n, int ringSize) {
        return ringSize > 0 && n >= 0 && (n / ringSize & 1) == 0;
    }

    public long completionContext() {
        return qword(8);
    }

    public long opReturnValue() {
        return Bits.get(qword(16), OPRETVAL);
    }

    public long deferredInfo() {
        return Bits.get(qword(16), DEFINFO);
    }

    public int minorCode() {
        return Bits.getInt(qword(24), MINERR);
    }

    /** The raw major code field; the driver's view is {@link #driverMajorCode()}. */
    public int majorCode() {
        return Bits.getInt(qword(24), MAJERR);
    }

    /** The major code as the driver takes it: the field when {@link #error()}, else IRDMA_CQPSQ_MAJ_NO_ERROR. */
    public int driverMajorCode() {
        return error() ? majorCode() : CqpErrorCode.MAJ_NO_ERROR;
    }

    /** The CQP SQ index of the WQE this completes. */
    public int wqeIndex() {
        return Bits.getInt(qword(24), WQEIDX);
    }

    public boolean outOfOrder() {
        return Bits.flag(qword(24), OOO_CMPL);
    }

    public boolean error() {
        return Bits.flag(qword(24), ERROR);
    }

    public boolean valid() {
        return Bits.flag(qword(24), VALID);
    }

    /**
     * Writes a completion at absolute {@code offset} (32 bytes, the device's side): quadwords 0..2 first, the
     * valid quadword last, in a release store (the driver polls from its own CPU). {@code major} is written only
     * with {@code error}, as the driver only reads it then.
     */
    public static void write(BytesStore<?, ?> dst, long offset, long completionContext, long opReturnValue,
                             int wqeIndex, boolean error, int major, int minor, boolean valid) {
        requireRoom(dst, offset, SIZE, "CCQ CQE");
        dst.writeLong(offset, 0L);
        dst.writeLong(offset + 8, completionContext);
        dst.writeLong(offset + 16, Bits.prep(OPRETVAL, opReturnValue));
        dst.writeOrderedLong(offset + 24, Bits.prep(MINERR, minor) | Bits.prep(MAJERR, error ? major : 0)
                | Bits.prep(WQEIDX, wqeIndex) | Bits.prep(ERROR, error) | Bits.prep(VALID, valid));
    }
}
