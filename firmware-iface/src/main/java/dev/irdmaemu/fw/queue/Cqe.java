package dev.irdmaemu.fw.queue;

import dev.irdmaemu.fw.Flyweight;

/**
 * Flyweight over one 32-byte completion queue entry (user.h struct irdma_cqe, IRDMA_CQE_SIZE = 4 quadwords) as
 * the E810 (gen2) writes it and irdma_uk_cq_poll_cmpl / irdma_puda_poll_info read it. Bit ranges are the defs.h
 * masks:
 * <pre>
 *  qword0 (+0)   IRDMACQ_PAYLDLEN [31:0] bytes received (RQ)     IRDMACQ_TCPSEQNUMRTT [63:32]
 *  qword1 (+8)   completion context (IRDMA_CQ_QPCTX [63:0]): the QP's qp_compl_ctx, which the driver reads
 *                back as its QP handle (SRQ completions: the wr_id)
 *  qword2 (+16)  IRDMACQ_INVSTAG / IRDMACQ_UDSRCQPN [31:0]       IRDMACQ_QPID [55:32]
 *  qword3 (+24)  IRDMA_CQ_MINERR [15:0] IRDMA_CQ_MAJERR [31:16] IRDMA_CQ_WQEIDX [46:32] IRDMA_CQ_EXTCQE 50
 *                IRDMACQ_PSHDROP 51 IRDMA_CQ_SRQ 52 IRDMACQ_STAG = IRDMACQ_IPV4 53 IRDMACQ_SOEVENT 54
 *                IRDMA_CQ_ERROR 55 IRDMACQ_OP [61:56] IRDMA_CQ_SQ 62 IRDMA_CQ_VALID 63
 * </pre>
 * Bit 53 means "an STag was invalidated" on an iWARP RQ completion and "IPv4" on a PUDA (ILQ/IEQ) completion:
 * both readers test the same bit (uk.c and puda.c). When {@link #extended()} is set, a second 32-byte entry
 * ({@link CqeExtension}) follows in the next ring slot.
 *
 * <p>The model writes with {@link #clear()} and the fluent setters, setting {@link #valid(boolean)} last; the
 * driver side reads with the getters. The driver polls the ring from its own CPU while the model writes it, so an
 * entry must never look valid before it is whole: {@link #clear()} keeps the slot's old valid bit (the previous
 * pass's, which the driver does not take), every setter leaves it alone, and {@link #valid(boolean)} writes the
 * quadword with the new one in a release store after everything else. No allocation on either path.
 */
public final class Cqe extends QuadView implements Flyweight<Cqe> {
    public static final int SIZE = 32;

    public static final int OFF_QW0 = 0;
    public static final int OFF_COMPLETION_CONTEXT = 8;
    public static final int OFF_QW2 = 16;
    public static final int OFF_QW3 = 24;

    // qword3 bit positions (defs.h)
    public static final int BIT_EXTCQE = 50;
    public static final int BIT_PSHDROP = 51;
    public static final int BIT_SRQ = 52;
    public static final int BIT_STAG_OR_IPV4 = 53;
    public static final int BIT_SOEVENT = 54;
    public static final int BIT_ERROR = 55;
    public static final int BIT_SQ = 62;
    public static final int BIT_VALID = 63;

    /** defs.h IRDMA_CQE_QTYPE_RQ / IRDMA_CQE_QTYPE_SQ (the IRDMA_CQ_SQ bit). */
    public static final int QTYPE_RQ = 0;
    public static final int QTYPE_SQ = 1;

    /** user.h IRDMA_FLUSH_MAJOR_ERR: the major code of a flushed WQE's completion. */
    public static final int MAJOR_FLUSH = 1;
    /**
     * user.h FLUSH_GENERAL_ERR (enum irdma_flush_opcode): the minor code of a flushed WQE's completion when the Flush
     * WQEs op names none (IRDMA_CQPSQ_FWQE_USERFLCODE clear), and the one irdma names for a queue no AE was about.
     */
    public static final int MINOR_FLUSH_GENERAL = 1;
    /** user.h IRDMA_OP_TYPE_REC / IRDMA_OP_TYPE_REC_IMM: op type of receive completions. */
    public static final int OP_RECEIVE = 0x3e;
    public static final int OP_RECEIVE_IMM = 0x3f;

