package dev.irdmaemu.model.roce.rc;

import dev.irdmaemu.fw.queue.AeCode;

/**
 * The status a completed RC work request ends with, as the verbs name it (include/rdma/ib_verbs.h enum
 * ib_wc_status), each with the asynchronous event irdma maps to it for a RoCE QP (irdma/user.h and hw.c
 * irdma_process_aeq: the AE sets the flush code the CQEs of the failed QP carry).
 */
public enum RcStatus {
    SUCCESS(null),
    /** A receive buffer too small for the message (IB_WC_LOC_LEN_ERR). */
    LOCAL_LENGTH_ERROR(AeCode.IB_INVALID_REQUEST),
    /** A local SGE the QP may not access (IB_WC_LOC_PROT_ERR). */
    LOCAL_PROTECTION_ERROR(AeCode.AMP_BOUNDS_VIOLATION),
    /** NAK invalid request from the responder (IB_WC_REM_INV_REQ_ERR). */
    REMOTE_INVALID_REQUEST(AeCode.IB_INVALID_REQUEST),
    /** NAK remote access error (IB_WC_REM_ACCESS_ERR). */
    REMOTE_ACCESS_ERROR(AeCode.IB_REMOTE_ACCESS_ERROR),
    /** NAK remote operational error (IB_WC_REM_OP_ERR). */
    REMOTE_OPERATION_ERROR(AeCode.IB_REMOTE_OP_ERROR),
    /** The retransmit timer expired more often than the context's retry count (IB_WC_RETRY_EXC_ERR). */
    RETRY_EXCEEDED(AeCode.LLP_TOO_MANY_RETRIES),
    /** More RNR NAKs than the context's RNR retry count (IB_WC_RNR_RETRY_EXC_ERR). */
    RNR_RETRY_EXCEEDED(AeCode.LLP_TOO_MANY_RNRS),
    /** Flushed when the QP went to error (IB_WC_WR_FLUSH_ERR). */
    FLUSHED(null);

    private final AeCode event;

    RcStatus(AeCode event) {
        this.event = event;
    }

    /** The AE the device raises when a work request ends so; null for success and flush. */
    public AeCode event() {
        return event;
    }
}
