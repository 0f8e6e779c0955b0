package dev.irdmaemu.driver.verbs;

/**
 * One work completion (include/rdma/ib_verbs.h struct ib_wc) as verbs.c irdma_process_cqe fills it from what uk.c
 * irdma_uk_cq_poll_cmpl decoded. Mutable and reused: a consumer keeps one (or an array) and hands it to
 * {@link CompletionQueue#poll(WorkCompletion)}; nothing is allocated per completion.
 */
public final class WorkCompletion {
    long wrId;
    WcStatus status = WcStatus.SUCCESS;
    WcOpcode opcode = WcOpcode.UNKNOWN;
    int vendorErr;
    long byteLen;
    int qpNum;
    int invalidatedRkey;
    boolean withInvalidate;
    int immData;
    boolean withImm;
    boolean solicited;

    void clear() {
        wrId = 0;
        status = WcStatus.SUCCESS;
        opcode = WcOpcode.UNKNOWN;
        vendorErr = 0;
        byteLen = 0;
        qpNum = 0;
        invalidatedRkey = 0;
        withInvalidate = false;
        immData = 0;
        withImm = false;
        solicited = false;
    }

    /** The consumer's work request id, from the SQ's or RQ's wrid array (never from the device). */
    public long wrId() {
        return wrId;
    }

    public WcStatus status() {
        return status;
    }

    public WcOpcode opcode() {
        return opcode;
    }

    /** ib_wc.vendor_err: major &lt;&lt; 16 | minor of an error CQE, 0 on success. */
    public int vendorErr() {
        return vendorErr;
    }

    /** Bytes placed (receives) or the work request's length (sends, reads, writes). */
    public long byteLen() {
        return byteLen;
    }

    /** ib_wc.src_qp: the QP id the CQE names. */
    public int qpNum() {
        return qpNum;
    }

    /** IB_WC_WITH_INVALIDATE: a Send with Invalidate invalidated {@link #invalidatedRkey()} on this side. */
    public boolean withInvalidate() {
        return withInvalidate;
    }

    public int invalidatedRkey() {
        return invalidatedRkey;
    }

    public boolean withImm() {
        return withImm;
    }

    public int immData() {
        return immData;
    }

    /** IRDMACQ_SOEVENT: the receive completed a Send with Solicited Event. */
    public boolean solicited() {
        return solicited;
    }

    @Override
    public String toString() {
        return "wc{wr_id=" + wrId + " " + status + " " + opcode + " len=" + byteLen + " qp=" + qpNum
                + (withInvalidate ? " inv=0x" + Integer.toHexString(invalidatedRkey) : "")
                + (vendorErr != 0 ? " vendor=0x" + Integer.toHexString(vendorErr) : "") + "}";
    }
}
