package dev.irdmaemu.driver;

/**
 * ctrl.c struct irdma_ccq_cqe_info: what a CCQ CQE said of its request (the WQE index it names, error, major and
 * minor codes, op return value). The CQP keeps one per WQE slot, filled when the completion is taken and read by the
 * request's waiter or its callback; a register-polled op (no CCQ yet, ctrl.c irdma_cqp_poll_registers) completes
 * with {@link #REGISTER_POLLED}, which has no codes and no return value.
 */
final class CcqCqeInfo implements CcqPoll {
    /** The completion of an op that PFPE_CQPTAIL moving past completed. */
    static final CcqCqeInfo REGISTER_POLLED = new CcqCqeInfo();

    private int wqeIndex;
    private boolean error;
    private int majorCode;
    private int minorCode;
    private long opReturnValue;

    CcqCqeInfo set(int wqe, boolean err, int major, int minor, long ret) {
        this.wqeIndex = wqe;
        this.error = err;
        this.majorCode = major;
        this.minorCode = minor;
        this.opReturnValue = ret;
        return this;
    }

    int wqeIndex() {
        return wqeIndex;
    }

    boolean error() {
        return error;
    }

    int majorCode() {
        return majorCode;
    }

    /** The minor code (for a flush, main.h IRDMA_CQP_COMPL_RQ_WQE_FLUSHED / _SQ_WQE_FLUSHED, 0 for none). */
    int minorCode() {
        return minorCode;
    }

    long opReturnValue() {
        return opReturnValue;
    }
}