    /**
     * ACCEPTED when a whole entry is in the window and its valid bit equals the consumer's current polarity
     * (irdma_uk_cq_poll_cmpl: a different valid bit means "no new completion", not an error).
     */
    public CqeCheck validate(boolean polarity) {
        return checkPolled(SIZE, OFF_QW3, BIT_VALID, polarity);
    }

    // ---- reader (the driver's view) ----

    /** The {@code index}-th quadword (0..3) of the CQE; 0 outside. */
    public long quadword(int index) {
        return index >= 0 && index < 4 ? qword(8L * index) : 0L;
    }

    /** IRDMACQ_PAYLDLEN: bytes placed for an RQ completion (PUDA: the whole placed packet, see PudaLayout). */
    public long payloadLength() {
        return get(qword(OFF_QW0), 31, 0);
    }

    /** IRDMACQ_TCPSEQNUMRTT [63:32]. */
    public int tcpSeqNumRtt() {
        return (int) get(qword(OFF_QW0), 63, 32);
    }

    /** qword1: the QP completion context (irdma_sc_qp_setctx's qp_compl_ctx), the driver's QP handle. */
    public long completionContext() {
        return qword(OFF_COMPLETION_CONTEXT);
    }

    /** IRDMACQ_INVSTAG [31:0]: the invalidated STag when {@link #stagInvalidated()}. */
    public int invalidatedStag() {
        return (int) get(qword(OFF_QW2), 31, 0);
    }

    /** IRDMACQ_QPID [55:32]. */
    public int qpId() {
        return (int) get(qword(OFF_QW2), 55, 32);
    }

    public int minorError() {
        return (int) get(qword(OFF_QW3), 15, 0);
    }

    public int majorError() {
        return (int) get(qword(OFF_QW3), 31, 16);
    }

    /** IRDMA_CQ_WQEIDX [46:32]: the SQ quantum index or RQ WQE index (in quanta) that completed. */
    public int wqeIndex() {
        return (int) get(qword(OFF_QW3), 46, 32);
    }

    public boolean extended() {
        return bit(qword(OFF_QW3), BIT_EXTCQE);
    }

    public boolean pushDropped() {
        return bit(qword(OFF_QW3), BIT_PSHDROP);
    }

    public boolean srq() {
        return bit(qword(OFF_QW3), BIT_SRQ);
    }

    /** IRDMACQ_STAG (bit 53) read as on an iWARP RQ completion. */
    public boolean stagInvalidated() {
        return bit(qword(OFF_QW3), BIT_STAG_OR_IPV4);
    }

    /** IRDMACQ_IPV4 (bit 53) read as on a PUDA completion (irdma_puda_poll_info, gen2). */
    public boolean ipv4() {
        return bit(qword(OFF_QW3), BIT_STAG_OR_IPV4);
    }

    public boolean solicitedEvent() {
        return bit(qword(OFF_QW3), BIT_SOEVENT);
    }

    public boolean error() {
        return bit(qword(OFF_QW3), BIT_ERROR);
    }

    /** IRDMACQ_OP [61:56]: an IRDMAQP_OP_* / IRDMA_OP_TYPE_* code. */
    public int opType() {
        return (int) get(qword(OFF_QW3), 61, 56);
    }

    /** IRDMA_CQ_SQ: true for a send-queue completion (IRDMA_CQE_QTYPE_SQ). */
    public boolean sq() {
        return bit(qword(OFF_QW3), BIT_SQ);
    }

    public int queueType() {
        return sq() ? QTYPE_SQ : QTYPE_RQ;
    }

    public boolean valid() {
        return bit(qword(OFF_QW3), BIT_VALID);
    }

