package dev.irdmaemu.model.iwarp;

import dev.irdmaemu.fw.cqp.CqpErrorCode;

/**
 * What a Flush WQEs op (CQP opcode 0x22, ctrl.c irdma_sc_qp_flush_wqes) found on the queues it was asked to flush,
 * as hw.c irdma_hw_flush_wqes reads it back from the CQP completion: a success whose minor code names the queues
 * that had WQEs flushed (main.h IRDMA_CQP_COMPL_SQ_WQE_FLUSHED / IRDMA_CQP_COMPL_RQ_WQE_FLUSHED, the model's
 * {@link IwarpDataPath#COMPL_BOTH_FLUSHED} for both, 0 when no queue was asked for), or the error Flush No WQE
 * Pending when queues were asked for and none had a WQE outstanding.
 */
public enum FlushOutcome {
    /** Neither queue was asked for (a Generate AE only): success, minor 0. */
    NOTHING_ASKED(0),
    /** Only the SQ had WQEs flushed. */
    SQ_FLUSHED(CqpErrorCode.COMPL_SQ_WQE_FLUSHED),
    /** Only the RQ had WQEs flushed. */
    RQ_FLUSHED(CqpErrorCode.COMPL_RQ_WQE_FLUSHED),
    /** Both queues had WQEs flushed. */
    BOTH_FLUSHED(IwarpDataPath.COMPL_BOTH_FLUSHED),
    /** Queues were asked for but none had a WQE outstanding: the op fails with Flush No WQE Pending. */
    NO_WQE_PENDING(0);

    private final int minor;

    FlushOutcome(int minor) {
        this.minor = minor;
    }

    /** Whether the op completes successfully (every outcome but {@link #NO_WQE_PENDING}). */
    public boolean completes() {
        return this != NO_WQE_PENDING;
    }

    /**
     * The success completion's minor code.
     *
     * @throws IllegalStateException for {@link #NO_WQE_PENDING}, which completes with an error instead
     */
    public int minor() {
        if (!completes()) {
            throw new IllegalStateException("Flush No WQE Pending completes with an error, not a minor code");
        }
        return minor;
    }

    /** The outcome for a flush that found WQEs on the SQ ({@code sq}) and/or the RQ ({@code rq}). */
    static FlushOutcome of(boolean sq, boolean rq) {
        if (sq) {
            return rq ? BOTH_FLUSHED : SQ_FLUSHED;
        }
        return rq ? RQ_FLUSHED : NO_WQE_PENDING;
    }
}
