package dev.irdmaemu.fw.qp;

/**
 * The struct irdma_sc_qp fields that irdma_sc_qp_setctx copies into the context: queue addresses and encoded
 * sizes (hw_sq_size / hw_rq_size from irdma_get_encoded_wqe_size), the RQ WQE size code, TPH settings, the
 * push page ({@link #NO_PUSH_PAGE} for none: push mode off), the Q2 buffer, the QS handle and the IEQ QP id.
 */
public record QpResources(
    int rqWqeSize,
    boolean rcvTphEn,
    boolean xmitTphEn,
    boolean rqTphEn,
    boolean sqTphEn,
    long pushIdx,
    long sqPa,
    long rqPa,
    int hwRqSize,
    int hwSqSize,
    long q2Pa,
    int sqTphVal,
    int rqTphVal,
    int qsHandle,
    int ieqQp) {

    /** defs.h IRDMA_INVALID_PUSH_PAGE_INDEX. */
    public static final long NO_PUSH_PAGE = 0xffff_ffffL;
}