    /** The driver's compl_error for a PUDA error completion (irdma_puda_poll_info): major << 16 | minor. */
    public int pudaComplError() {
        return majorError() << 16 | minorError();
    }

    /**
     * The valid bit the device must give the extension entry in ring slot {@code extensionSlot}: the driver
     * (irdma_uk_cq_poll_cmpl, irdma_puda_poll_info) flips the bit it reads when that slot is 0, because the
     * extension then lies in the next pass of the ring.
     */
    public static boolean extensionValidBit(boolean polarity, long extensionSlot) {
        return extensionSlot == 0 ? !polarity : polarity;
    }

    // ---- writer (the model) ----

    /**
     * Zeroes the 32 bytes but the valid bit, which keeps the value the slot had: a ring's slot holds the previous
     * pass's polarity, which the driver reads as "not yet written", until {@link #valid(boolean)}. (Zeroing it too
     * made a slot whose new polarity is 0 look complete while its fields were still being written: libirdma then
     * took a half-written SQ completion for a receive.)
     */
    public Cqe clear() {
        requireRoom(SIZE, "CQE");
        for (int i = 0; i < OFF_QW3; i += 8) {
            putQ(i, 0L);
        }
        putQ(OFF_QW3, qword(OFF_QW3) & 1L << BIT_VALID);
        return this;
    }

    public Cqe payloadLength(long bytes) {
        putField(OFF_QW0, 31, 0, bytes);
        return this;
    }

    public Cqe tcpSeqNumRtt(int v) {
        putField(OFF_QW0, 63, 32, Integer.toUnsignedLong(v));
        return this;
    }

    public Cqe completionContext(long ctx) {
        putQ(OFF_COMPLETION_CONTEXT, ctx);
        return this;
    }

    public Cqe invalidatedStag(int stag) {
        putField(OFF_QW2, 31, 0, Integer.toUnsignedLong(stag));
        return this;
    }

    public Cqe qpId(int qpId) {
        putField(OFF_QW2, 55, 32, qpId);
        return this;
    }

    /** Sets IRDMA_CQ_ERROR with the major and minor codes (an error completion). */
    public Cqe error(int major, int minor) {
        long q3 = qword(OFF_QW3);
        q3 = set(q3, 31, 16, major);
        q3 = set(q3, 15, 0, minor);
        putQ(OFF_QW3, q3 | 1L << BIT_ERROR);
        return this;
    }

    public Cqe wqeIndex(int index) {
        putField(OFF_QW3, 46, 32, index);
        return this;
    }

    public Cqe extended(boolean v) {
        putBit(OFF_QW3, BIT_EXTCQE, v);
        return this;
    }

    public Cqe pushDropped(boolean v) {
        putBit(OFF_QW3, BIT_PSHDROP, v);
        return this;
    }

    public Cqe srq(boolean v) {
        putBit(OFF_QW3, BIT_SRQ, v);
        return this;
    }

    public Cqe stagInvalidated(boolean v) {
        putBit(OFF_QW3, BIT_STAG_OR_IPV4, v);
        return this;
    }

    public Cqe ipv4(boolean v) {
        putBit(OFF_QW3, BIT_STAG_OR_IPV4, v);
        return this;
    }

    public Cqe solicitedEvent(boolean v) {
        putBit(OFF_QW3, BIT_SOEVENT, v);
        return this;
    }

    public Cqe opType(int op) {
        putField(OFF_QW3, 61, 56, op);
        return this;
    }

    public Cqe sq(boolean v) {
        putBit(OFF_QW3, BIT_SQ, v);
        return this;
    }

    /**
     * Set last: the driver reads nothing else until this bit matches its polarity. A release store, so every field
     * written before is visible to the driver when the bit is.
     */
    public Cqe valid(boolean v) {
        putQOrdered(OFF_QW3, set(qword(OFF_QW3), BIT_VALID, BIT_VALID, v ? 1 : 0));
        return this;
    }
}
