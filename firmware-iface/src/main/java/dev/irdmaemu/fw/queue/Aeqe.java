package dev.irdmaemu.fw.queue;

import dev.irdmaemu.fw.Flyweight;

/**
 * Flyweight over one 16-byte asynchronous event queue entry (user.h IRDMA_AEQE_SIZE = 2 quadwords) in the gen2
 * layout irdma_sc_get_next_aeqe reads (defs.h):
 * <pre>
 *  qword0 (+0)  IRDMA_AEQE_COMPCTX [63:0]: the QP's qp_compl_ctx, or the CQ context shifted right by one
 *  qword1 (+8)  IRDMA_AEQE_QPCQID_LOW [17:0] IRDMA_AEQE_WQDESCIDX [32:18] IRDMA_AEQE_OVERFLOW 33
 *               IRDMA_AEQE_AECODE [45:34] IRDMA_AEQE_QPCQID_HI 46 IRDMA_AEQE_AESRC [53:50]
 *               IRDMA_AEQE_IWSTATE [56:54] IRDMA_AEQE_TCPSTATE [60:57] IRDMA_AEQE_Q2DATA [62:61]
 *               IRDMA_AEQE_VALID 63
 * </pre>
 * The QP/CQ id is 19 bits: the low 18 in QPCQID_LOW, bit 18 in QPCQID_HI. The model writes qword0 first, then
 * qword1 with the valid bit in a single store.
 */
public final class Aeqe extends QuadView implements Flyweight<Aeqe> {
    public static final int SIZE = 16;
    public static final int OFF_CONTEXT = 0;
    public static final int OFF_INFO = 8;
    public static final int BIT_OVERFLOW = 33;
    public static final int BIT_QPCQID_HI = 46;
    public static final int BIT_VALID = 63;
    /** 19 bits of QP/CQ id (QPCQID_LOW plus QPCQID_HI). */
    public static final int MAX_QP_CQ_ID = (1 << 19) - 1;

    public CqeCheck validate(boolean polarity) {
        return checkPolled(SIZE, OFF_INFO, BIT_VALID, polarity);
    }

    public long completionContext() {
        return qword(OFF_CONTEXT);
    }

    public long info() {
        return qword(OFF_INFO);
    }

    public int qpCqId() {
        long w = qword(OFF_INFO);
        return (int) (get(w, 17, 0) | get(w, BIT_QPCQID_HI, BIT_QPCQID_HI) << 18);
    }

    public int wqeIndex() {
        return (int) get(qword(OFF_INFO), 32, 18);
    }

    public boolean overflow() {
        return bit(qword(OFF_INFO), BIT_OVERFLOW);
    }

    /** IRDMA_AEQE_AECODE: one of {@link AeCode}'s codes (12 bits). */
    public int aeCode() {
        return (int) get(qword(OFF_INFO), 45, 34);
    }

    /** The code as a constant, null when irdma defines no such code. */
    public AeCode ae() {
        return AeCode.of(aeCode());
    }

    /** IRDMA_AEQE_AESRC: one of {@link AeSource}'s values. */
    public int source() {
        return (int) get(qword(OFF_INFO), 53, 50);
    }

    /** IRDMA_AEQE_IWSTATE: the iWARP QP state (IRDMA_QP_STATE_*, 3 bits). */
    public int iwarpState() {
        return (int) get(qword(OFF_INFO), 56, 54);
    }

    /** IRDMA_AEQE_TCPSTATE: IRDMA_TCP_STATE_*. */
    public int tcpState() {
        return (int) get(qword(OFF_INFO), 60, 57);
    }

    public int q2DataWritten() {
        return (int) get(qword(OFF_INFO), 62, 61);
    }

    public boolean valid() {
        return bit(qword(OFF_INFO), BIT_VALID);
    }

    /** What the driver will take this entry to be about (both switches of irdma_sc_get_next_aeqe, gen2). */
    public AeTarget target() {
        return AeTarget.of(aeCode(), source());
    }

    /** The second quadword for the given fields (valid bit included), as the model stores it last. */
    public static long infoWord(int qpCqId, int aeCode, int source, int iwarpState, int tcpState, int wqeIndex,
                                int q2Data, boolean overflow, boolean valid) {
        return prep(qpCqId, 17, 0) | prep(qpCqId >>> 18, BIT_QPCQID_HI, BIT_QPCQID_HI)
            | prep(wqeIndex, 32, 18) | flag(overflow, BIT_OVERFLOW) | prep(aeCode, 45, 34)
            | prep(source, 53, 50) | prep(iwarpState, 56, 54) | prep(tcpState, 60, 57)
            | prep(q2Data, 62, 61) | flag(valid, BIT_VALID);
    }

    /** Writes the context quadword, then the info quadword with its valid bit. */
    public Aeqe write(long completionContext, int qpCqId, int aeCode, int source, int iwarpState, int tcpState,
                      int wqeIndex, int q2Data, boolean overflow, boolean valid) {
        requireRoom(SIZE, "AEQE");
        putQ(OFF_CONTEXT, completionContext);
        putQOrdered(OFF_INFO, infoWord(qpCqId, aeCode, source, iwarpState, tcpState, wqeIndex, q2Data, overflow, valid));
        return this;
    }
}
