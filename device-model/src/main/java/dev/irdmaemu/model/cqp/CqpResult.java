package dev.irdmaemu.model.cqp;

/** What an op handler answers: the fault (NONE on success), the op return value and a detail for the trace. */
public final class CqpResult {
    CqpFault fault = CqpFault.NONE;
    long opReturnValue;
    String detail;

    void reset() {
        fault = CqpFault.NONE;
        opReturnValue = 0;
        detail = null;
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
