package dev.irdmaemu.model.roce.rc;

import dev.irdmaemu.fw.queue.AeCode;

/**
 * Where the RC transport reports that its QP went to error: the integration raises the AE (irdma/hw.c
 * irdma_process_aeq then moves the QP to ERROR and flushes it). Called once per transition.
 */
@FunctionalInterface
public interface RcEvents {
    void queuePairError(AeCode event);
}
