package dev.irdmaemu.fw.queue;

import dev.irdmaemu.fw.Check;

/**
 * Checks of a work queue entry the host posted (SQ or RQ, uk.c layouts). The model turns a failure other
 * than {@link #NOT_POSTED} into an AE (e.g. IRDMA_AE_WQE_UNEXPECTED_OPCODE, IRDMA_AE_WQE_INVALID_PARAMETER,
 * IRDMA_AE_WQE_INVALID_FRAG_DATA) or an error CQE; see {@link #suggestedAe()}.
 */
public enum WqeCheck implements Check {
    ACCEPTED("well-formed WQE", null),
    TRUNCATED("the window is shorter than the WQE's quanta (32 bytes each, defs.h IRDMA_QP_WQE_MIN_SIZE)", null),
    NOT_POSTED("valid bit differs from the ring's polarity: nothing posted here yet", null),
    UNKNOWN_OPCODE("IRDMAQPSQ_OPCODE is not an IRDMAQP_OP_* code (defs.h)", AeCode.WQE_UNEXPECTED_OPCODE),
    RESERVED_BITS("a header bit that this opcode does not use is set", AeCode.WQE_INVALID_PARAMETER),
    TOO_MANY_FRAGMENTS("more fragments than IRDMA_MAX_WQ_FRAGMENT_COUNT (13) allows (user.h)",
        AeCode.WQE_INVALID_PARAMETER),
    FRAGMENT_POLARITY("a fragment's or inline quantum's valid bit differs from the header's (gen2, uk.c)",
        AeCode.WQE_INVALID_FRAG_DATA),
    INLINE_NOT_ALLOWED("inline data on an opcode other than Send or RDMA Write", AeCode.WQE_INVALID_PARAMETER),
    INLINE_TOO_LONG("inline data longer than IRDMA_MAX_INLINE_DATA_SIZE (101 bytes, user.h)",
        AeCode.WQE_INVALID_PARAMETER),
    INVALID_LENGTH("total length above IRDMA_MAX_OUTBOUND_MSG_SIZE / IRDMA_MAX_INBOUND_MSG_SIZE (user.h)",
        AeCode.WQE_INVALID_PARAMETER),
    TOO_LARGE_FOR_QUEUE("the WQE's fragments do not fit the queue's WQE size", AeCode.WQE_INVALID_PARAMETER);

    private final String text;
    private final AeCode ae;

    WqeCheck(String text, AeCode ae) {
        this.text = text;
        this.ae = ae;
    }

    @Override
    public String describe() {
        return text;
    }

    /** The AE the model raises for this failure (null for ACCEPTED, TRUNCATED and NOT_POSTED). */
    public AeCode suggestedAe() {
        return ae;
    }
}
