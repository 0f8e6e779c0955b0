package dev.irdmaemu.driver;

import dev.irdmaemu.fw.cqp.CqpErrorCode;

/**
 * How the device answered a waited Flush WQEs op, as hw.c irdma_hw_flush_wqes reads the CCQ completion: a success
 * whose minor code names the queue the device flushed WQEs of (main.h IRDMA_CQP_COMPL_SQ_WQE_FLUSHED /
 * IRDMA_CQP_COMPL_RQ_WQE_FLUSHED; any other non-zero minor is read as both), a success naming none, or an error
 * completion, after which irdma treats both queues' flush as complete (Flush No WQE Pending, 0xffff/0x8006, is
 * the usual one: the QP had nothing posted).
 */
public enum FlushCompletion {
    /** Success, minor 0. */
    NONE_NAMED,
    /** Success, IRDMA_CQP_COMPL_SQ_WQE_FLUSHED: the SQ had WQEs flushed, the RQ none. */
    SQ_WQE_FLUSHED,
    /** Success, IRDMA_CQP_COMPL_RQ_WQE_FLUSHED: the RQ had WQEs flushed, the SQ none. */
    RQ_WQE_FLUSHED,
    /** Success with another minor: both queues had WQEs flushed. */
    BOTH_FLUSHED,
    /** An error completion. */
    ERROR;

    /** The answer a completion with these fields gives. */
    static FlushCompletion of(boolean error, int minor) {
        if (error) {
            return ERROR;
        }
        if (minor == 0) {
            return NONE_NAMED;
        }
        if (minor == CqpErrorCode.COMPL_SQ_WQE_FLUSHED) {
            return SQ_WQE_FLUSHED;
        }
        return minor == CqpErrorCode.COMPL_RQ_WQE_FLUSHED ? RQ_WQE_FLUSHED : BOTH_FLUSHED;
    }
}
