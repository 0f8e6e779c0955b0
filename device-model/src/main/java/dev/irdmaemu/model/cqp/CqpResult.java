package dev.irdmaemu.model.cqp;

import dev.irdmaemu.fw.cqp.CqpFault;

/** What an op handler answers: the fault (NONE on success), the op return value and a detail for the trace. */
public final class CqpResult {
    CqpFault fault = CqpFault.NONE;
    long opReturnValue;
    String detail;
    int successMinor;

    void reset() {
        fault = CqpFault.NONE;
        opReturnValue = 0;
        detail = null;
        successMinor = 0;
    }

    /** Records a failure with a short reason (a constant string; no allocation). */
    public CqpResult fail(CqpFault f, String why) {
        fault = f;
        detail = why;
        return this;
    }

    public CqpResult ok() {
        return this;
    }

    /**
     * A minor code on a successful completion (major 0, no error bit): Flush WQEs reports which queue it flushed
     * this way (main.h IRDMA_CQP_COMPL_RQ_WQE_FLUSHED / _SQ_WQE_FLUSHED, read by hw.c irdma_hw_flush_wqes).
     */
    public CqpResult okWithMinor(int minor) {
        successMinor = minor & 0xffff;
        return this;
    }

    public CqpResult returnValue(long v) {
        opReturnValue = v;
        return this;
    }

    public CqpFault fault() {
        return fault;
    }

    public String detail() {
        return detail;
    }
}
