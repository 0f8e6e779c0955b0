package dev.irdmaemu.fw.reg;

/**
 * The generation-dependent field masks irdma reads from {@code dev->hw_masks[]} / {@code dev->hw_shifts[]} with
 * FLD_LS_64 / FLD_RS_64 (defs.h), in the order of {@code enum irdma_masks} / {@code enum irdma_shifts} (irdma.h),
 * with the gen2 values of {@code icrdma_masks[]} / {@code icrdma_shifts[]} (icrdma_hw.c, ICRDMA_* in
 * icrdma_hw.h). The shift is always the mask's lowest set bit.
 */
public enum Gen2HwMask {
    /** ICRDMA_CCQPSTATUS_CCQP_DONE: BIT_ULL(0) of PFPE_CCQPSTATUS. */
    CCQPSTATUS_CCQP_DONE(Bits.bit(0)),
    /** ICRDMA_CCQPSTATUS_CCQP_ERR: BIT_ULL(31) of PFPE_CCQPSTATUS. */
    CCQPSTATUS_CCQP_ERR(Bits.bit(31)),
    /** ICRDMA_CQPSQ_STAG_PDID: GENMASK_ULL(63, 46) of STag WQE quadword 1. */
    CQPSQ_STAG_PDID(Bits.genmask(63, 46)),
    /** ICRDMA_CQPSQ_CQ_CEQID: GENMASK_ULL(31, 22) of the CQ WQE header. */
    CQPSQ_CQ_CEQID(Bits.genmask(31, 22)),
    /** ICRDMA_CQPSQ_CQ_CQID: GENMASK_ULL(18, 0) of the CQ WQE header. */
    CQPSQ_CQ_CQID(Bits.genmask(18, 0)),
    /** ICRDMA_COMMIT_FPM_CQCNT: GENMASK_ULL(19, 0) of the CQ quadword of the commit FPM buffer. */
    COMMIT_FPM_CQCNT(Bits.genmask(19, 0)),
    /** ICRDMA_CQPSQ_UPESD_HMCFNID: GENMASK_ULL(5, 0) of Update PE SDs quadword 2. */
    CQPSQ_UPESD_HMCFNID(Bits.genmask(5, 0));

    private final long mask;

    Gen2HwMask(long mask) {
        this.mask = mask;
    }

    public long mask() {
        return mask;
    }

    /** The icrdma_shifts[] entry: the position of the mask's lowest bit. */
    public int shift() {
        return Long.numberOfTrailingZeros(mask);
    }

    /** FLD_LS_64: {@code value} shifted into the field. */
    public long prep(long value) {
        return Bits.prep(mask, value);
    }

    /** FLD_RS_64: the field of {@code word}. */
    public long get(long word) {
        return Bits.get(word, mask);
    }
}
