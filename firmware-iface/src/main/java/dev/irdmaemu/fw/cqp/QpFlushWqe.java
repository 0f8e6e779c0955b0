package dev.irdmaemu.fw.cqp;

import dev.irdmaemu.fw.reg.Bits;
import dev.irdmaemu.fw.reg.QuadwordView;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The Flush WQEs CQP WQE (IRDMA_CQP_OP_FLUSH_WQES, 0x22) as ctrl.c irdma_sc_qp_flush_wqes writes it for gen2:
 * <pre>
 *  +8   IRDMA_CQPSQ_FWQE_AECODE [15:0] IRDMA_CQPSQ_FWQE_AESOURCE [19:16]  (only with GENERATE_AE)
 *  +16  IRDMA_CQPSQ_FWQE_RQMNERR [15:0] RQMJERR [31:16] SQMNERR [47:32] SQMJERR [63:48]  (only with USERFLCODE,
 *       each pair only for the queue being flushed)
 *  +24  header: IRDMA_CQPSQ_FWQE_QPID [23:0], opcode, GENERATE_AE 59, USERFLCODE 60, FLUSHSQ 61, FLUSHRQ 62, valid
 * </pre>
 * irdma_flush_wqes asks for the flush with user flush codes: major IRDMA_FLUSH_MAJOR_ERR (1) and the QP's
 * flush_code (enum irdma_flush_opcode) as minor for a queue whose flush the AE named, FLUSH_GENERAL_ERR otherwise.
 * On success the completion's minor code says what was flushed (main.h IRDMA_CQP_COMPL_RQ_WQE_FLUSHED 2,
 * IRDMA_CQP_COMPL_SQ_WQE_FLUSHED 3). Gen3's error-index quadwords (+40, +48) are not written for gen2.
 *
 * <p>{@link #write} is the driver side (the WQE zeroed first, the header last, like {@link CqpWqeWriter}); the
 * {@link Fields#readFrom} reader is the device side. Static, no allocation.
 */
public final class QpFlushWqe {
    public static final long AECODE = Bits.genmask(15, 0);
    public static final long AESOURCE = Bits.genmask(19, 16);
    public static final long RQMNERR = Bits.genmask(15, 0);
    public static final long RQMJERR = Bits.genmask(31, 16);
    public static final long SQMNERR = Bits.genmask(47, 32);
    public static final long SQMJERR = Bits.genmask(63, 48);
    public static final long QPID = Bits.genmask(23, 0);
    public static final long GENERATE_AE = Bits.bit(59);
    public static final long USERFLCODE = Bits.bit(60);
    public static final long FLUSHSQ = Bits.bit(61);
    public static final long FLUSHRQ = Bits.bit(62);
    /** Header bits the gen2 writer can set. */
    public static final long HEADER_USED = QPID | CqpWqe.OPCODE | GENERATE_AE | USERFLCODE | FLUSHSQ | FLUSHRQ
            | CqpWqe.WQEVALID;

    private QpFlushWqe() {
    }

    /** The fields of struct irdma_qp_flush_info the gen2 WQE carries, and the QP id. Mutable and reusable. */
    public static final class Fields {
        public int qpId;
        public boolean flushSq;
        public boolean flushRq;
        public boolean userFlushCode;
        public boolean generateAe;
        public int sqMajor;
        public int sqMinor;
        public int rqMajor;
        public int rqMinor;
        public int aeCode;
        public int aeSource;

        public Fields clear() {
            qpId = sqMajor = sqMinor = rqMajor = rqMinor = aeCode = aeSource = 0;
            flushSq = flushRq = userFlushCode = generateAe = false;
            return this;
        }

        /** Reads a Flush WQEs WQE at absolute {@code offset} (64 bytes must be readable). */
        public Fields readFrom(BytesStore<?, ?> src, long offset) {
            long q1 = src.readLong(offset + 8);
            long q2 = src.readLong(offset + 16);
            long h = src.readLong(offset + CqpWqe.OFF_HEADER);
            qpId = Bits.getInt(h, QPID);
            generateAe = Bits.flag(h, GENERATE_AE);
            userFlushCode = Bits.flag(h, USERFLCODE);
            flushSq = Bits.flag(h, FLUSHSQ);
            flushRq = Bits.flag(h, FLUSHRQ);
            aeCode = Bits.getInt(q1, AECODE);
            aeSource = Bits.getInt(q1, AESOURCE);
            rqMinor = Bits.getInt(q2, RQMNERR);
            rqMajor = Bits.getInt(q2, RQMJERR);
            sqMinor = Bits.getInt(q2, SQMNERR);
            sqMajor = Bits.getInt(q2, SQMJERR);
            return this;
        }
    }

    /** irdma_sc_qp_flush_wqes (gen2): the 64-byte WQE at absolute {@code offset} of {@code dst}. */
    public static void write(BytesStore<?, ?> dst, long offset, Fields f, boolean valid) {
        QuadwordView.requireRoom(dst, offset, CqpWqe.SIZE, "CQP WQE");
        dst.zeroOut(offset, offset + CqpWqe.SIZE);
        long codes = 0;
        if (f.userFlushCode) {
            if (f.flushRq) {
                codes |= Bits.prep(RQMNERR, f.rqMinor) | Bits.prep(RQMJERR, f.rqMajor);
            }
            if (f.flushSq) {
                codes |= Bits.prep(SQMNERR, f.sqMinor) | Bits.prep(SQMJERR, f.sqMajor);
            }
        }
        dst.writeLong(offset + 16, codes);
        dst.writeLong(offset + 8, f.generateAe ? Bits.prep(AECODE, f.aeCode) | Bits.prep(AESOURCE, f.aeSource) : 0);
        dst.writeLong(offset + CqpWqe.OFF_HEADER, Bits.prep(QPID, f.qpId)
                | Bits.prep(CqpWqe.OPCODE, CqpOpcode.FLUSH_WQES.code()) | Bits.prep(GENERATE_AE, f.generateAe)
                | Bits.prep(USERFLCODE, f.userFlushCode) | Bits.prep(FLUSHSQ, f.flushSq)
                | Bits.prep(FLUSHRQ, f.flushRq) | Bits.prep(CqpWqe.WQEVALID, valid));
    }
}
